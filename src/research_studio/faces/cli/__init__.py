"""The `research-studio` command line.

Commands are imported when they run: `--help` and `--version` load none of them (the listing reads
each command's docstring from its source), so they cost a fraction of a CPU-second.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import time
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

# Command name: (module in this package, function). Listed in this order by --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "doctor": ("doctor", "doctor"),  # a newcomer's first command, listed first
    "run": ("research", "run"),
    "resume": ("research", "resume"),
    "runs": ("research", "runs"),
    "ask": ("ask", "ask"),
    "audit": ("audit", "audit"),
    "verify": ("verify", "verify"),
    "export": ("export", "export"),
    "index": ("documents", "index"),
    "bench": ("bench", "bench"),
    "search": ("tools", "search"),
    "fetch": ("tools", "fetch"),
    "config": ("tools", "config"),
    "eval": ("eval", "eval_command"),
    "mcp": ("mcp", "mcp"),
    "serve": ("serve", "serve"),
    "remote": ("remote", "remote"),
}
# When the command started (time.monotonic): the live display and the closing summary read this one
# clock, so neither leaves out the set-up (configuration, model checks, indexing) before a run.
_started = time.monotonic()


def command_elapsed() -> float:
    """Seconds since the command started."""
    return time.monotonic() - _started


# Plain click help: it wraps at the terminal's width without Rich's narrow panel columns.
HELP_STYLE: dict[str, Any] = {
    "rich_markup_mode": None,
    "context_settings": {"max_content_width": 100},
}


def _docstring(module: str, function: str) -> str:
    """A command function's docstring, read from its source without importing the module."""
    spec = importlib.util.find_spec(f"{__name__}.{module}")
    if spec is None or spec.origin is None:
        return ""
    with open(spec.origin, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return inspect.cleandoc(ast.get_docstring(node) or "")
    return ""


def load_command(name: str) -> Any:
    """The click command `name`, built from its module (imported now, with its dependencies)."""
    module, function = COMMANDS[name]
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, **HELP_STYLE)
    single.command(name=name)(getattr(importlib.import_module(f"{__name__}.{module}"), function))
    return typer.main.get_command(single)


class _LazyGroup(TyperGroup):
    """A group whose commands are placeholders (name and help) until one is invoked."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            # A bool: Typer then takes the flag as it is when a command's --help is asked, instead
            # of coercing None through a pydantic adapter (importing pydantic for nothing).
            option.default = False
        return option

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._listing = False
        # Help texts are read from the sources only for a listing: running a command needs none.
        self.commands = {name: TyperCommand(name=name) for name in COMMANDS}

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing or cmd_name not in COMMANDS:
            command = super().get_command(ctx, cmd_name)
            if self._listing and command is not None and command.help is None:
                command.help = _docstring(*COMMANDS[cmd_name])
            return command
        return load_command(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True  # the listing needs names and help only
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    name="research-studio",
    help="A deep research agent: plans, searches, reads, verifies and writes a cited report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=_LazyGroup,
    **HELP_STYLE,
)


def _version(value: bool) -> None:
    if value:
        from research_studio import __version__

        typer.echo(f"research-studio {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    """Research Studio."""
    global _started
    _started = time.monotonic()  # each invocation (one per process; several in tests)


def main() -> None:
    """Console-script entry point."""
    app()

"""What every command shares: option types, configuration loading and the user-error boundary."""

from __future__ import annotations

import functools
import inspect
import json
import os
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from research_studio.core.errors import ResearchStudioError
from research_studio.faces.cli import setting_flags
from research_studio.faces.cli.option_flag import Flag
from research_studio.faces.cli.terminal import foreign, line

# Rich, the configuration (pydantic) and the run folders are imported when a command runs:
# a command's --help needs none of them (tests/faces/cli/test_help_imports.py).
if TYPE_CHECKING:
    from rich.console import Console

    from research_studio.core.config_fields import Face
    from research_studio.core.config_loading import LoadedConfiguration
    from research_studio.run.runs import RunFolder

    out: Console  # stdout, made on first use (below)
    err: Console  # stderr

T = TypeVar("T")


def _console(name: str) -> Console:
    made: Console | None = globals().get(name)
    if made is None:
        from rich.console import Console

        # No emoji codes: ":warning:" in a page title stays text.
        made = globals()[name] = Console(stderr=name == "err", soft_wrap=True, emoji=False)
    return made


def __getattr__(name: str) -> Any:
    """`out` and `err`, the consoles every command prints with, made on first use."""
    if name in ("out", "err"):
        return _console(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ConfigFileOption = Annotated[
    Path | None, typer.Option("--config", help="Settings file (default: ./research-studio.toml).")
]
RunIdArgument = Annotated[
    str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
]
AnswerOption = Annotated[
    str | None, typer.Option("--answer", help="Answer to give if a clarification is asked.")
]
Command = Callable[..., None]


def _option(name: str, declared: Flag) -> inspect.Parameter:
    """The Typer option of one setting: flag, help and bounds as its field declares them."""
    option = typer.Option(
        declared.flag,
        help=declared.help,
        show_default=False,
        min=declared.minimum,
        max=declared.maximum,
    )
    return inspect.Parameter(
        name,
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[declared.annotation | None, option],
    )


def _given(value: Any) -> Any:
    """A flag's value as the configuration takes it: paths made absolute (saved in run.json)."""
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, list | tuple):
        return [_given(item) for item in value] or None
    return value


def setting_options(face: Face) -> Callable[[Command], Command]:
    """Give a command one option per setting declared for its face ("cli.<command>"), each
    generated from the setting's declaration.

    The command receives the values it was given as `overrides` ({setting: value}, unset ones
    None), so no command maps flags to settings by hand. The options are read from the table
    generated from the declarations (setting_flags.py); the command checks it against them when
    it runs.
    """
    from research_studio.faces.cli.setting_flags_table import FLAGS

    names = setting_flags.offered(face)

    def decorate(command: Command) -> Command:
        signature = inspect.signature(command, eval_str=True)
        own = [param for name, param in signature.parameters.items() if name != "overrides"]

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> None:
            setting_flags.check_current(face)
            overrides = {name: _given(kwargs.pop(name, None)) for name in names}
            command(*args, overrides=overrides, **kwargs)

        params = [*own, *(_option(name, FLAGS[name]) for name in names)]
        wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
        return wrapper

    return decorate


def settings(
    config_file: Path | None, overrides: dict[str, Any] | None = None
) -> LoadedConfiguration:
    """Load configuration with the given command-line values on top."""
    from research_studio.core.config_loading import load_configuration

    return load_configuration(overrides, config_file=config_file)


def open_run(run_id: str, config_file: Path | None) -> RunFolder:
    """The run a command names (folder path, id or unique id prefix in the configured runs folder);
    a one-line error when there is none."""
    from research_studio.run.runs import find_run

    with user_errors():
        return find_run(settings(config_file).config.runs_dir, run_id)


def print_json(data: Any) -> None:
    """JSON on stdout, unmangled by rich. A file name that is no text (an undecodable byte,
    kept as a lone surrogate) is written as its JSON escape ("\\udcff"), never a crash."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write(text.encode("utf-8", "backslashreplace").decode("utf-8") + "\n")


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn our errors into one line on stderr and a non-zero exit, never a traceback."""
    try:
        yield
    except ResearchStudioError as exc:
        _console("err").print(line(("error: ", "bold red"), foreign(exc)), highlight=False)
        raise typer.Exit(code=2) from None
    except OSError as exc:  # a path the system refuses (a name too long, a device): one line
        _console("err").print(
            line(("error: ", "bold red"), foreign(_os_error(exc))), highlight=False
        )
        raise typer.Exit(code=2) from None
    except KeyboardInterrupt:
        _console("err").print("[yellow]interrupted[/]")
        raise typer.Exit(code=130) from None


def _os_error(exc: OSError) -> str:
    """What the system said, naming the path it said it of (cut short: it may be the problem)."""
    reason = exc.strerror or type(exc).__name__
    if exc.filename is None:
        return reason
    name = os.fsdecode(exc.filename)
    return f"{name if len(name) <= 80 else name[:77] + '...'}: {reason}"


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine inside the user-error boundary."""
    import asyncio  # here: a run's first line is printed before asyncio is needed

    with user_errors():
        return asyncio.run(coroutine)


def prompt_choice(question: str, options: list[str]) -> str:
    """Ask at the terminal: a numbered option or free text (blocking; call it in a thread)."""
    from rich.prompt import Prompt

    err = _console("err")
    err.print()
    err.print(foreign(question, "bold"))
    for number, option in enumerate(options, 1):
        err.print(line(f"  {number}. ", foreign(option)))
    reply = Prompt.ask("Pick a number or type your own answer", console=err).strip()
    if reply.isdigit() and 1 <= int(reply) <= len(options):
        return options[int(reply) - 1]
    return reply

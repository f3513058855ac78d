"""What every command shares: option types, configuration loading and the user-error boundary."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.prompt import Prompt

from research_studio.core.config import (
    LoadedConfiguration,
    ReportStructure,
    SearchProviderName,
    load_configuration,
)
from research_studio.core.errors import ResearchStudioError
from research_studio.faces.cli.terminal import foreign, line

T = TypeVar("T")

# No emoji codes: ":warning:" in a page title stays text.
out = Console(soft_wrap=True, emoji=False)
err = Console(stderr=True, soft_wrap=True, emoji=False)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ConfigFileOption = Annotated[
    Path | None, typer.Option("--config", help="Settings file (default: ./research-studio.toml).")
]
SearchOption = Annotated[
    SearchProviderName | None,
    typer.Option("--search", help="Search provider (default: chosen from your set-up)."),
]
SearxngOption = Annotated[str | None, typer.Option("--searxng-url", help="SearXNG base URL.")]
TavilyUrlOption = Annotated[
    str | None, typer.Option("--tavily-base-url", help="Tavily API base URL.")
]
PrivateOption = Annotated[
    bool | None,
    typer.Option(
        "--allow-private-networks/--no-private-networks",
        help="Allow loopback/private addresses (self-hosted search, local pages).",
        show_default=False,
    ),
]
NoCacheFlag = Annotated[bool, typer.Option("--no-cache", help="Bypass the search and page cache.")]
ModelOption = Annotated[str | None, typer.Option("--model", help="Smart model, provider:name.")]
FastModelOption = Annotated[
    str | None, typer.Option("--fast-model", help="Fast model (extraction, per-page work).")
]
FormatOption = Annotated[
    ReportStructure | None, typer.Option("--format", help="Shape of the report.")
]
IterationsOption = Annotated[
    int | None, typer.Option("--iterations", min=1, max=20, help="Research loop iterations.")
]
AnswerOption = Annotated[
    str | None, typer.Option("--answer", help="Answer to give if a clarification is asked.")
]


def settings(config_file: Path | None, **overrides: Any) -> LoadedConfiguration:
    """Load configuration with the given command-line values on top."""
    if overrides.pop("no_cache", False):
        overrides["use_cache"] = False
    return load_configuration(overrides, config_file=config_file)


def print_json(data: Any) -> None:
    """JSON on stdout, unmangled by rich."""
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn our errors into one line on stderr and a non-zero exit, never a traceback."""
    try:
        yield
    except ResearchStudioError as exc:
        err.print(line(("error: ", "bold red"), foreign(exc)), highlight=False)
        raise typer.Exit(code=2) from None
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/]")
        raise typer.Exit(code=130) from None


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine inside the user-error boundary."""
    with user_errors():
        return asyncio.run(coroutine)


def prompt_choice(question: str, options: list[str]) -> str:
    """Ask at the terminal: a numbered option or free text (blocking; call it in a thread)."""
    err.print()
    err.print(foreign(question, "bold"))
    for number, option in enumerate(options, 1):
        err.print(line(f"  {number}. ", foreign(option)))
    reply = Prompt.ask("Pick a number or type your own answer", console=err).strip()
    if reply.isdigit() and 1 <= int(reply) <= len(options):
        return options[int(reply) - 1]
    return reply

"""The tool commands: search, fetch and config."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from research_studio.core.errors import FetchError, ResearchStudioError
from research_studio.core.urls import is_web_url
from research_studio.core.words import is_utf8
from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line, visible

if TYPE_CHECKING:  # the services are imported by the command that runs, not by its --help
    from research_studio.core.config import Configuration
    from research_studio.sources.fetch import Page
    from research_studio.sources.search import SearchResult


async def _search(config: Configuration, query: str, limit: int) -> tuple[str, list[SearchResult]]:
    from research_studio.services.clients import open_services
    from research_studio.services.resolution import choose_search

    choose_search(config)  # fail fast, naming the options, when nothing can serve
    async with open_services(config) as services:
        choice = services.search_choice
        common.err.print(foreign(f"search: {choice.name} ({choice.reason})", "dim"))
        waiting: AbstractContextManager[object] = common.err.status(
            foreign(f"Searching {choice.name}…")
        )
        if choice.name == "local" and config.docs and not common.err.is_terminal:
            from research_studio.faces.cli.documents import indexing

            # Piped, the spinner shows nothing while the folders are indexed (embedded, with
            # hybrid search: seconds per MB): the lines a piped run shows for it.
            waiting = indexing([Path(path) for path in config.docs])
        with waiting:
            return choice.name, await services.search.search(query, limit)


@common.setting_options("cli.search")
def search(
    query: Annotated[str, typer.Argument(help="What to search for.")],
    max_results: Annotated[int, typer.Option("--max-results", "-n", min=1, max=50)] = 5,
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Search the web (or local documents) and list the results."""
    from research_studio.run.launch import check_docs

    with common.user_errors():
        if not query.strip():
            raise typer.BadParameter("the query is empty", param_hint="QUERY")
        if not is_utf8(query):  # no search provider can be sent undecodable bytes
            raise ResearchStudioError("the query holds bytes that are not valid UTF-8")
        check_docs([Path(path) for path in overrides["docs"] or []])
        loaded = common.settings(config_file, overrides)
    provider, results = common.run_async(_search(loaded.config, query, max_results))
    if as_json:
        common.print_json([result.model_dump() for result in results])
        return
    if not results:
        common.err.print(foreign(f"No results from {provider} for {query!r}."))
        return
    from rich.table import Table

    table = Table(show_lines=False, title=f"{len(results)} results from {provider}")
    table.add_column("#", justify="right")
    table.add_column("Title / URL")
    table.add_column("Snippet")
    for rank, result in enumerate(results, 1):
        table.add_row(
            str(rank),
            foreign(result.title, "bold").append("\n").append_text(foreign(result.url, "cyan")),
            foreign(" ".join(result.snippet.split())[:200]),  # a chunk's lines, as one text
        )
    common.out.print(table)


async def _fetch(config: Configuration, url: str) -> Page:
    from research_studio.services.clients import open_services

    async with open_services(config) as services:
        with common.err.status(foreign(f"Fetching {url}…")):  # the URL is never read as markup
            return await services.fetcher.fetch(url)


@common.setting_options("cli.fetch")
def fetch(
    url: Annotated[str, typer.Argument(help="An http(s) URL.")],
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Fetch a page and print its main text."""
    with common.user_errors():
        if not is_web_url(url):
            raise FetchError(url, "not an absolute http(s) URL", kind="refused")
        loaded = common.settings(config_file, overrides)
    page = common.run_async(_fetch(loaded.config, url))
    if as_json:
        common.print_json(page.model_dump())
        return
    if page.title:
        common.err.print(
            line(
                foreign(page.title, "bold"), "  ", foreign(f"{page.final_url} ({page.kind})", "dim")
            )
        )
    sys.stdout.write(visible(page.text.rstrip(), newlines=True) + "\n")


def config(
    as_json: common.JsonFlag = False,
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the settings reference as a Markdown table.")
    ] = False,
    config_file: common.ConfigFileOption = None,
) -> None:
    """Show the effective configuration (secrets redacted) and where each value came from."""
    from rich.table import Table

    from research_studio.core.config import SECRET_FIELDS
    from research_studio.core.config_loading import settings_reference

    if markdown:
        from research_studio.run.launch import honoured_by  # the run's stack: only for the table

        sys.stdout.write(settings_reference(honoured_by()) + "\n")
        return
    with common.user_errors():
        loaded = common.settings(config_file)
    values = loaded.config.redacted()
    if as_json:
        common.print_json(values)
        return
    table = Table(title="Effective configuration")
    table.add_column("Setting")
    table.add_column("Value")
    table.add_column("From", style="dim")
    for name, value in values.items():
        shown = (
            "****"
            if name in SECRET_FIELDS and value
            else repr(value)
            if value in ("", None)
            else str(value)
        )
        table.add_row(name, shown, loaded.origins.get(name, "default"))
    common.out.print(table)

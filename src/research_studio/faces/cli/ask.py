"""`research-studio ask`: a follow-up question on a finished run, answered with citations."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from research_studio.core.config import load_configuration
from research_studio.core.urls import is_masked_url
from research_studio.faces.cli.common import (
    ConfigFileOption,
    JsonFlag,
    ModelOption,
    PrivateOption,
    SearchOption,
    SearxngOption,
    TavilyUrlOption,
    err,
    out,
    print_json,
    run_async,
    user_errors,
)
from research_studio.faces.cli.terminal import foreign, line
from research_studio.run.followup import FOLLOWUPS_DIR, answer_followup
from research_studio.run.runs import check_query, find_run
from research_studio.services.resolution import resolve


def ask(
    run_id: Annotated[
        str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
    ],
    question: Annotated[str, typer.Argument(help="The follow-up question.")],
    model: ModelOption = None,
    language: Annotated[
        str | None, typer.Option("--language", help="Answer language; default: the question's.")
    ] = None,
    search_provider: SearchOption = None,
    searxng_url: SearxngOption = None,
    tavily_base_url: TavilyUrlOption = None,
    allow_private_networks: PrivateOption = None,
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
) -> None:
    """Answer a follow-up from the run's sources (researching only what they do not cover)."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
        folder = find_run(runs_dir, run_id)
        # The run's own settings (masked URLs left to the environment), then this command's.
        saved = {k: v for k, v in folder.record.settings.items() if not is_masked_url(str(v))}
        overrides: dict[str, Any] = {
            "model": model,
            "language": language,
            "search": search_provider,
            "searxng_url": searxng_url,
            "tavily_base_url": tavily_base_url,
            "allow_private_networks": allow_private_networks,
        }
        saved.update({k: v for k, v in overrides.items() if v is not None})
        loaded = load_configuration(saved, config_file=config_file).config
        text = check_query(question, max_chars=loaded.max_query_chars)
        config, _, _ = resolve(loaded)
    with user_errors():
        followup = run_async(
            answer_followup(
                folder, config, text, lambda message: err.print(foreign(message, "dim"))
            )
        )
    path = folder.path / FOLLOWUPS_DIR / f"F{followup.number}.md"
    if as_json:
        print_json(
            {
                "run_id": folder.record.run_id,
                "followup": followup.number,
                "researched": followup.researched,
                "answer": str(path),
            }
        )
        return
    out.print(foreign(followup.answer, newlines=True), highlight=False)
    out.print(line("Answer: ", foreign(path, "bold")))

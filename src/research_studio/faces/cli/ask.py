"""`research-studio ask`: a follow-up question on a finished run, answered with citations."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from research_studio.core.config import load_configuration
from research_studio.core.urls import is_masked_url
from research_studio.faces.cli.common import (
    SEARCH_SETTINGS,
    ConfigFileOption,
    JsonFlag,
    err,
    out,
    print_json,
    run_async,
    setting_options,
    user_errors,
)
from research_studio.faces.cli.terminal import foreign, line
from research_studio.run.followup import FOLLOWUPS_DIR, answer_followup
from research_studio.run.runs import check_query, find_run
from research_studio.services.resolution import resolve


@setting_options("model", "language", *SEARCH_SETTINGS)
def ask(
    run_id: Annotated[
        str, typer.Argument(help="Run id (in the runs folder) or a run folder path.")
    ],
    question: Annotated[str, typer.Argument(help="The follow-up question.")],
    as_json: JsonFlag = False,
    config_file: ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Answer a follow-up from the run's sources (researching only what they do not cover)."""
    with user_errors():
        runs_dir = load_configuration(config_file=config_file).config.runs_dir
        folder = find_run(runs_dir, run_id)
        # The run's own settings (masked URLs left to the environment), then this command's.
        saved = {k: v for k, v in folder.record.settings.items() if not is_masked_url(str(v))}
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

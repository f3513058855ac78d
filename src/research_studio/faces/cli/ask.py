"""`research-studio ask`: a follow-up question on a finished run, answered with citations."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from research_studio.core.urls import is_masked_url
from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line


@common.setting_options("cli.ask")
def ask(
    run_id: common.RunIdArgument,
    question: Annotated[str, typer.Argument(help="The follow-up question.")],
    as_json: common.JsonFlag = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Answer a follow-up from the run's sources (researching only what they do not cover)."""
    from research_studio.run.followup import FOLLOWUPS_DIR, answer_followup
    from research_studio.run.runs import check_query
    from research_studio.services.resolution import check_endpoint, resolve

    folder = common.open_run(run_id, config_file)
    with common.user_errors():
        # The run's own settings (masked URLs left to the environment), then this command's.
        saved = {k: v for k, v in folder.record.settings.items() if not is_masked_url(str(v))}
        saved.update({k: v for k, v in overrides.items() if v is not None})
        loaded = common.settings(config_file, saved).config
        text = check_query(question, max_chars=loaded.max_query_chars)
        config, _, _ = resolve(loaded)
        # A model server that is down would leave only the passages, said to want a stronger
        # model: refused as `run` refuses it.
        for spec in dict.fromkeys(spec for spec in (config.model, config.fast_model) if spec):
            check_endpoint(spec, config)
    with common.user_errors():
        followup = common.run_async(
            answer_followup(
                folder, config, text, lambda message: common.err.print(foreign(message, "dim"))
            )
        )
    path = folder.path / FOLLOWUPS_DIR / f"F{followup.number}.md"
    if as_json:
        common.print_json(
            {
                "run_id": folder.record.run_id,
                "followup": followup.number,
                "researched": followup.researched,
                "answer": str(path),
            }
        )
        return
    common.out.print(foreign(followup.answer, newlines=True), highlight=False)
    common.out.print(line("Answer: ", foreign(path, "bold")))

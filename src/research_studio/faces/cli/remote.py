"""`research-studio remote`: research on a LangGraph server instead of in this process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from research_studio.faces.cli import common
from research_studio.faces.cli.research import PipelineOption
from research_studio.faces.cli.terminal import foreign, line

if TYPE_CHECKING:
    from research_studio.faces.remote import RemoteAsk


def _asker(answer: str | None) -> RemoteAsk:
    async def ask(question: str, options: list[str]) -> str:
        if answer is not None:
            return answer
        if not sys.stdin.isatty():
            common.err.print(
                foreign(f"The server asks: {question}; continuing without (no terminal).", "yellow")
            )
            return ""

        import asyncio

        return await asyncio.to_thread(common.prompt_choice, question, options)

    return ask


@common.setting_options("cli.remote")
def remote(
    query: Annotated[str, typer.Argument(help="The research question.")],
    server: Annotated[
        str,
        typer.Option("--server", envvar="RESEARCH_STUDIO_SERVER", help="LangGraph server URL."),
    ],
    pipeline: Annotated[str, PipelineOption("Pipeline to run:")] = "standard",
    answer: common.AnswerOption = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the report here (default: print it).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
    *,
    overrides: dict[str, Any],
) -> None:
    """Research on a LangGraph server (its models, keys and search come from the server)."""
    from research_studio.faces.remote import research_remote
    from research_studio.run.launch import check_pipeline  # the run's stack: not for --help
    from research_studio.run.runs import check_query

    with common.user_errors():
        # The same checks as a local run, as far as they apply: values, question, pipeline.
        limit = common.settings(None, overrides).config.max_query_chars
        question = check_query(query, max_chars=limit)
        check_pipeline(pipeline, "multi", overrides)
    context = {name: value for name, value in overrides.items() if value is not None}
    result = common.run_async(
        research_remote(
            server.rstrip("/"),
            question,
            pipeline=pipeline,
            context=context,
            ask=_asker(answer),
            on_node=lambda node: common.err.print(
                foreign(f"{node} finished", "dim"), highlight=False
            ),
        )
    )
    if as_json:
        common.print_json(
            {"thread_id": result.thread_id, "report": result.report, "sources": result.sources}
        )
        return
    if out_file is not None:
        from research_studio.core.files import write_atomically

        write_atomically(out_file, result.report)
        common.err.print(
            line(
                "Report: ",
                foreign(out_file, "bold"),
                foreign(f" (thread {result.thread_id} on {server})"),
            )
        )
        return
    common.out.print(foreign(result.report, newlines=True), highlight=False)
    common.err.print(foreign(f"thread {result.thread_id} on {server}", "dim"), highlight=False)

"""`research-studio remote`: research on a LangGraph server instead of in this process."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from research_studio.core.config import load_configuration
from research_studio.faces.cli.common import (
    AnswerOption,
    FormatOption,
    IterationsOption,
    err,
    out,
    print_json,
    prompt_choice,
    run_async,
    user_errors,
)
from research_studio.faces.cli.research import PipelineOption
from research_studio.faces.remote import RemoteAsk, research_remote
from research_studio.run.runs import check_query, write_atomically


def _asker(answer: str | None) -> RemoteAsk:
    async def ask(question: str, options: list[str]) -> str:
        if answer is not None:
            return answer
        if not sys.stdin.isatty():
            err.print(f"[yellow]The server asks: {question}; continuing without (no terminal).[/]")
            return ""

        return await asyncio.to_thread(prompt_choice, question, options)

    return ask


def remote(
    query: Annotated[str, typer.Argument(help="The research question.")],
    server: Annotated[
        str,
        typer.Option("--server", envvar="RESEARCH_STUDIO_SERVER", help="LangGraph server URL."),
    ],
    pipeline: Annotated[str, PipelineOption("Pipeline to run:")] = "standard",
    answer: AnswerOption = None,
    iterations: IterationsOption = None,
    report_format: FormatOption = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write the report here (default: print it).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")] = False,
) -> None:
    """Research on a LangGraph server (its models, keys and search come from the server)."""
    with user_errors():
        limit = load_configuration().config.max_query_chars
        question = check_query(query, max_chars=limit)
    context: dict[str, Any] = {
        name: value
        for name, value in (("max_iterations", iterations), ("report_structure", report_format))
        if value is not None
    }
    result = run_async(
        research_remote(
            server.rstrip("/"),
            question,
            pipeline=pipeline,
            context=context,
            ask=_asker(answer),
            on_node=lambda node: err.print(f"[dim]{node} finished[/]", highlight=False),
        )
    )
    if as_json:
        print_json(
            {"thread_id": result.thread_id, "report": result.report, "sources": result.sources}
        )
        return
    if out_file is not None:
        write_atomically(out_file, result.report)
        err.print(f"Report: [bold]{out_file}[/] (thread {result.thread_id} on {server})")
        return
    out.print(result.report, markup=False, highlight=False)
    err.print(f"[dim]thread {result.thread_id} on {server}[/]", highlight=False)

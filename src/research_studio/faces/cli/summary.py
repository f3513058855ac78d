"""What the terminal shows of finished runs: the closing summary, every figure, the run list."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from research_studio.core.errors import ResearchStudioError
from research_studio.faces.cli.progress import elapsed_text
from research_studio.faces.cli.terminal import foreign, line
from research_studio.run.audit import audit_run
from research_studio.run.runs import RunFolder, RunRecord

METRICS = (
    "iterations",
    "coverage",
    "confidence",
    "sources_count",
    "evidence_count",
    "verified_quotes",
    "cited_sources",
    "searches",
    "fetches",
    "llm_calls",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "stop_reason",
    "elapsed_s",
    "attempts",
    "llm_calls_all_attempts",
)


def metrics_table(folder: RunFolder, metadata: dict[str, Any]) -> Table:
    """Every figure of the run (--verbose)."""
    table = Table(title=f"Run {folder.record.run_id}", show_header=False)
    for name in METRICS:
        table.add_row(name, foreign(metadata.get(name, "")))
    table.add_row("errors", str(len(metadata.get("errors", []))))
    for name, value in (metadata.get("grounding") or {}).items():
        table.add_row(name.replace("_", " "), foreign(value))
    for name, spend in (metadata.get("budgets") or {}).items():
        if spend["limit"] is not None:
            table.add_row(f"budget {name}", f"{spend['spent']} of {spend['limit']}")
    return table


def _audit_line(folder: RunFolder) -> Text:
    try:
        report = audit_run(folder.path)
    except (ResearchStudioError, OSError, ValueError) as exc:
        return line(("could not run: ", "red"), foreign(exc))
    summary = report.summary().removeprefix("audit ")
    return line((summary, "green" if report.ok else "bold red"))


def _answer_line(grounding: dict[str, Any]) -> Text:
    answered = grounding.get("question_answered")
    if answered is False:
        return line(
            ("the sources read do not answer the question (see the report's note)", "yellow")
        )
    if answered:
        return line("the cited sources address the question")
    return line(("not assessed", "dim"))


def closing_summary(folder: RunFolder, metadata: dict[str, Any], *, seconds: float) -> Group:
    """What a reader wants after a run: the report first, then sources, citations, audit, cost, time.

    `seconds` is the command's time, on the clock the live display showed (the run's own
    `elapsed_s` leaves out the set-up before it). One line per row, never wrapped by us: the
    report path and the run id stay whole to copy.
    """
    grounding = metadata.get("grounding") or {}
    statements = grounding.get("factual_statements", 0)
    cited = grounding.get("cited_statements", 0)
    verbatim = grounding.get("verbatim_passages", 0)
    tokens = metadata.get("prompt_tokens", 0) + metadata.get("completion_tokens", 0)
    iterations = metadata.get("iterations", 0)
    errors = len(metadata.get("errors", []))
    stop = str(metadata.get("stop_reason") or "").replace("_", " ")
    run_note = line(folder.record.run_id)
    if errors:
        run_note.append_text(line((f"  {errors} error(s) recorded in events.jsonl", "yellow")))
    rows: list[tuple[str, Text | str]] = [
        ("Report", foreign(folder.path.resolve() / "report.md", "bold")),
        (
            "Sources",
            f"{metadata.get('cited_sources', 0)} cited of {metadata.get('sources_count', 0)} found",
        ),
        (
            "Citations",
            f"{cited} of {statements} factual statements cited"
            + (f", {verbatim} verbatim passage{'s' if verbatim != 1 else ''}" if verbatim else ""),
        ),
        ("Audit", _audit_line(folder)),
        # "Citations hold" and "the question is answered" are different claims: said apart.
        ("Answer", _answer_line(grounding)),
        (
            "Cost",
            f"${metadata.get('cost_usd') or 0:.4f} · {metadata.get('llm_calls', 0)} model calls "
            f"· {tokens:,} tokens",
        ),
        (
            "Time",
            f"{elapsed_text(seconds)} · {iterations} "
            f"iteration{'s' if iterations != 1 else ''}" + (f" · stopped: {stop}" if stop else ""),
        ),
        ("Run", run_note),
    ]
    return Group(*(line((f"{label:<10}", "bold"), value) for label, value in rows))


_STATUS_STYLE = {
    "completed": "green",
    "failed": "red",
    "interrupted": "yellow",
    "cancelled": "dim",
    "running": "cyan",
}


def run_lines(record: RunRecord) -> Text:
    """A run in two lines: the whole id (never cut), status, pipeline and time; its question."""
    created = record.created.replace("T", " ")[:16]
    return (
        line(
            (record.run_id, "bold"),
            "  ",
            foreign(record.status, _STATUS_STYLE.get(record.status, "yellow")),
            "  ",
            foreign(f"{record.pipeline}/{record.mode}"),
            "  ",
            (created, "dim"),
        )
        .append("\n  ")
        .append_text(foreign(record.query))
    )

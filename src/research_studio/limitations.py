"""What a run lost, said in its report: failed searches and pages, dropped material, early stops."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from research_studio.languages import heading
from research_studio.records import ErrorRecord

MAX_LISTED = 5


@dataclass
class Losses:
    """Everything a report should admit to."""

    errors: Sequence[ErrorRecord] = ()
    sources_dropped: int = 0
    statements_dropped: int = 0
    numbers_unsupported: int = 0
    instructions_dropped: int = 0
    outside_time_range: int = 0
    stop_reason: str = ""
    attempts: int = 1


def _is_page(error: ErrorRecord) -> bool:
    return error["target"].startswith(("http://", "https://", "file://"))


def _is_search(error: ErrorRecord) -> bool:
    return not _is_page(error) and " search for " in error["message"]


def _listed(errors: Sequence[ErrorRecord]) -> str:
    lines = [
        f"  - {error['target'] or error['node']}: {error['kind']}" for error in errors[:MAX_LISTED]
    ]
    if len(errors) > MAX_LISTED:
        lines.append(f"  - … and {len(errors) - MAX_LISTED} more (see result.json)")
    return "\n".join(lines)


def limitation_lines(losses: Losses) -> list[str]:
    """One bullet per kind of loss (empty when the run lost nothing)."""
    pages = [error for error in losses.errors if _is_page(error)]
    searches = [error for error in losses.errors if _is_search(error)]
    others = [error for error in losses.errors if error not in pages and error not in searches]
    lines = []
    if searches:
        lines.append(f"- {len(searches)} search(es) failed:\n{_listed(searches)}")
    if pages:
        lines.append(f"- {len(pages)} page(s) could not be read:\n{_listed(pages)}")
    if others:
        nodes = sorted({error["node"] for error in others})
        lines.append(f"- {len(others)} model or processing step(s) failed (in {', '.join(nodes)}).")
    if losses.sources_dropped:
        lines.append(f"- {losses.sources_dropped} source(s) were dropped for low credibility.")
    if losses.statements_dropped:
        lines.append(
            f"- {losses.statements_dropped} statement(s) of the draft were removed: no verified "
            "quote supports them."
        )
    if losses.numbers_unsupported:
        lines.append(
            f"- {losses.numbers_unsupported} statement(s) were removed because a figure in them "
            "is not in their sources."
        )
    if losses.instructions_dropped:
        lines.append(
            f"- {losses.instructions_dropped} passage(s) or statement(s) were removed because "
            "they carried instructions or addresses from page text."
        )
    if losses.outside_time_range:
        lines.append(
            f"- {losses.outside_time_range} search result(s) dated outside the time range were "
            "left out."
        )
    if losses.stop_reason.startswith(("budget", "deadline")):
        lines.append(
            f"- Research stopped early ({losses.stop_reason}); the report uses what was found."
        )
    if losses.attempts > 1:
        lines.append(f"- The run was interrupted and resumed ({losses.attempts} attempts).")
    return lines


def limitations_section(losses: Losses, language: str = "en") -> str | None:
    """A '## Limitations of this run' section (heading in `language`), or None when nothing was lost."""
    lines = limitation_lines(losses)
    if not lines:
        return None
    return f"## {heading('Limitations of this run', language)}\n\n" + "\n".join(lines)

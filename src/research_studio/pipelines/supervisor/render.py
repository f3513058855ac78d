"""The supervisor report's own part: the immutable Verified Findings section, and its enforcement."""

from __future__ import annotations

import re
from collections.abc import Sequence

from research_studio.core.config import ReportStructure
from research_studio.core.records import StatementRecord
from research_studio.grounding.printed import GroundedSection, render_body
from research_studio.grounding.statements import GroundedReport, passage
from research_studio.pipelines.supervisor.prompts import (
    VERIFIED_DISABLED,
    VERIFIED_HEADING,
    VERIFIED_INTRO,
)

ABOUT_HEADING = "About this report"
_SECTION = re.compile(rf"^## {VERIFIED_HEADING}[ \t]*\n.*?(?=^## |\Z)", re.MULTILINE | re.DOTALL)
# Where the section sits: after the summary and any note, before the writer's sections.
_FIRST_SECTION = re.compile(rf"^## (?!Summary$|{ABOUT_HEADING}$)", re.MULTILINE)


def verified_records(quotes: Sequence[tuple[str, str]]) -> list[StatementRecord]:
    """(sid, passage) pairs as verbatim passage statements of the section."""
    return [passage(VERIFIED_HEADING, sid, quote) for sid, quote in quotes]


def verified_section(records: list[StatementRecord], disabled_reason: str = "") -> GroundedSection:
    """The section: its verified passages, or a plain note of why it is disabled."""
    if disabled_reason:
        return GroundedSection(
            heading=VERIFIED_HEADING, intro=VERIFIED_DISABLED.format(reason=disabled_reason)
        )
    return GroundedSection(heading=VERIFIED_HEADING, intro=VERIFIED_INTRO, bullets=list(records))


def section_text(section: GroundedSection, structure: ReportStructure) -> str:
    """The section exactly as the report renders it."""
    body = render_body("-", [], [section], [], structure)
    return body.split("\n\n", 1)[1]


def is_verified_heading(heading: str) -> bool:
    return " ".join(heading.strip("#:* ").lower().split()) == VERIFIED_HEADING.lower()


def place_verified_section(report: GroundedReport, section: GroundedSection) -> bool:
    """Put the code's section first (after any note); True when the writer had written one."""
    written = [s for s in report.sections if is_verified_heading(s.heading) and s is not section]
    report.sections = [s for s in report.sections if not is_verified_heading(s.heading)]
    index = 1 if report.sections and report.sections[0].heading == ABOUT_HEADING else 0
    report.sections.insert(index, section)
    return bool(written)


def enforce_verified_section(markdown: str, block: str) -> tuple[str, bool]:
    """The report with the block exactly as code made it; True when it had to be restored."""
    sections = list(_SECTION.finditer(markdown))
    if len(sections) == 1 and sections[0].group(0).strip() == block.strip():
        return markdown, False
    for match in reversed(sections):  # changed or repeated copies go; the block comes back once
        markdown = markdown[: match.start()] + markdown[match.end() :]
    first = _FIRST_SECTION.search(markdown)
    at = first.start() if first else len(markdown)
    head, tail = markdown[:at].rstrip(), markdown[at:]
    restored = f"{head}\n\n{block.strip()}\n\n{tail}" if tail else f"{head}\n\n{block.strip()}\n"
    return restored, True

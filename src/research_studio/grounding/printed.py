"""The printed report: checked statements rendered in a structure, and read back from it.

`render_body` prints what grounding kept; `printed_records` names the statements it printed;
`statement_finder` and `cited_segments` find them again in a report body (audit, exports).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from research_studio.core.config import ReportStructure
from research_studio.core.languages import heading as localized
from research_studio.core.records import SourceRecord, StatementRecord
from research_studio.grounding.quotes import (
    escape_markdown,
    normalize_for_match,
    render_sources_section,
    unescape_markdown,
)

CONCISE_PARAGRAPHS = 2
_END = re.compile(r"[.!?]+$")
_CITED_SEGMENT = re.compile(r"((?:[^\[\n]|\[(?!S\d))*?)\s*((?:\[S\d+\])+)")
_SID = re.compile(r"S\d+")
_LEAD = re.compile(r"^[\s.!?,;:)\]*_>\-–•✓⚠#]+")


@dataclass
class GroundedSection:
    """A section of checked statements: paragraphs (prose or bullets) and code-listed bullets."""

    heading: str
    paragraphs: list[list[StatementRecord]] = field(default_factory=list)
    bullets: list[StatementRecord] = field(default_factory=list)
    intro: str = ""
    notes: list[str] = field(default_factory=list)  # code-written Markdown after the section

    def records(self) -> list[StatementRecord]:
        return [record for paragraph in self.paragraphs for record in paragraph] + self.bullets


def rendered(record: StatementRecord, *, with_indicator: bool = False) -> str:
    """The statement as printed: its text, then its citations before the final punctuation."""
    text = escape_markdown(record["text"])
    if not record["sids"]:
        return text
    end = _END.search(text)
    body, stop = (text[: end.start()], end.group(0)) if end else (text, ".")
    markers = "".join(f"[{sid}]" for sid in record["sids"])
    lead = f"{record['indicator']} " if with_indicator and record["indicator"] else ""
    return f"{lead}{body.rstrip()} {markers}{stop}"


def render_body(
    title: str,
    summary: Sequence[StatementRecord],
    sections: Sequence[GroundedSection],
    conclusion: Sequence[StatementRecord],
    structure: ReportStructure,
    *,
    summary_heading: str = "Summary",
    language: str = "en",
) -> str:
    """Markdown in the requested structure: prose paragraphs, fewer paragraphs, or bullets.

    Headings code names (Summary, Conclusion, About this report …) are rendered in `language`.
    """
    parts = [f"# {escape_markdown(title)}"]
    if summary:
        text = " ".join(rendered(record) for record in summary)
        summary_heading = localized(summary_heading, language)
        parts.append(
            f"**{summary_heading}:** {text}"
            if structure == "bullet_points"
            else f"## {summary_heading}\n\n{text}"
        )
    for section in sections:
        paragraphs = section.paragraphs
        if structure == "concise":
            paragraphs = paragraphs[:CONCISE_PARAGRAPHS]
        if structure == "bullet_points":
            blocks = [
                "\n".join(
                    f"- {' '.join(rendered(record) for record in paragraph)}"
                    for paragraph in paragraphs
                )
            ]
        else:
            blocks = [
                " ".join(rendered(record) for record in paragraph) for paragraph in paragraphs
            ]
        if section.bullets:
            blocks.append(
                "\n".join(
                    f"- {rendered(record, with_indicator=True)}" for record in section.bullets
                )
            )
        blocks = [block for block in blocks if block.strip()]
        if blocks:  # notes speak of the section's statements: never without them
            blocks += section.notes
        if blocks or section.intro:
            intro = [section.intro] if section.intro else []
            name = escape_markdown(localized(section.heading, language))
            parts.append(f"## {name}\n\n" + "\n\n".join([*intro, *blocks]))
    if conclusion:
        text = " ".join(rendered(record) for record in conclusion)
        parts.append(
            f"**{localized('Bottom line', language)}:** {text}"
            if structure == "bullet_points"
            else f"## {localized('Conclusion', language)}\n\n{text}"
        )
    return "\n\n".join(parts)


def printed_records(
    summary: Sequence[StatementRecord],
    sections: Sequence[GroundedSection],
    conclusion: Sequence[StatementRecord],
    structure: ReportStructure,
) -> list[StatementRecord]:
    """The statements `render_body` prints, in order (concise drops later paragraphs)."""
    records = list(summary)
    for section in sections:
        paragraphs = (
            section.paragraphs[:CONCISE_PARAGRAPHS]
            if structure == "concise"
            else section.paragraphs
        )
        records += [record for paragraph in paragraphs for record in paragraph] + section.bullets
    return records + list(conclusion)


def cited_sources(records: Iterable[StatementRecord]) -> list[str]:
    """Source ids in order of first citation."""
    return list(dict.fromkeys(sid for record in records for sid in record["sids"]))


def with_sources(
    body: str,
    records: Sequence[StatementRecord],
    sources: Sequence[SourceRecord],
    language: str = "en",
) -> str:
    """The body followed by a Sources section listing exactly the cited sources."""
    cited = cited_sources(records)
    if not cited:
        return body.rstrip() + "\n"
    index = {source["sid"]: (source["title"], source["url"]) for source in sources}
    section = render_sources_section(cited, index, heading=localized("Sources", language))
    return f"{body.rstrip()}\n\n{section}\n"


def cited_segments(body: str) -> list[tuple[str, list[str]]]:
    """Each citation group of a report body with the text it ends: (text, source ids)."""
    segments = []
    for line in body.splitlines():
        for match in _CITED_SEGMENT.finditer(line):
            text = _LEAD.sub("", match.group(1)).strip()
            segments.append((text, _SID.findall(match.group(2))))
    return segments


def statement_key(text: str) -> str:
    """How a statement's words compare between its record and the printed report."""
    return _END.sub("", normalize_for_match(_LEAD.sub("", unescape_markdown(text))).lower()).strip()


def statement_finder(
    records: Sequence[Mapping[str, Any]],
) -> Callable[[str], tuple[int, Mapping[str, Any]] | None]:
    """Finds the cited record (index, record) a printed segment of the report ends with."""
    keyed = sorted(
        (
            (statement_key(record["text"]), index, record)
            for index, record in enumerate(records)
            if record.get("sids")
        ),
        key=lambda entry: -len(entry[0]),
    )

    def find(text: str) -> tuple[int, Mapping[str, Any]] | None:
        key = statement_key(text)
        if not key:
            return None
        return next(
            ((index, record) for found, index, record in keyed if found and key.endswith(found)),
            None,
        )

    return find

"""The printed report: statements rendered in a structure, and found again in the printed text."""

from __future__ import annotations

import pytest

from research_studio.core.config import ReportStructure
from research_studio.core.records import QuoteRef, StatementRecord
from research_studio.grounding.printed import (
    GroundedSection,
    cited_segments,
    printed_records,
    render_body,
    statement_finder,
    statement_key,
)


def _record(text: str, sid: str) -> StatementRecord:
    return StatementRecord(
        section="Findings",
        text=text,
        ids=["E1"],
        sids=[sid],
        quotes=[QuoteRef(sid=sid, quote=text)],
        indicator="",
        kind="statement",
    )


def test_segments_pair_printed_text_with_its_citations() -> None:
    body = "Intro. Trees shade streets [S5]. Roofs cool [S2][S5].\n- ✓✓ Claim text [S1]."
    segments = cited_segments(body)
    assert [sids for _, sids in segments] == [["S5"], ["S2", "S5"], ["S1"]]
    assert statement_key(segments[1][0]) == statement_key("Roofs cool.")
    assert statement_key(segments[2][0]) == "claim text"


@pytest.mark.parametrize("structure", ["comprehensive", "concise", "bullet_points"])
def test_the_printed_records_are_the_statements_the_body_prints(
    structure: ReportStructure,
) -> None:
    paragraphs = [[_record(f"Finding number {n} holds", f"S{n}")] for n in range(1, 5)]
    summary = [_record("Cities can cool", "S9")]
    sections = [GroundedSection(heading="Heat", paragraphs=paragraphs)]
    body = render_body("Q", summary, sections, [], structure)
    printed = printed_records(summary, sections, [], structure)
    find = statement_finder(printed)
    found = [find(text) for text, _ in cited_segments(body)]
    assert [index for index, _ in filter(None, found)] == list(range(len(printed)))
    assert len(printed) == (3 if structure == "concise" else 5)  # concise keeps 2 paragraphs

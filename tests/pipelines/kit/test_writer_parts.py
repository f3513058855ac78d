"""How the evidence is shared among writers working at once, and how their drafts join."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from research_studio.core.records import EvidenceRecord
from research_studio.grounding.statements import DraftSection, Paragraph, ReportDraft, Statement
from research_studio.pipelines.kit.writer import MIN_ITEMS_PER_WRITER, joined_draft, writer_parts


def item(number: int, question: str, text: str) -> EvidenceRecord:
    return EvidenceRecord(  # type: ignore[typeddict-item]
        eid=f"E{number}", sid="S1", question=question, text=text, quote=text, quote_verified=True
    )


items = st.lists(
    st.tuples(st.sampled_from(["Q1", "Q2", "Q3"]), st.text(min_size=1, max_size=80)), max_size=30
).map(
    lambda rows: [
        item(n, question, text)
        for n, (question, text) in enumerate(sorted(rows, key=lambda row: row[0]), 1)
    ]
)


@given(items, st.integers(min_value=1, max_value=5))
def test_every_item_goes_to_one_writer_in_order(evidence: list[EvidenceRecord], parts: int) -> None:
    split = writer_parts(evidence, parts)
    assert [piece for part in split for piece in part] == evidence
    assert 1 <= len(split) <= parts
    if len(split) > 1:
        assert all(len(part) >= MIN_ITEMS_PER_WRITER for part in split)


def test_writers_get_about_equal_lengths_of_text() -> None:
    evidence = [item(n, "Q1", "x" * (400 if n <= 2 else 50)) for n in range(1, 11)]
    first, second = writer_parts(evidence, 2)
    assert len(first) >= MIN_ITEMS_PER_WRITER and len(second) == len(evidence) - len(first)
    assert len(first) < len(second)  # the long items are shared out by length, not by count


def test_less_evidence_fewer_writers() -> None:
    assert len(writer_parts([item(n, "Q1", "fact") for n in range(3)], 2)) == 1


def draft(heading: str, text: str, summary: str) -> ReportDraft:
    statement = Statement(text=text, ids=["E1"])
    return ReportDraft(
        title="T",
        summary=[Statement(text=summary), statement],
        sections=[DraftSection(heading=heading, paragraphs=[Paragraph(statements=[statement])])],
    )


def test_joined_draft_puts_a_heading_once_and_says_a_statement_once() -> None:
    joined = joined_draft(
        [
            draft("Q1", "One.", "Overview."),
            draft(" q1 ", "Two.", "Overview."),
            draft("Q2", "3.", "Overview."),
        ]
    )
    assert [section.heading for section in joined.sections] == ["Q1", "Q2"]
    assert [len(section.paragraphs) for section in joined.sections] == [2, 1]
    assert [statement.text for statement in joined.summary] == ["Overview.", "One.", "Two.", "3."]

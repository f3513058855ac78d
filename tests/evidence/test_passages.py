"""Printed passages are the page's own characters: verified as one span, never altered or glued."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.core.chunking import split_sentences
from research_studio.core.config import Configuration
from research_studio.core.records import EvidenceRecord, SourceRecord
from research_studio.evidence.passages import evidence_passages, passage_report, with_referent
from research_studio.faces.cli import app
from research_studio.grounding.printed import rendered
from research_studio.grounding.quotes import locate_quote, quote_in_text, verbatim_quote
from research_studio.grounding.statements import Statement, Support, Tally, ground_statement
from research_studio.services.extraction import extract_sentences
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

PAGE = """# Operating notes

Keep the chiller room below <30 °C during the nightly batch, the operators wrote in 2024.

The C\\# client and the snake\\_case scheduler both read the same queue without any locking.

Raise `vacuum_cost_limit` to 2000 on busy databases, because autovacuum otherwise falls behind.

About 54 percent of tenants can take the deposit back within 30 days of moving out.

- Cool roofs reflect most of the sunlight that reaches the top of the building.
- Street trees shade the pavement during the hottest hours of the afternoon.
"""
SOURCES = [
    SourceRecord(
        sid="S1", url="https://ops.example/notes", title="Ops", snippet="", provider="t",
        published=None, credibility=0.5,
    )  # type: ignore[typeddict-unknown-key]
]  # fmt: skip


def evidence(quote: str, eid: str = "E1") -> EvidenceRecord:
    found = verbatim_quote(quote, PAGE)
    return EvidenceRecord(
        eid=eid, sid="S1", url=SOURCES[0]["url"], title="Ops", text=quote,
        quote=found or quote, quote_verified=found is not None, question="Q",
    )  # fmt: skip


def printed(quotes: list[str]) -> str:
    items = [evidence(quote, f"E{n}") for n, quote in enumerate(quotes, 1)]
    report = passage_report("Q", evidence_passages(items), "Passages.")
    return report.markdown("comprehensive_report", SOURCES)


def test_passages_print_the_pages_characters_unchanged() -> None:
    report = printed(
        [
            "keep the chiller room below <30 °C during the nightly batch",
            "The C# client and the snake_case scheduler both read the same queue",
            "Raise `vacuum_cost_limit` to 2000 on busy databases",
        ]
    )
    assert "below <30 °C during" in report
    assert "The C# client and the snake_case scheduler" in report
    assert "vacuum_cost_limit" in report and "vacuum\\cost" not in report
    assert "Keep the chiller room" in report  # the page's case, not the model's


def test_a_quote_whose_figure_or_polarity_was_changed_is_not_on_the_page() -> None:
    assert quote_in_text("About 54 percent of tenants can take the deposit back", PAGE)
    assert not quote_in_text("About 45 percent of tenants can take the deposit back", PAGE)
    assert not quote_in_text("About 54 percent of tenants cannot take the deposit back", PAGE)
    assert not quote_in_text("About 54 percent of tenants can not take the deposit back", PAGE)
    assert printed(["About 45 percent of tenants can take the deposit back"]).count("[S1]") == 0


def test_a_statement_that_flips_its_quote_prints_the_quote_instead() -> None:
    quote = verbatim_quote("About 54 percent of tenants can take the deposit back", PAGE)
    assert quote is not None
    support = {"E1": Support(sids=("S1",), quotes=({"sid": "S1", "quote": quote},))}
    tally = Tally()
    for wrong in (
        "About 54 percent of tenants cannot take the deposit back.",
        "About 45 percent of tenants can take the deposit back.",
    ):
        record = ground_statement(
            Statement(text=wrong, ids=["E1"]), support, section="s", tally=Tally()
        )
        assert record is not None and record["kind"] == "passage"
        assert rendered(record) == f"{quote} [S1]."
    kept = ground_statement(
        Statement(text="Roughly 54% of tenants can take back the deposit.", ids=["E1"]),
        support,
        section="s",
        tally=tally,
    )
    assert kept is not None and kept["kind"] == "cited" and kept["check"] == "supported"


def test_list_items_are_never_joined_into_one_quote() -> None:
    joined = "reaches the top of the building. - Street trees shade the pavement during the hottest"
    assert not quote_in_text(joined, PAGE)
    assert not quote_in_text("the top of the building Street trees shade", PAGE)
    findings = extract_sentences(
        Configuration(),
        request="cool roofs street trees sunlight shade",
        questions=["What cools streets?"],
        url="u",
        text=PAGE,
    )
    assert findings and all(
        not ("roofs reflect" in f["quote"] and "trees shade" in f["quote"]) for f in findings
    )
    assert all(f["quote_verified"] for f in findings)


def test_an_ellipsis_splits_a_quote_into_parts_found_in_order() -> None:
    assert verbatim_quote("Keep the chiller room ... during the nightly batch", PAGE) == (
        "Keep the chiller room … during the nightly batch"
    )
    assert not quote_in_text("during the nightly batch ... Keep the chiller room", PAGE)


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@given(st.lists(_WORD, min_size=6, max_size=40), st.data())
def test_every_contiguous_span_of_a_block_is_found_and_printed_as_itself(
    words: list[str], data: st.DataObject
) -> None:
    page = " ".join(words)
    start = data.draw(st.integers(0, len(words) - 3))
    end = data.draw(st.integers(start + 3, len(words)))
    quote = " ".join(words[start:end])
    assert verbatim_quote(quote.upper(), page) == quote


@given(st.lists(_WORD, min_size=6, max_size=40), st.data())
def test_two_list_items_never_match_as_one_quote(words: list[str], data: st.DataObject) -> None:
    cut = data.draw(st.integers(3, len(words) - 3))
    page = f"- {' '.join(words[:cut])}\n- {' '.join(words[cut:])}"
    across = " ".join(words[cut - 2 : cut + 2])
    if across not in " ".join(words[:cut]) and across not in " ".join(words[cut:]):
        assert not quote_in_text(across, page)


@given(st.text(max_size=200), st.text(max_size=400))
def test_matching_never_raises(quote: str, page: str) -> None:
    found = verbatim_quote(quote, page)
    assert found is None or quote_in_text(quote, page)


# --- Passages that open with a pronoun carry the sentence that gives it its referent ----------

TREES_PAGE = """# Street trees and urban canopy cooling

By Jane Doe, staff writer

This fact sheet summarises what cities have learned about street trees and heat.

Street trees are among the cheapest ways to cool a neighbourhood. They cool in two ways: their canopy shades the pavement, and their leaves release water vapour that draws heat from the air.

It was the 2019 canopy survey that first mapped which blocks lacked trees.

- They also slow storm water running off the streets after heavy rain.
"""


def test_a_pronoun_passage_is_led_by_the_sentence_that_names_its_referent() -> None:
    quote = "They cool in two ways: their canopy shades the pavement"
    extended = with_referent(quote, TREES_PAGE)
    assert extended.startswith("Street trees are among the cheapest ways to cool a neighbourhood.")
    assert extended.endswith(quote) and quote_in_text(extended, TREES_PAGE)


def test_no_sentence_is_borrowed_across_a_block_or_for_a_plain_opening() -> None:
    # The first sentence of its paragraph: the previous block (a meta sentence) is never taken.
    alone = "It was the 2019 canopy survey that first mapped which blocks lacked trees."
    assert with_referent(alone, TREES_PAGE) == alone
    # A list item leans on nothing above it: items and paragraphs are separate blocks.
    item = "They also slow storm water running off the streets"
    assert with_referent(item, TREES_PAGE) == item
    plain = "Street trees are among the cheapest ways to cool a neighbourhood."
    assert with_referent(plain, TREES_PAGE) == plain


@pytest.mark.e2e
def test_an_offline_brief_prints_pronoun_passages_whole_and_no_bylines(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "street-trees.md").write_text(TREES_PAGE, encoding="utf-8")
    run = CliRunner().invoke(
        app,
        [
            "run",
            "How do street trees cool a neighbourhood?",
            "--docs",
            str(docs),
            "--model",
            use_scripted_model(ResearchScript().model()),
            "--out",
            str(tmp_path / "brief"),
            "--single-agent",
        ],
        env={"RESEARCH_STUDIO_EXTRACTION": "extractive"},
    )
    assert run.exit_code == 0, run.output
    report = (tmp_path / "brief" / "report.md").read_text(encoding="utf-8")
    body = report.split("## Sources")[0]
    assert "They cool in two ways" in body, body
    for line in body.splitlines():
        if "They cool in two ways" in line:
            assert "cheapest ways to cool a neighbourhood. They cool in two ways" in line
    assert "Jane Doe" not in body and "fact sheet summarises" not in body
    audit = CliRunner().invoke(app, ["audit", str(tmp_path / "brief")])
    assert audit.exit_code == 0, audit.output


# Words without vowels can never be a pronoun, so the quote is found only where it was put.
_PLAIN_WORD = st.text(alphabet="bcdfghklmnpqrstvwxz", min_size=1, max_size=6)
# A sentence ending in an abbreviation ("vs.", "Ltd.") does not end there: none is generated.
_SENTENCE = (
    st.lists(_PLAIN_WORD, min_size=3, max_size=8)
    .map(lambda words: " ".join(words).capitalize() + ".")
    .filter(lambda sentence: len(split_sentences(f"{sentence} Next one.")) == 2)
)
_PRONOUN = st.sampled_from(["They", "It", "This", "These", "Such", "Its"])


@given(st.lists(_SENTENCE, min_size=1, max_size=3), _PRONOUN, _SENTENCE, st.booleans())
def test_an_extended_passage_is_one_contiguous_span_inside_its_block(
    sentences: list[str], pronoun: str, tail: str, joined: bool
) -> None:
    # The pronoun's sentence in the same block as the sentences before it, or in the next one.
    tail = tail[0].lower() + tail[1:]
    blocks = [" ".join(sentences), f"{pronoun} {tail}"]
    page = "\n\n".join([" ".join(blocks)] if joined else blocks)
    quote = f"{pronoun} {tail}"
    extended = with_referent(quote, page)
    spans = locate_quote(extended, page)
    assert spans is not None and len(spans) == 1
    start, end = spans[0]
    assert "\n\n" not in page[start:end]
    assert extended.endswith(quote)
    if joined:
        assert extended == f"{sentences[-1]} {quote}"
    else:
        assert extended == quote

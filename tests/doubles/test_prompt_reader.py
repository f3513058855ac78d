"""The test double reads prompts back through the templates that write them, never by literal text."""

from __future__ import annotations

import pytest

from research_studio.core.prompt_blocks import QUESTIONS_LABEL, numbered
from research_studio.core.records import EvidenceRecord
from research_studio.pipelines.advanced import prompts as advanced
from research_studio.pipelines.kit import writer
from research_studio.pipelines.standard import prompts as standard
from tests.doubles.prompt_reader import ANY, numbered_under, readings
from tests.doubles.research_script import ResearchScript

EVIDENCE = [
    EvidenceRecord(
        eid=f"E{n}",
        sid=f"S{n}",
        url=f"https://example.org/{n}",
        text=f"Fact {n} — with a dash and a (parenthesis).",
        quote=f'Quote {n} says "so".',
        quote_verified=True,
        question="What happened?",
    )
    for n in (1, 2)
]


@pytest.mark.parametrize(
    ("template", "values", "fields"),
    [
        (
            writer.WRITE_EVIDENCE_ITEM,
            {"eid": "E3", "sid": "S1", "text": "A b.", "quote": 'Q "x".'},
            {},
        ),
        (standard.VERIFY_CLAIM, {"number": 2, "claim": "C.", "sid": "S4", "quote": "Q."}, {}),
        (advanced.TRUST_EVIDENCE_ITEM, {"eid": "E1", "sid": "S2", "text": "T.", "quote": "Q."}, {}),
        (
            advanced.TRUST_CLAIM_ITEM,
            {"cid": "C1", "section": "S", "text": "T.", "eids": "E1, E2"},
            {},
        ),
        (
            advanced.WRITER_CLAIM_ITEM,
            {"cid": "C9", "section": "Sec", "sids": "S1", "text": "T."},
            {},
        ),
        (
            advanced.SUBAGENT_PAGE,
            {"number": 3, "title": "Title", "url": "https://x.org", "excerpt": "one\ntwo"},
            {"excerpt": ANY},
        ),
    ],
)
def test_every_line_template_reads_back_what_it_wrote(
    template: str, values: dict[str, object], fields: dict[str, str]
) -> None:
    text = f"before\n{template.format(**values)}\nafter"
    assert readings(template, text, **fields) == [{k: str(v) for k, v in values.items()}]


def test_numbered_lists_are_found_under_their_label() -> None:
    prompt = f"Intro\n\n{QUESTIONS_LABEL}\n{numbered(['Why?', 'How?'])}\n\nMore"
    assert numbered_under(QUESTIONS_LABEL, prompt) == ["Why?", "How?"]
    assert numbered_under(standard.SUGGESTED_SEARCHES_LABEL, prompt) == []


def test_the_writer_double_cites_the_evidence_the_prompt_lists() -> None:
    prompt = writer.WRITE_USER.format(
        request="Research request: x",
        questions=numbered(["What happened?"]),
        context="",
        evidence=writer.evidence_listing(EVIDENCE),
    )
    draft = ResearchScript().respond("ReportDraft", prompt)
    (section,) = draft["sections"]
    assert section["heading"] == "What happened?"
    assert [p["statements"][0]["ids"] for p in section["paragraphs"]] == [["E1"], ["E2"]]
    assert section["paragraphs"][0]["statements"][0]["text"] == EVIDENCE[0]["text"]


def test_the_trust_double_reads_whole_facts_from_the_listing() -> None:
    prompt = advanced.TRUST_CLAIMS_USER.format(
        sections="Background; Outlook", sources="", evidence=advanced.evidence_listing(EVIDENCE)
    )
    claims = ResearchScript().respond("CredibilityAndClaims", prompt)["claims"]
    assert [claim["text"] for claim in claims] == [item["text"] for item in EVIDENCE]
    assert [claim["section"] for claim in claims] == ["Background", "Outlook"]

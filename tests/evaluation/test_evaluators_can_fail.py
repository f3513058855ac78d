"""Case and consistency checks fail on the defects they name, on inputs not derived from what
they check (every evaluator × pipeline, with real runs: test_every_evaluator.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from research_studio.evaluation.behavioral import (
    check_state_consistency,
)
from research_studio.evaluation.cases import EvalCase, case_checks
from research_studio.pipelines.kit.report import AnswerCoverage, coverage_notice
from tests.evaluation.outputs import QUERY, bad, good_document

TERM = "cool roofs"


def mentions(document: Mapping[str, Any], *terms: str) -> bool | None:
    expect = {"must_mention": list(terms or [TERM])}
    case = EvalCase(id="heat", query=QUERY, expect=expect)  # type: ignore[arg-type]
    [check] = [
        c for c in case_checks(case, document, flagged_ambiguous=False) if c.name == "mentions"
    ]
    return check.passed


def test_must_mention_reads_the_body_not_the_title() -> None:
    document = good_document()
    assert mentions(document) is True
    # An off-topic report whose title is the query (which names the term) does not pass.
    off_topic = f"# {QUERY}\n\n## Weather\n\nIt rained in the hills all week.\n"
    assert TERM in off_topic.lower() and mentions(bad(document, report=off_topic)) is False


def test_must_mention_never_reads_the_notice_code_wrote() -> None:
    # The notice an unanswered report opens with, as the pipelines write it: it names the very
    # terms the sources lack, so a report whose findings are off-topic still carries the words.
    notice = coverage_notice(
        AnswerCoverage(
            answered=False, missing_terms=["lfp", "nmc"], questions_asked=[], questions=[]
        )
    )
    assert '"lfp"' in notice
    off_topic = f"# {QUERY}\n\n{notice}\n\n## Weather\n\nIt rained in the hills all week [S1].\n"
    assert mentions(bad(good_document(), report=off_topic), "lfp", "nmc") is False
    # The same notice over findings that do name the terms passes: the findings decide.
    on_topic = off_topic.replace("It rained in the hills", "LFP and NMC cells aged alike")
    assert mentions(bad(good_document(), report=on_topic), "lfp", "nmc") is True


def test_state_consistency_checks_records_against_each_other() -> None:
    assert check_state_consistency(good_document()).passed is True
    orphan = good_document()
    orphan["evidence"][0]["sid"] = "S9"
    assert "E1 from no returned source" in check_state_consistency(orphan).reason
    unknown = good_document()
    unknown["claims"][0]["supporting_eids"] = ["E99"]
    assert check_state_consistency(unknown).passed is False
    cites = good_document()
    cites["report"] = cites["report"].replace("[S2]", "[S7]")
    assert "cites S7" in check_state_consistency(cites).reason

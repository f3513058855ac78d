"""Each structural evaluator catches the defect it names and passes a well-formed output."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from research_studio.evaluation import structural
from research_studio.evaluation.structural import STRUCTURAL_CHECKS, structural_checks
from tests.evaluation.outputs import bad, good_document

Defect = Callable[[dict[str, Any]], dict[str, Any]]


def _report(document: dict[str, Any], report: str) -> dict[str, Any]:
    return bad(document, report=report)


def _metadata(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return bad(document, metadata={**document["metadata"], **changes})


def _without_title(document: dict[str, Any]) -> dict[str, Any]:
    return _report(document, document["report"].replace("# How do", "How do", 1))


def _without_sources_section(document: dict[str, Any]) -> dict[str, Any]:
    return _report(document, document["report"].split("## Sources")[0])


def _uncited(document: dict[str, Any]) -> dict[str, Any]:
    body = document["report"].split("## Sources")[0]
    return _report(document, re.sub(r" \[S\d+\]", "", body))


def _cites_unknown_source(document: dict[str, Any]) -> dict[str, Any]:
    # The citation numbering bug: [S19] cited while the run has two sources.
    return _report(document, document["report"].replace("[S2]", "[S19]", 1))


def _short(document: dict[str, Any]) -> dict[str, Any]:
    return _report(document, "# Title\n\n## Findings\n\nCool roofs reflect sunlight [S1].\n")


def _evidence_missing_fields(document: dict[str, Any]) -> dict[str, Any]:
    evidence = [dict(item) for item in document["evidence"]]
    evidence[2]["url"] = ""
    del evidence[4]["title"]
    evidence[5]["text"] = "   "
    return bad(document, evidence=evidence)


def _source_without_url(document: dict[str, Any]) -> dict[str, Any]:
    sources = [dict(source) for source in document["sources"]]
    sources[1]["url"] = ""
    return bad(document, sources=sources)


DEFECTS: dict[str, tuple[Defect, str]] = {
    "check_report_has_markdown_structure": (_without_title, "title"),
    "check_citations_present": (_uncited, r"no \[S<n>\]"),
    "check_citations_map_to_sources": (_cites_unknown_source, "S19"),
    "check_metadata_complete": (
        lambda d: _metadata(d, sources_count="2", errors=None),
        "sources_count is str",
    ),
    "check_evidence_populated": (lambda d: bad(d, evidence=[]), "empty"),
    "check_scores_in_bounds": (lambda d: _metadata(d, coverage=1.4), "coverage=1.4"),
    "check_report_minimum_length": (_short, "fewer than 200"),
    "check_evidence_fields": (_evidence_missing_fields, "E3 lacks url"),
    "check_sources_have_urls": (_source_without_url, "S2 lacks url"),
    "check_no_empty_report": (lambda d: _report(d, " \n\t "), "empty"),
}


def test_there_are_ten_structural_checks_each_with_a_defect_test() -> None:
    assert [check.__name__ for check in STRUCTURAL_CHECKS] == list(DEFECTS)


@pytest.mark.parametrize("name", list(DEFECTS))
def test_each_check_passes_a_good_output(name: str) -> None:
    result = getattr(structural, name)(good_document())
    assert result.passed is True and result.score == 1.0 and result.reason


@pytest.mark.parametrize("name", list(DEFECTS))
def test_each_check_catches_its_defect(name: str) -> None:
    defect, reason = DEFECTS[name]
    result = getattr(structural, name)(defect(good_document()))
    assert result.passed is False and result.score == 0.0
    assert re.search(reason, result.reason), result.reason


def test_a_missing_sources_section_is_a_structure_defect() -> None:
    result = structural.check_report_has_markdown_structure(
        _without_sources_section(good_document())
    )
    assert result.passed is False and "Sources" in result.reason


def test_scores_outside_bounds_are_found_in_claims_too() -> None:
    document = good_document()
    document["claims"][1]["confidence"] = -0.2
    result = structural.check_scores_in_bounds(document)
    assert result.passed is False and "C2.confidence=-0.2" in result.reason


def test_a_damaged_document_fails_checks_instead_of_raising() -> None:
    checks = structural_checks(
        {"report": None, "sources": "oops", "evidence": [1, 2], "metadata": []}
    )
    passed = {check.name for check in checks if check.passed}
    # Two items of evidence exist (broken ones), and nothing cited can be unknown.
    assert len(checks) == 10 and passed == {"evidence_populated", "citations_map_to_sources"}


def test_the_minimum_length_is_a_case_setting() -> None:
    checks = structural_checks(_short(good_document()), min_words=5)
    length = next(check for check in checks if check.name == "report_minimum_length")
    assert length.passed and length.details["words"] >= 5

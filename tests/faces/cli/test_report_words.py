"""Through the CLI over the example documents: whole words in the report's language, and one
verdict on "answered" in the report, result.json, the closing summary and the audit."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from research_studio.core.words import content_words, match_key, words
from research_studio.faces.cli import app
from tests.helpers import example_docs_run

runner = CliRunner()


def _extractive_run(question: str, out: str) -> tuple[str, dict, str]:
    return example_docs_run(question, out, env={"RESEARCH_STUDIO_EXTRACTION": "extractive"})


def _table(report: str, heading: str) -> list[tuple[str, str]]:
    section = report.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("| ").split(" | ") for line in section.splitlines() if line.startswith("|")]
    return [(row[0], row[1]) for row in rows[2:]]  # past the header and its rule


@pytest.mark.e2e
def test_a_german_question_gets_german_code_written_text_and_whole_words() -> None:
    question = "Wie stark kühlen helle Dächer und Bäume die Städte bei Hitze?"
    report, document, _output = _extractive_run(question, "de")
    # Everything code writes is German: the question table, its labels, the notice.
    assert "## Forschungsfragen\n\n| Frage | Antwort |" in report
    labels = {"durch zitierte Aussagen beantwortet", "von den gelesenen Quellen nicht beantwortet"}
    rows = _table(report, "Forschungsfragen")
    assert rows and {answer for _question, answer in rows} <= labels
    for english in ("Research questions", "not answered by the sources read", "The sources read"):
        assert english not in report
    coverage = document["metadata"]["grounding"]["answer_coverage"]
    if not document["metadata"]["grounding"]["question_answered"]:
        assert "Die gelesenen Quellen beantworten diese Frage nicht" in report
    # No broken words: every missing term is a whole content word of the question, never a
    # one-letter piece, a piece of "Dächer" or a German stop word.
    whole = {match_key(word) for word in words(question)}
    asked = set(content_words(question))
    for term in coverage["missing_terms"]:
        assert match_key(term) in whole and term in asked and len(term) > 1
    for fragment in ('"d"', '"cher"', '"b"', '"ume"', '"und"', '"die"', '"st"', '"dte"'):
        assert fragment not in report


def _answered_rows(report: str) -> tuple[int, int]:
    rows = _table(report, "Research questions")
    return sum(1 for _q, answer in rows if answer == "answered by cited statements"), len(rows)


@pytest.mark.e2e
def test_the_summary_the_audit_and_the_report_give_one_verdict_per_question() -> None:
    # "roofs": the question's one term is everywhere, but most research questions stay open.
    report, document, output = _extractive_run("roofs", "roofs")
    grounding = document["metadata"]["grounding"]
    answered, asked = _answered_rows(report)
    said = f"({answered} of {asked} research questions answered)"
    coverage = grounding["answer_coverage"]
    assert [item["answered"] for item in coverage["questions"]].count(True) == answered
    # The verdict follows the table: most research questions open is no answer.
    assert grounding["question_answered"] is (answered * 2 >= asked and answered > 0)
    verdict = "address the question" if grounding["question_answered"] else "do not answer"
    summary = {line.split(None, 1)[0]: line for line in output.splitlines() if line.strip()}
    assert verdict in summary["Answer"] and said in summary["Answer"]
    assert verdict in summary["Audit"] and said in summary["Audit"]
    audit = json.loads(runner.invoke(app, ["audit", "roofs", "--json"]).stdout)
    assert audit["answered"] is grounding["question_answered"]
    assert len(audit["unanswered"]) == asked - answered
    notice = "The sources read do not answer this question"
    assert (notice in report) is (not grounding["question_answered"])
    assert not re.search(r"cited sources address the question", report)

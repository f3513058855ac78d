"""A question in one language searches documents in theirs; the report stays in the question's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from research_studio.evidence.crosslingual import (
    checked_translation,
    documents_language,
    needs_translation,
)
from research_studio.faces.cli import app
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, ScriptedRequest, use_scripted_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
GERMAN = "Wie kühlen Bäume die Städte?"
# The words a translator would give; the test supplies text, code decides when it is used.
DICTIONARY = {"wie": "how", "kühlen": "cool", "bäume": "trees", "die": "the", "städte": "cities"}


def _translate(request: ScriptedRequest) -> dict[str, Any]:
    query = request.messages[-1].content
    assert isinstance(query, str)
    words = re.findall(r"[^\W\d_]+", query.lower())
    return {"query": " ".join(DICTIONARY.get(word, word) for word in words)}


def _run(question: str, model: ScriptedChatModel, out: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        app,
        [
            "run",
            question,
            "--docs",
            str(EXAMPLES),
            "--single-agent",
            "--model",
            use_scripted_model(model),
            "--out",
            out,
        ],
    )
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads((Path(out) / "result.json").read_text())
    return document


def test_a_query_in_the_documents_language_is_not_translated() -> None:
    assert not needs_translation("street trees cooling", "How do trees cool?", "en", found_any=True)


def test_a_query_in_another_language_is_translated() -> None:
    assert needs_translation("Wie kühlen Bäume die Städte", GERMAN, "en", found_any=True)


def test_a_keyword_query_that_finds_nothing_follows_the_question() -> None:
    assert needs_translation("Bäume Kühlung", GERMAN, "en", found_any=False)
    assert not needs_translation("trees canopy", "How do trees cool?", "en", found_any=False)


@pytest.mark.parametrize(
    ("proposed", "expected"),
    [
        ("how cool trees the cities", "how cool trees the cities"),
        ('"street trees"', "street trees"),
        ("Wie kühlen Bäume", None),  # the query itself: nothing new to search
        ("trees\nSure! Here is the translation", None),  # prose, not a query
        ("", None),
        ("x" * 400, None),
    ],
)
def test_code_checks_the_proposed_translation(proposed: str, expected: str | None) -> None:
    assert checked_translation(proposed, "Wie kühlen Bäume") == expected


async def test_the_documents_language_is_read_from_the_documents(tmp_path: Path) -> None:
    assert await documents_language([EXAMPLES]) == "en"
    german = tmp_path / "de"
    german.mkdir()
    for index in range(3):
        (german / f"{index}.md").write_text(
            "# Hitze\nDie Bäume in der Stadt kühlen die Straßen, und das ist wichtig für die "
            "Gesundheit der Menschen, die dort wohnen.\n",
            encoding="utf-8",
        )
    assert await documents_language([german]) == "de"
    assert await documents_language([]) is None


@pytest.mark.e2e
def test_a_german_question_finds_english_documents_and_is_answered_in_german() -> None:
    model = ResearchScript().model().script("QueryTranslation", _translate)
    result = _run(GERMAN, model, "de-run")
    translations = model.calls_for("QueryTranslation")
    assert translations, "the German queries were never put into the documents' language"
    read = [source["url"] for source in result["sources"]]
    # Only the translated queries name the trees; the German ones never match that document.
    assert any(url.endswith("street-trees-and-urban-canopy-cooling.md") for url in read), read
    assert result["statements"]
    report = (Path("de-run") / "report.md").read_text()
    assert "## Quellen" in report  # the report stays in the question's language
    assert re.search(r"\[S\d+\]", report)


@pytest.mark.e2e
def test_an_english_question_on_english_documents_asks_for_no_translation() -> None:
    model = ResearchScript().model().script("QueryTranslation", _translate)
    result = _run("How do street trees cool cities?", model, "en-run")
    assert not model.calls_for("QueryTranslation")
    assert result["sources"]

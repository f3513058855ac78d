"""The report's language: detection from the question, the setting, translated headings."""

from __future__ import annotations

from typing import Any

import pytest

from research_studio.core.languages import detect_language, heading, report_language, translations
from research_studio.grounding.quotes import strip_sources_section


@pytest.mark.parametrize(
    ("question", "code"),
    [
        ("How do cool roofs and trees reduce urban heat?", "en"),
        ("Wie senken helle Dächer und Bäume die Hitze in Städten?", "de"),
        ("¿Cómo reducen los techos frescos y los árboles el calor urbano?", "es"),
        ("Comment les toits frais et les arbres réduisent-ils la chaleur urbaine ?", "fr"),
        ("Come riducono i tetti freschi e gli alberi il calore urbano?", "it"),
        ("Como os telhados frios e as árvores reduzem o calor urbano?", "pt"),
        ("Hoe verminderen koele daken en bomen de hitte in de stad?", "nl"),
        ("coral bleaching heat stress", "en"),
    ],
)
def test_detects_the_language_of_a_question(question: str, code: str) -> None:
    assert detect_language(question) == code


def test_the_setting_wins_over_the_question() -> None:
    assert report_language("German", "How do cool roofs work?") == "de"
    assert report_language("pt-BR", "How do cool roofs work?") == "pt"
    assert report_language(None, "Wie funktionieren helle Dächer?") == "de"


def test_headings_are_translated_and_fall_back_to_english() -> None:
    assert heading("Sources", "de") == "Quellen"
    assert heading("Research Quality", "fr") == "Qualité de la recherche"
    assert heading("Limitations of this run", "es") == "Limitaciones de esta ejecución"
    assert heading("Sources", "it") == "Fonti"
    assert heading("Sources", "ja") == "Sources"  # no Japanese table: English
    assert heading("A writer's own heading", "de") == "A writer's own heading"


def test_translated_sources_sections_are_found_by_heading() -> None:
    for name in translations("Sources"):
        report = f"# T\n\nBody [S1].\n\n## {name}\n\n- [S1] A — https://a.example\n"
        assert strip_sources_section(report).strip() == "# T\n\nBody [S1]."


def _writer_prompt(model: Any) -> str:
    return model.calls_for("ReportDraft")[-1].prompt


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("question", "name", "sources", "conclusion"),
    [
        (
            "Wie wirkt sich coral bleaching heat stress auf die Riffe aus?",
            "German",
            "Quellen",
            "Fazit",
        ),
        (
            "¿Cómo afecta el coral bleaching heat stress a los arrecifes?",
            "Spanish",
            "Fuentes",
            "Conclusión",
        ),
    ],
)
async def test_standard_report_in_the_question_language(
    run_pipeline: Any, question: str, name: str, sources: str, conclusion: str
) -> None:
    state, model = await run_pipeline(question)
    assert f"in {name}" in _writer_prompt(model)
    report = state["report"]
    assert f"\n## {sources}\n" in report and f"\n## {conclusion}\n" in report
    assert "\n## Sources\n" not in report and "\n## Conclusion\n" not in report


@pytest.mark.e2e
async def test_advanced_report_headings_in_german(run_pipeline: Any) -> None:
    state, model = await run_pipeline(
        "Wie wirkt sich coral bleaching heat stress auf die Riffe aus?", pipeline="advanced"
    )
    assert "in German" in _writer_prompt(model)
    report = state["report"]
    assert "\n## Qualität der Recherche\n" in report and "| Kennzahl | Wert |" in report
    assert "\n## Quellen\n" in report and "## Research Quality" not in report


@pytest.mark.e2e
async def test_language_setting_overrides_the_question(run_pipeline: Any) -> None:
    state, model = await run_pipeline("coral bleaching heat stress", language="es")
    assert "in Spanish" in _writer_prompt(model)
    assert "\n## Fuentes\n" in state["report"]


def test_passage_notes_have_translations_with_the_same_placeholders() -> None:
    import string

    from research_studio.evidence.passage_notes import NOTES, localized_notes
    from research_studio.evidence.passages import PASSAGE_NOTES

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    for code in ("de", "fr", "es"):
        notes = localized_notes(PASSAGE_NOTES, code)
        assert set(notes) == set(PASSAGE_NOTES)
        for reason, text in NOTES[code].items():
            assert fields(text) == fields(PASSAGE_NOTES[reason]), (code, reason)
            assert notes[reason] == text
    assert localized_notes(PASSAGE_NOTES, "ja") == PASSAGE_NOTES


def test_limitation_sentences_have_translations_with_the_same_placeholders() -> None:
    import string

    from research_studio.grounding.limitations import SENTENCES

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    for kind, texts in SENTENCES.items():
        for code in ("de", "fr", "es"):
            assert fields(texts[code]) == fields(texts["en"]), (kind, code)


async def test_a_german_report_says_what_the_run_lost_in_german(
    run_pipeline: Any, web: Any
) -> None:
    from tests.doubles.fake_web import Fault

    web.set_fault(web.page("coral-bleaching-causes").path, Fault("status", status=503))
    state, _ = await run_pipeline("coral bleaching heat stress", language="de")
    limitations = state["report"].split("## Grenzen dieses Laufs", 1)[1].split("## Quellen")[0]
    assert "Seite(n) konnten nicht gelesen werden" in limitations
    assert "could not be read" not in limitations


def test_every_code_written_text_is_in_every_supported_language() -> None:
    import string

    from research_studio.core.languages import HEADINGS, LANGUAGE_NAMES
    from research_studio.evidence.passage_notes import NOTES
    from research_studio.evidence.passages import PASSAGE_NOTES
    from research_studio.grounding.limitations import SENTENCES

    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    supported = set(LANGUAGE_NAMES) - {"en"}
    tables = [(english, table) for english, table in HEADINGS.items()]
    tables += [(table["en"], table) for table in SENTENCES.values()]
    tables += [
        (english, {code: NOTES[code][reason] for code in supported})
        for reason, english in PASSAGE_NOTES.items()
    ]
    for english, table in tables:
        assert supported <= set(table), english
        for code in supported:  # the same placeholders, so .format() fills every language
            assert fields(table[code]) == fields(english), (code, english)

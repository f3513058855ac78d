"""Eval cases: the bundled file, users' own files, pipelines, and the properties a case checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.evaluation.cases import (
    EvalCase,
    Expectations,
    PipelineChoice,
    case_checks,
    case_config,
    load_cases,
    parse_cases,
    parse_pipelines,
    select_cases,
)
from tests.evaluation.outputs import bad, good_document

KINDS = {
    "factual_simple",
    "comparison",
    "ambiguous",
    "current_events",
    "broad_multi_aspect",
    "technical_deep_dive",
    "person_entity",
    "offline_documents",
}


def test_the_bundled_file_has_eight_cases_of_every_kind() -> None:
    cases = load_cases()
    assert len(cases) == 8 and {case.kind for case in cases} == KINDS
    assert all(case.aspects for case in cases)
    ambiguous = next(case for case in cases if case.kind == "ambiguous")
    assert ambiguous.expect.ambiguous is True and ambiguous.answer


def test_the_offline_case_uses_the_bundled_documents_and_the_embedded_model() -> None:
    offline = next(case for case in load_cases() if case.kind == "offline_documents")
    assert offline.settings["model"] == "local:smollm2" and offline.settings["search"] == "local"
    config = case_config(Configuration(max_iterations=5), offline)
    [folder] = config.docs
    assert Path(folder).is_dir() and Path(folder).name == "urban-heat"
    assert config.max_iterations == 2 and config.model == "local:smollm2"


def test_a_users_cases_file_is_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('[[case]]\nid = "solar"\nquery = "How do solar panels work?"\n', "utf-8")
    [case] = load_cases(path)
    assert case.id == "solar" and case.expect.min_words == 200
    problems = {
        "[[case]]\nid = 'a b'\nquery = 'q'\n": "case 1: id",
        "[[case]]\nid = 'a'\nquery = 'q'\nsettings = {temprature = 1}\n": "unknown setting",
        "[[case]]\nid = 'a'\nquery = 'q'\n[[case]]\nid = 'a'\nquery = 'r'\n": "duplicate case id",
        "[[case]]\nid = 'a'\nquery = 'q'\n[case.expect]\nmin_sources = -1\n": "expect.min_sources",
        "id = 'a'\n": "no \\[\\[case\\]\\] entries",
        "[[case]\n": "not valid TOML",
    }
    for text, message in problems.items():
        with pytest.raises(ConfigError, match=message):
            parse_cases(text, "mine.toml")
    with pytest.raises(ConfigError, match="cannot read cases file"):
        load_cases(tmp_path / "missing.toml")


def test_cases_are_chosen_by_id_with_a_one_line_error_for_unknown_ones() -> None:
    cases = load_cases()
    assert [case.id for case in select_cases(cases, ["comparison", "ambiguous"])] == [
        "comparison",
        "ambiguous",
    ]
    with pytest.raises(ConfigError, match="unknown case\\(s\\) nope; known: factual_simple"):
        select_cases(cases, ["nope"])


def test_pipelines_and_modes_are_parsed() -> None:
    assert parse_pipelines("standard, advanced,standard:single") == [
        PipelineChoice("standard"),
        PipelineChoice("advanced"),
        PipelineChoice("standard", "single"),
    ]
    assert PipelineChoice("standard", "single").folder == "standard-single"
    for text in ("nonsense", "standard:both", " , "):
        with pytest.raises(ConfigError):
            parse_pipelines(text)


def test_a_missing_documents_folder_is_a_one_line_error() -> None:
    case = EvalCase(id="docs", query="q", settings={"docs": ["no/such/folder"]})
    with pytest.raises(ConfigError, match="case docs: documents folder no/such/folder not found"):
        case_config(Configuration(), case)


def test_case_checks_report_each_expected_property() -> None:
    case = EvalCase(
        id="c",
        query="q",
        expect=Expectations(
            ambiguous=False,
            min_sources=3,
            min_evidence=2,
            must_mention=["roofs", "glaciers"],
            local_sources_only=True,
        ),
    )
    checks = {c.name: c for c in case_checks(case, good_document(), flagged_ambiguous=True)}
    assert {name: check.passed for name, check in checks.items()} == {
        "expected_ambiguity": False,
        "min_sources": False,
        "min_evidence": True,
        "mentions": False,
        "local_sources_only": False,
    }
    assert checks["mentions"].reason == "missing: glaciers"
    local = bad(good_document(), sources=[{"sid": "S1", "url": "file:///docs/a.md", "title": "A"}])
    [_, _, _, _, only_local] = case_checks(case, local, flagged_ambiguous=False)
    assert only_local.passed and only_local.reason == "1 local document source(s)"

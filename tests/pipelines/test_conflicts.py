"""Sources that disagree are found by code in every pipeline, said where cited, and kept.

Through the graph builders and the CLI, over local documents, with scripted models that only
supply text (they copy sentences and cite what they are given): which sources conflict, whether
a third source settles it, the note, Limitations, ✓✓ and result.json are decided by code
(issue 37, items 1 and 4).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.faces.cli import app
from research_studio.pipelines.advanced.graph import build_trust_engine_subgraph
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript

pytestmark = pytest.mark.e2e
QUERY = "How much coral cover did the northern reef lose after the 2016 heat wave?"
FILLER = "\n\nThe survey team counted corals along fixed transects every spring.\n"
FIGURES = {
    "reef-survey.md": "# Reef survey\n\nCoral cover on the northern reef fell by 54 percent "
    "after the 2016 heat wave." + FILLER,
    "reef-institute.md": "# Reef institute\n\nCoral cover on the northern reef fell by 45 "
    "percent after the 2016 heat wave." + FILLER,
}
THIRD = {
    "reef-agency.md": "# Reef agency\n\nThe agency found that coral cover on the northern reef "
    "fell by 54 percent after the 2016 heat wave." + FILLER,
}
POLARITY = {
    "reef-survey.md": "# Reef survey\n\nCoral cover on the northern reef increased after the "
    "2016 heat wave." + FILLER,
    "reef-institute.md": "# Reef institute\n\nCoral cover on the northern reef decreased after "
    "the 2016 heat wave." + FILLER,
}
DATES = {
    "reef-survey.md": "# Reef survey\n\nThe marine institute first mapped coral cover on the "
    "northern reef in 1998." + FILLER,
    "reef-institute.md": "# Reef institute\n\nThe marine institute first mapped coral cover on "
    "the northern reef in 2003." + FILLER,
}
PIPELINES = [
    ("standard", "single"),
    ("standard", "multi"),
    ("advanced", "multi"),
    ("supervisor", ""),
]


def _documents(folder: Path, documents: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in documents.items():
        (folder / name).write_text(text)
    return folder


async def _run(
    make_config: Callable[..., Configuration],
    folder: Path,
    pipeline: str,
    mode: str,
    **settings: Any,
) -> dict[str, Any]:
    script = SupervisorScript() if pipeline == "supervisor" else ResearchScript()
    config = make_config(
        model=use_scripted_model(script.model()),
        search="local",
        docs=[folder],
        **{"max_iterations": 1, **settings},
    )
    payload: dict[str, Any] = {"query": QUERY}
    options: dict[str, Any] = {}
    if pipeline == "supervisor":
        options["store"] = InMemoryStore()
    else:
        payload["mode"] = mode
    return await full_state(pipeline, payload, config, **options)


def _sid(state: dict[str, Any], name: str) -> str:
    return next(source["sid"] for source in state["sources"] if source["url"].endswith(name))


def _conflicts(state: dict[str, Any]) -> list[dict[str, Any]]:
    return list(state["metadata"]["grounding"]["conflicts"])


def _limitations(report: str) -> str:
    return report.split("## Limitations of this run", 1)[1] if "Limitations" in report else ""


@pytest.mark.parametrize(("pipeline", "mode"), PIPELINES)
@pytest.mark.parametrize(
    ("documents", "kind", "values"),
    [
        (FIGURES, "figure", {"54 %", "45 %"}),
        (POLARITY, "polarity", {"increase", "decrease"}),
        (DATES, "date", {"1998", "2003"}),
    ],
    ids=["figures", "polarity", "dates"],
)
async def test_two_sources_that_disagree_are_shown_both_where_cited_and_listed(
    make_config: Callable[..., Configuration],
    tmp_path: Path,
    pipeline: str,
    mode: str,
    documents: dict[str, str],
    kind: str,
    values: set[str],
) -> None:
    state = await _run(make_config, _documents(tmp_path / "docs", documents), pipeline, mode)
    conflicts = _conflicts(state)
    assert len(conflicts) == 1, (conflicts, state["report"])
    conflict = conflicts[0]
    survey, institute = _sid(state, "reef-survey.md"), _sid(state, "reef-institute.md")
    assert conflict["kind"] == kind
    assert {side["says"] for side in conflict["sides"]} == values
    assert sorted(sid for side in conflict["sides"] for sid in side["sids"]) == sorted(
        [survey, institute]
    )
    assert conflict["status"] == "open"
    report = state["report"]
    body = report.split("## Limitations of this run", 1)[0]
    # Said where they are cited: the note follows the statements that cite both sources.
    note = next(line for line in body.splitlines() if line.startswith("⚖ Sources disagree"))
    assert survey in note and institute in note
    assert all(value in note for value in values)
    assert f"[{survey}]" in body and f"[{institute}]" in body
    # An open conflict is a limitation of the run.
    assert "no third source settles it" in _limitations(report)
    # ✓✓ is never given across a conflict.
    assert all(record["indicator"] != "✓✓" for record in state["statements"])
    assert not any(claim["cross_validated"] for claim in state.get("claims", []))


@pytest.mark.parametrize(("pipeline", "mode"), PIPELINES)
async def test_a_third_source_settles_a_conflict(
    make_config: Callable[..., Configuration], tmp_path: Path, pipeline: str, mode: str
) -> None:
    folder = _documents(tmp_path / "docs", {**FIGURES, **THIRD})
    state = await _run(make_config, folder, pipeline, mode)
    conflicts = _conflicts(state)
    assert len(conflicts) == 1, (conflicts, state["report"])
    conflict = conflicts[0]
    assert conflict["status"] == "resolved"
    assert conflict["settled_for"] == "54 %"
    majority = next(side for side in conflict["sides"] if side["says"] == "54 %")
    assert set(majority["sids"]) == {_sid(state, "reef-survey.md"), _sid(state, "reef-agency.md")}
    assert "most sources give 54 %" in state["report"]
    # Two sources agree, but a third contradicts them: still no ✓✓ across the conflict.
    assert not any(claim["cross_validated"] for claim in state.get("claims", []))
    assert all(record["indicator"] != "✓✓" for record in state["statements"])
    assert "no third source settles it" not in _limitations(state["report"])
    assert state["metadata"]["grounding"]["conflicts_open"] == 0


@pytest.mark.parametrize(
    ("pipeline", "mode"), [("standard", "single"), ("standard", "multi"), ("advanced", "multi")]
)
async def test_an_open_conflict_gets_one_targeted_search_while_rounds_remain(
    make_config: Callable[..., Configuration], tmp_path: Path, pipeline: str, mode: str
) -> None:
    folder = _documents(tmp_path / "docs", FIGURES)
    state = await _run(make_config, folder, pipeline, mode, max_iterations=3)
    conflict = _conflicts(state)[0]
    # The gap step searched for it once, and the conflict says so; the search found no third
    # source, so both are still shown.
    assert conflict["search"], conflict
    assert state["searches_done"].count(conflict["search"]) == 1
    assert conflict["status"] == "open"


QUALIFIED = {
    "reef-survey.md": "# Reef survey\n\nCoral cover on the northern reef fell by 54 percent "
    "after the 2016 heat wave." + FILLER,
    "reef-south.md": "# Southern reef\n\nCoral cover on the southern reef fell by 54 percent "
    "after the 2016 heat wave." + FILLER,
}


@pytest.mark.parametrize(("pipeline", "mode"), PIPELINES)
async def test_a_source_on_the_southern_reef_never_supports_the_northern_reef(
    make_config: Callable[..., Configuration], tmp_path: Path, pipeline: str, mode: str
) -> None:
    state = await _run(make_config, _documents(tmp_path / "docs", QUALIFIED), pipeline, mode)
    south = _sid(state, "reef-south.md")
    for record in state["statements"]:
        if "northern" in record["text"] and record["kind"] == "cited":
            assert south not in record["sids"], record
    for claim in state.get("claims", []):
        if "northern" in claim["text"]:
            assert south not in claim["supporting_sids"], claim
            assert not claim["cross_validated"], claim
    # Two reefs, not one figure said twice: no conflict, no ✓✓.
    assert _conflicts(state) == []
    assert all(record["indicator"] != "✓✓" for record in state["statements"])


def test_the_cli_writes_the_conflict_into_report_and_result(tmp_path: Path) -> None:
    folder = _documents(tmp_path / "docs", FIGURES)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            QUERY,
            "--docs",
            str(folder),
            "--model",
            use_scripted_model(ResearchScript().model()),
            "--out",
            str(out),
            "--single-agent",
            "--iterations",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    report = (out / "report.md").read_text(encoding="utf-8")
    document = json.loads((out / "result.json").read_text(encoding="utf-8"))
    conflicts = document["metadata"]["grounding"]["conflicts"]
    assert [conflict["status"] for conflict in conflicts] == ["open"]
    assert "⚖ Sources disagree" in report and "54 %" in report and "45 %" in report
    assert "no third source settles it" in _limitations(report)


def _trust_input(findings: dict[str, str]) -> dict[str, Any]:
    """The trust engine's input: one verified quote per source."""
    sources, evidence = [], []
    for number, (sid, text) in enumerate(findings.items(), 1):
        url = f"https://www.example.org/{sid.lower()}"
        sources.append(
            {"sid": sid, "url": url, "title": f"Reef {sid}", "snippet": text,
             "provider": "local", "published": None}
        )  # fmt: skip
        evidence.append(
            {"eid": f"E{number}", "sid": sid, "url": url, "title": "", "text": text,
             "quote": text, "quote_verified": True, "question": "Findings"}
        )  # fmt: skip
    return {
        "query": QUERY,
        "query_analysis": {"query_class": "comprehensive_overview"},
        "plan": {"outline": ["Findings"]},
        "sources": sources,
        "evidence": evidence,
    }


NORTH_54 = "Coral cover on the northern reef fell by 54 percent after the 2016 heat wave."
AGENCY_54 = "The agency found that coral cover on the northern reef fell by 54 percent after the 2016 heat wave."
NORTH_45 = "Coral cover on the northern reef fell by 45 percent after the 2016 heat wave."
SOUTH_54 = "Coral cover on the southern reef fell by 54 percent after the 2016 heat wave."


async def _cross_validated(
    make_config: Callable[..., Configuration], findings: dict[str, str]
) -> dict[str, bool]:
    """The full trust engine's verdicts: whether each claim (by text) is cross-validated, the
    scripted judge naming another source's evidence for every claim."""
    config = make_config(model=use_scripted_model(ResearchScript().model()))
    async with open_services(config):
        subgraph = build_trust_engine_subgraph("full")
        result = await subgraph.ainvoke(_trust_input(findings), context=config)
    return {claim["text"]: claim["cross_validated"] for claim in result["claims"]}


async def test_two_agreeing_sources_are_cross_validated_until_a_third_contradicts(
    make_config: Callable[..., Configuration],
) -> None:
    agreeing = await _cross_validated(make_config, {"S1": NORTH_54, "S2": AGENCY_54})
    assert agreeing[NORTH_54]  # the control: two sources, one figure, ✓✓ is possible
    contested = await _cross_validated(
        make_config, {"S1": NORTH_54, "S2": AGENCY_54, "S3": NORTH_45}
    )
    assert not any(contested.values()), contested


async def test_the_southern_reef_never_cross_validates_the_northern_reef(
    make_config: Callable[..., Configuration],
) -> None:
    verdicts = await _cross_validated(make_config, {"S1": NORTH_54, "S2": SOUTH_54})
    assert not any(verdicts.values()), verdicts


@pytest.mark.parametrize(("pipeline", "mode"), PIPELINES)
async def test_a_conflict_is_said_in_the_reports_language(
    make_config: Callable[..., Configuration], tmp_path: Path, pipeline: str, mode: str
) -> None:
    folder = _documents(tmp_path / "docs", FIGURES)
    state = await _run(make_config, folder, pipeline, mode, language="German")
    survey, institute = _sid(state, "reef-survey.md"), _sid(state, "reef-institute.md")
    report = state["report"]
    note = next(
        line for line in report.splitlines() if line.startswith("⚖ Die Quellen widersprechen")
    )
    assert f"{survey}: " in note and f"{institute}: " in note and "54 %" in note
    assert " gives " not in report and "Sources disagree" not in report
    assert "keine dritte Quelle entscheidet" in report

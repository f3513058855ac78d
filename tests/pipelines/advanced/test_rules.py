"""Rules code holds in the advanced family: the self-consistency vote, the loop's stop rules,
the subagent's rounds. The scripted model only supplies text; the asserted outcome is code's."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.graph import build_trust_engine_graph
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.advanced_script import FamilyKnobs, FamilyRoles
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedRequest, use_scripted_model
from tests.helpers import run_cli
from tests.pipelines.advanced.test_discovery import run_graph

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"
TWO = {"evidence_per_section": 2}


@pytest.mark.parametrize(
    ("votes", "winner"),
    [
        (["person", "organization", "organization"], "organization"),
        (["person", "organization", "person"], "person"),
    ],
)
async def test_three_disagreeing_passes_are_settled_by_the_majority(
    make_config: Callable[..., Configuration], votes: list[str], winner: str
) -> None:
    script = ResearchScript(ambiguous=True)
    model = script.model()
    replies = iter(votes)

    def one_pass(request: ScriptedRequest) -> dict[str, Any]:
        kind = next(replies)
        subject = "John Smith" if kind == "person" else "Smith & Co"
        base = FamilyRoles(script).era_cot_analysis(request.prompt)
        return {**base, "query_type": kind, "primary_subject": subject, "anchor_terms": [subject]}

    model.script("EraCotAnalysis", one_pass)
    config = make_config(model=use_scripted_model(model))
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, _steps, _paused = await run_graph(graph, config, {"query": "John Smith professor"})
    assert len(model.calls_for("EraCotAnalysis")) == 3
    assert state["discovery_result"]["query_type"] == winner


@pytest.mark.parametrize(
    ("knobs", "settings", "reason"),
    [
        # Two verified items per section: covered by count to 0.67, so the model's analysis is
        # asked and its reading of each section lowers the coverage the rules read.
        ({**TWO, "coverage": [0.5], "ready": [False]}, {"max_iterations": 2}, "iteration_cap"),
        # Every section answered by three verified items: the count ends the loop.
        ({"coverage": [0.9], "ready": [False]}, {"max_iterations": 3}, "coverage_reached"),
        ({**TWO, "coverage": [0.4], "ready": [True]}, {"max_iterations": 3}, "no_gaps"),
        ({**TWO, "coverage": [0.6], "ready": [True]}, {"max_iterations": 3}, "ready"),
        (
            {**TWO, "coverage": [0.5, 0.5], "ready": [False]},
            {"max_iterations": 3, "min_confidence_gain": 0.1},
            "gain_below_threshold",
        ),
    ],
)
async def test_each_stop_rule_ends_the_loop(
    make_config: Callable[..., Configuration],
    knobs: dict[str, Any],
    settings: dict[str, Any],
    reason: str,
) -> None:
    model = ResearchScript(**knobs).model()
    config = make_config(model=use_scripted_model(model), **settings)
    state = await full_state("advanced", {"query": QUERY}, config)
    assert state["stop_reason"] == reason
    assert state["metadata"]["stop_reason"] == reason


# A subagent stops at 0.8 (001 §2.2): at 0.75 it still runs the searches it proposed.
@pytest.mark.parametrize(
    ("rounds", "confidence", "used"), [(1, 0.3, 1), (2, 0.3, 2), (2, 0.75, 2), (2, 0.8, 1)]
)
async def test_a_subagent_refines_only_while_unsure_and_within_its_rounds(
    make_config: Callable[..., Configuration], rounds: int, confidence: float, used: int
) -> None:
    model = ResearchScript(subagent_confidence=[confidence]).model()
    config = make_config(
        model=use_scripted_model(model), subagent_max_iterations=rounds, max_iterations=1
    )
    state = await full_state("advanced", {"query": QUERY, "mode": "single"}, config)
    [finding] = state["subagent_findings"]
    assert finding["iterations_used"] == used
    # The model's refined search runs only in a second round.
    assert any(query.endswith(" refined") for query in finding["queries_run"]) == (used == 2)
    # Its key findings are its verified facts; an unsure subagent out of rounds names as its
    # gaps the searches it had no round left to run.
    verified = {item["text"] for item in state["evidence"] if item["quote_verified"]}
    assert finding["key_findings"] and set(finding["key_findings"]) <= verified
    out_of_rounds = confidence < 0.8 and rounds == 1  # with two, it ran what it proposed
    assert bool(finding["gaps"]) == out_of_rounds
    assert all(gap.endswith(" refined") for gap in finding["gaps"])


@pytest.mark.parametrize("pipeline", ["advanced-full", "advanced-optimized"])
@pytest.mark.parametrize("query", [QUERY, "python packaging tools"])
async def test_remaining_gaps_are_the_research_questions_no_cited_statement_answers(
    make_config: Callable[..., Configuration], pipeline: str, query: str
) -> None:
    # The model says gaps remain either way; code lists the questions no citation answers.
    script = ResearchScript(coverage=[0.5], ready=[False])
    config = make_config(model=use_scripted_model(script.model()), max_iterations=1)
    state = await full_state(pipeline, {"query": query}, config)
    report = state["report"]
    for gap in state.get("knowledge_gaps", []):
        assert gap["description"] not in report  # the model's gap prose is never printed
    coverage = state["metadata"]["grounding"]["answer_coverage"]
    open_questions = [item["question"] for item in coverage["questions"] if not item["answered"]]
    section = report.split("## Remaining gaps", 1)[1] if "## Remaining gaps" in report else ""
    listed = [line[2:].rsplit(":", 1)[0] for line in section.split("\n## ")[0].splitlines()]
    assert [item for item in listed if item] == open_questions  # code decides what is open
    assert any(claim["indicator"] in report for claim in state["claims"])


@pytest.mark.parametrize("pipeline", ["advanced", "advanced-full"])
def test_no_clarify_runs_an_ambiguous_query_to_its_report(
    web: FakeWeb, tmp_path: Path, pipeline: str
) -> None:
    outputs = {}
    for folder, flags in (("asked", []), ("quiet", ["--no-clarify"])):
        script = ResearchScript(ambiguous=True, family=FamilyKnobs(candidates=[]))
        args = ["John Smith professor", "--pipeline", pipeline, "--out", folder, *flags]
        result = run_cli(web, "run", *args, model=script.model())
        assert result.exit_code == 0, result.output
        record = json.loads((tmp_path / folder / "run.json").read_text())
        outputs[folder] = (result.output, record["interactive_clarify"])
        assert json.loads((tmp_path / folder / "result.json").read_text())["report"]
    # Without a terminal the question is noted and skipped; --no-clarify never asks at all.
    assert "The request is ambiguous" in outputs["asked"][0] and outputs["asked"][1] is True
    assert "The request is ambiguous" not in outputs["quiet"][0] and outputs["quiet"][1] is False


@pytest.mark.parametrize(("threshold", "dropped"), [(0.35, True), (0.2, False)])
async def test_a_source_below_the_credibility_minimum_is_dropped_with_its_evidence(
    make_config: Callable[..., Configuration], threshold: float, dropped: bool
) -> None:
    model = ResearchScript().model()

    def first_is_poor(request: ScriptedRequest) -> dict[str, Any]:
        sids = re.findall(r"^\[(S\d+)\]", request.prompt, re.MULTILINE)
        return {
            "assessments": [
                {
                    "sid": sid,
                    "authority": 0.0 if n == 0 else 0.9,
                    "content_quality": 0.0 if n == 0 else 0.9,
                }
                for n, sid in enumerate(sids)
            ]
        }

    model.script("SourceAssessments", first_is_poor)
    config = make_config(model=use_scripted_model(model), min_source_credibility=threshold)
    state = await full_state("advanced-full", {"query": QUERY}, config)
    scores = state["source_credibility"]
    poor = [sid for sid, score in scores.items() if score["overall"] < 0.35]
    assert len(poor) == 1  # domain trust and freshness alone stay under 0.35
    kept = {source["sid"] for source in state["sources"]}
    assert (poor[0] not in kept) == dropped
    assert any(item["sid"] == poor[0] for item in state["evidence"]) != dropped

"""Model routing per node, and flags that mean something: --single-agent, --format, refusals."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.prompts import STYLE_RULES
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"
FAST_NODES = (
    "analyzer",
    "discovery",
    "subagent",
    "gap_detector",
    "credibility_scorer",
    "claim_extractor",
    "cite",
    "span_verify",
    "cross_validate",
)


def two_models(
    make_config: Callable[..., Configuration], **settings: Any
) -> tuple[Configuration, ScriptedChatModel, ScriptedChatModel, str, str]:
    # Two verified items per section: the gap detector asks its model (not covered by count).
    script = ResearchScript(coverage=[0.9], ready=[True], evidence_per_section=2)
    smart = script.model()
    fast = ResearchScript(coverage=[0.9], ready=[True], evidence_per_section=2).model()
    smart_spec = use_scripted_model(smart, name="smart")
    fast_spec = use_scripted_model(fast, name="fast")
    config = make_config(model=smart_spec, fast_model=fast_spec, **settings)
    return config, smart, fast, smart_spec, fast_spec


async def test_analysis_extraction_and_verification_use_the_fast_model(
    make_config: Callable[..., Configuration],
) -> None:
    config, _smart, _fast, smart_spec, fast_spec = two_models(make_config)
    state = await full_state("advanced-full", {"query": QUERY}, config)
    models = {(call["node"], call["model"], call["tier"]) for call in state["llm_calls"]}
    for node in FAST_NODES:
        assert (node, fast_spec, "fast") in models, node
    assert ("planner", smart_spec, "smart") in models
    assert ("writer", smart_spec, "smart") in models


async def test_a_node_can_be_sent_to_another_model(
    make_config: Callable[..., Configuration],
) -> None:
    config, _smart, fast, _smart_spec, fast_spec = two_models(make_config)
    config = config.model_copy(update={"model_overrides": {"writer": fast_spec}})
    state = await full_state("advanced-optimized", {"query": QUERY}, config)
    writer_calls = [call for call in state["llm_calls"] if call["node"] == "writer"]
    assert writer_calls and {call["model"] for call in writer_calls} == {fast_spec}
    assert fast.calls_for("ReportDraft")


def test_every_trust_and_discovery_node_has_a_tier() -> None:
    assert ADVANCED_MODELS["planner"] == ADVANCED_MODELS["writer"] == "smart"
    assert {ADVANCED_MODELS[node] for node in FAST_NODES} == {"fast"}
    assert set(ADVANCED_MODELS.values()) == {"fast", "smart"}


@pytest.mark.parametrize("pipeline", ["advanced", "advanced-full", "advanced-optimized"])
async def test_single_agent_mode_runs_one_worker_per_round(
    make_config: Callable[..., Configuration], pipeline: str
) -> None:
    model = ResearchScript(coverage=[0.5, 0.9], ready=[False, True]).model()
    config = make_config(model=use_scripted_model(model), max_iterations=3)
    state = await full_state(pipeline, {"query": QUERY, "mode": "single"}, config)
    rounds = [f["iteration"] for f in state["subagent_findings"]]
    assert rounds and len(rounds) == len(set(rounds)), rounds  # one subagent per round
    assert state["total_workers"] == 1 and state["metadata"]["iterations"] == len(rounds)


async def test_format_shapes_the_advanced_report(
    make_config: Callable[..., Configuration],
) -> None:
    reports = {}
    for structure in ("detailed", "concise", "bullet_points"):
        model = ResearchScript(coverage=[0.9], ready=[True]).model()
        config = make_config(model=use_scripted_model(model), report_structure=structure)
        state = await full_state("advanced-full", {"query": QUERY}, config)
        assert STYLE_RULES[structure] in model.calls_for("ReportDraft")[0].prompt
        reports[structure] = state["report"].split("## Research Quality")[0]
    verified = [c["text"] for c in state["claims"] if c["verified"]]

    def times(report: str, text: str) -> int:
        return report.count(text.rstrip("."))

    def listed_and_written(report: str) -> list[str]:
        lines = report.splitlines()
        bullets = "\n".join(line for line in lines if line.startswith("- "))
        prose = "\n".join(line for line in lines if not line.startswith("- "))
        return [t for t in verified if times(bullets, t) and times(prose, t)]

    # detailed: the prose, then every claim listed again; concise: each claim said once.
    assert listed_and_written(reports["detailed"])
    assert not listed_and_written(reports["concise"])
    assert len(reports["concise"]) < len(reports["detailed"])
    # bullet points: every section body is bullets.
    bodies = re.findall(
        r"^## (?!Sources|Limitations)[^\n]+\n\n(.+?)(?=\n## |\Z)",
        reports["bullet_points"],
        re.S | re.M,
    )
    assert bodies and all(
        line.startswith(("- ", "**Bottom line:**"))
        for body in bodies
        for line in body.splitlines()
        if line
    )


def test_single_agent_is_refused_where_it_cannot_apply(web: FakeWeb, tmp_path: Path) -> None:
    result = run_cli(web, "run", QUERY, "--pipeline", "supervisor", "--single-agent")
    assert result.exit_code == 2
    assert "--single-agent does not apply to the supervisor pipeline" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "runs").exists()


def test_single_agent_runs_from_the_cli_for_a_variant(web: FakeWeb, tmp_path: Path) -> None:
    result = run_cli(
        web,
        "run",
        QUERY,
        "--pipeline",
        "advanced-optimized",
        "--single-agent",
        "--out",
        "one",
        "--format",
        "bullet_points",
        model=ResearchScript(coverage=[0.9], ready=[True]).model(),
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "one" / "result.json").read_text())
    assert document["mode"] == "single" and document["pipeline"] == "advanced-optimized"
    assert document["metadata"]["llm_calls_by_node"]["subagent"] >= 1

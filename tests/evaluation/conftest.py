"""Evaluation fixtures: a scripted judge, and the `live` marker (skipped without a real model)."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model

# Read at collection, before the autouse fixture hides the developer's keys from each test.
LIVE_VARIABLES = (
    "RESEARCH_STUDIO_EVAL_JUDGE",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_BASE_URL",
)
LIVE_ENVIRONMENT = {name: os.environ[name] for name in LIVE_VARIABLES if os.environ.get(name)}


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("live") and not (
        {"RESEARCH_STUDIO_EVAL_JUDGE", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}
        & set(LIVE_ENVIRONMENT)
    ):
        pytest.skip("live: set RESEARCH_STUDIO_EVAL_JUDGE (provider:name) or a provider key")


def numbered_statements(prompt: str) -> int:
    """How many statements a citation prompt numbers."""
    return len(re.findall(r"^\d+\. ", prompt.split("Statements:")[-1], re.MULTILINE))


def fair_verdict(schema: str | None, prompt: str) -> dict[str, Any]:
    """What a sensible judge answers, per schema, read from the prompt."""
    if schema == "RelevanceVerdict":
        count = len(re.findall(r"^Section \d+: ", prompt, re.MULTILINE))
        return {
            "sections": [
                {"section": n, "score": 4, "reason": "on topic"} for n in range(1, count + 1)
            ]
        }
    if schema == "GroundednessVerdict":
        eids = re.findall(r"^\[(E\d+)\]", prompt, re.MULTILINE)
        claims = [
            {"claim": f"claim {eid}", "grounded": True, "evidence_ids": [eid]} for eid in eids[:3]
        ]
        return {"claims": [*claims, {"claim": "an invented claim", "grounded": False}]}
    if schema == "CompletenessVerdict":
        return {"covered": [1], "missed": [2], "score": 3, "reason": "half of the plan"}
    if schema == "QualityVerdict":
        return {
            "research_depth": 3,
            "source_diversity": 2,
            "analytical_rigor": 3,
            "clarity": 5,
            "citation_integration": 5,
        }
    if schema == "FaithfulnessVerdict":
        return {"score": 5, "problems": []}
    if schema == "CitationVerdicts":
        count = numbered_statements(prompt)
        # Statement 2 of each source is the one the judge does not find supported.
        return {"verdicts": [{"statement": n, "supported": n != 2} for n in range(1, count + 1)]}
    raise AssertionError(f"no judge script for {schema}")


@pytest.fixture
def judge_model() -> ScriptedChatModel:
    """A scripted judge registered as scripted:judge, answering every schema fairly."""
    model = ScriptedChatModel(
        fallback=lambda request: fair_verdict(request.schema_name, request.prompt)
    )
    use_scripted_model(model, "judge")
    return model


def chat_verdict(request: dict[str, Any]) -> dict[str, Any]:
    """The same judge behind the OpenAI-compatible stand-in (schema from the tool or format name)."""
    tools = request.get("tools") or []
    name = tools[0]["function"]["name"] if tools else None
    name = name or ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
    prompt = "\n\n".join(str(message.get("content") or "") for message in request["messages"])
    return fair_verdict(name, prompt)

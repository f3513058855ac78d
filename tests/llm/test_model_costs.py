"""Cost and context: prices per call, num_ctx sized for Ollama, silent truncation detected."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ModelError
from research_studio.llm.pricing import call_cost, price_of
from research_studio.services.clients import open_services
from tests.doubles.fake_web import FakeWeb


class Topic(BaseModel):
    name: str
    keywords: list[str]


def test_prices_come_from_the_table_or_the_configuration() -> None:
    assert price_of("openai:gpt-4o-mini", {}) == (0.15, 0.60)
    assert price_of("ollama:llama3.1", {}) == (0.0, 0.0)
    assert price_of("openai:unknown-model", {}) is None
    assert price_of("openai:gpt-4o-mini", {"openai:gpt-4o-mini": (1.0, 2.0)}) == (1.0, 2.0)
    assert call_cost("openai:gpt-4o", 1_000_000, 100_000, {}) == pytest.approx(3.5)
    assert call_cost("openai:unknown-model", 10, 10, {}) is None


def _ollama_config(
    make_config: Callable[..., Configuration], web: FakeWeb, **settings: object
) -> Configuration:
    web.ollama.responder = lambda request: {"name": "reefs", "keywords": ["coral", "heat"]}
    return make_config(model="ollama:fake", ollama_host=web.base_url, **settings)


async def test_ollama_gets_num_ctx_sized_to_the_prompt(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    config = _ollama_config(make_config, web)
    prompt = [SystemMessage("Name the topic."), HumanMessage("coral reef heat " * 2500)]
    async with open_services(config) as services:
        caller = services.caller("plan", "smart")
        topic = await caller.structured(Topic, prompt)
    assert topic.name == "reefs"
    [request] = web.ollama.requests
    sent = sum(len(str(m["content"])) for m in request["messages"]) // 4
    assert request["options"]["num_ctx"] >= sent + 2048  # the whole prompt and room to answer
    assert request["options"]["num_ctx"] <= config.ollama_max_context
    [call] = caller.calls
    assert call["ok"] and call["prompt_tokens"] and call["cost_usd"] == 0.0


async def test_a_prompt_the_server_cut_silently_is_detected_and_recorded(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    web.ollama.honours_num_ctx = False  # keeps its default 2048-token window, says nothing
    config = _ollama_config(make_config, web)
    prompt = [SystemMessage("Name the topic."), HumanMessage("coral reef heat " * 8000)]
    async with open_services(config) as services:
        caller = services.caller("plan", "smart")
        with pytest.raises(ModelError) as caught:
            await caller.structured(Topic, prompt)
    assert caught.value.kind == "context_length"
    kinds = [call["error_kind"] for call in caller.calls]
    assert kinds and set(kinds) == {"context_truncated"}
    # Each retry sent a shorter prompt (shortened by code), none was used as if whole.
    sizes = [sum(len(str(m["content"])) for m in r["messages"]) for r in web.ollama.requests]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


async def test_a_prompt_longer_than_the_window_is_shortened_before_it_is_sent(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    config = _ollama_config(make_config, web, ollama_max_context=4096)
    prompt = [SystemMessage("Name the topic."), HumanMessage("coral reef heat " * 5000)]
    async with open_services(config) as services:
        topic = await services.caller("plan", "smart").structured(Topic, prompt)
    assert topic.name == "reefs"
    [request] = web.ollama.requests
    sent = sum(len(str(m["content"])) for m in request["messages"]) // 4
    assert sent <= 4096 and request["options"]["num_ctx"] == 4096


def test_a_call_budget_ends_the_run_with_a_report_and_says_why(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    import json
    from pathlib import Path

    from tests.doubles.research_script import ResearchScript
    from tests.helpers import run_cli

    web.chat.responder = ResearchScript(coverage=[0.3], ready=[False]).chat_responder()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", web.url("/v1"))
    monkeypatch.setenv("RESEARCH_STUDIO_MODEL_PRICES", '{"openai:fake-model": [2.0, 8.0]}')
    for pipeline in ("standard", "advanced"):
        result = run_cli(
            web,
            "run",
            "coral bleaching heat stress",
            "--pipeline",
            pipeline,
            "--iterations",
            "5",
            "--max-llm-calls",
            "5",
            "--out",
            f"budget-{pipeline}",
            "--verbose",
            model="openai:fake-model",
        )
        assert result.exit_code == 0, result.output
        assert "stopped: budget:llm calls" in result.output  # the closing summary says why
        assert "budget llm_calls" in result.output  # --verbose: the budget's own row
        folder = Path(f"budget-{pipeline}")
        document = json.loads((folder / "result.json").read_text())
        metadata = document["metadata"]
        assert metadata["stop_reason"] == "budget:llm_calls"
        assert metadata["llm_calls"] <= 5 and metadata["budgets"]["llm_calls"]["limit"] == 5
        assert document["report"].startswith("# ") and "## Sources" in document["report"]
        assert "stopped early (budget:llm_calls)" in document["report"]
        # Priced in the configuration: a cost per node, adding up to the run's cost.
        assert metadata["cost_usd"] > 0 and metadata["cost_known"]
        assert sum(metadata["cost_by_node"].values()) == pytest.approx(metadata["cost_usd"])

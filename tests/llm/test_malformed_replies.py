"""A malformed model reply (a proxy's HTML page, a cut JSON body, JSON that is no completion)
is asked again like a transient fault and labelled for what it was."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from research_studio.core.config import Configuration
from research_studio.core.errors import ModelError
from research_studio.services.clients import open_services
from tests.doubles.fake_chat import MALFORMED_REPLY_KINDS, ChatFaultKind, ChatFaults
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import run_cli
from tests.llm.test_models import Verdict

REASONS = {
    "html_200": "an HTML page instead of a chat completion",
    "cut_body": "invalid or cut-off JSON",
    "wrong_shape": "not a chat completion",
}


def config(web: FakeWeb, make_config: Callable[..., Configuration]) -> Configuration:
    return make_config(
        model="openai:fake-model",
        openai_base_url=web.url("/v1"),
        llm_max_retries=2,
        retry_base_delay_s=0.0,
    )


@pytest.mark.parametrize("kind", MALFORMED_REPLY_KINDS)
@pytest.mark.parametrize("call", ["structured", "text"])
async def test_one_malformed_reply_is_retried_and_recorded(
    kind: ChatFaultKind, call: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=(kind,), limit=1)
    web.chat.queue({"supported": True, "reason": "after a retry"})
    async with open_services(config(web, make_config)) as services:
        caller = services.caller("verify", "smart")
        if call == "structured":
            verdict = await caller.structured(Verdict, [HumanMessage("Is the sky blue?")])
            assert verdict.reason == "after a retry"
        else:
            assert "after a retry" in await caller.text([HumanMessage("Is the sky blue?")])
    assert web.chat.injected == [kind]
    failed, answered = caller.calls
    assert failed["ok"] is False and failed["error_kind"] == "bad_response"
    assert str(failed["error"]).startswith("malformed reply: ")
    assert REASONS[kind] in str(failed["error"])
    assert "<html" not in str(failed["error"]).lower()
    assert answered["ok"] is True


async def test_malformed_replies_every_time_end_in_one_labelled_error(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    web.chat.faults = ChatFaults(rate=1.0, kinds=("html_200",))
    async with open_services(config(web, make_config)) as services:
        caller = services.caller("verify", "smart")
        with pytest.raises(ModelError) as caught:
            await caller.structured(Verdict, [HumanMessage("Is the sky blue?")])
    assert caught.value.kind == "bad_response"
    assert str(caught.value).endswith("malformed reply: an HTML page instead of a chat completion")
    assert "\n" not in str(caught.value)
    assert len(caller.calls) == 3 and web.chat.injected == ["html_200"] * 3


@pytest.mark.e2e
def test_a_run_through_malformed_replies_loses_nothing_to_them(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    web.chat.faults = ChatFaults(rate=0.3, seed=7, kinds=MALFORMED_REPLY_KINDS, limit=2)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", web.url("/v1"))
    monkeypatch.setenv("RESEARCH_STUDIO_RETRY_BASE_DELAY_S", "0")
    result = run_cli(
        web,
        "run",
        "coral bleaching heat stress",
        "--out",
        "run",
        "--iterations",
        "1",
        model="openai:fake-model",
    )
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "run" / "result.json").read_text())
    metadata = document["metadata"]
    assert web.chat.injected and metadata["llm_faults_by_kind"] == {
        "bad_response": len(web.chat.injected)
    }
    assert not metadata["errors"]  # every malformed reply was asked again, nothing was lost

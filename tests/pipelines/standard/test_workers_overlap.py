"""Standard multi's workers wait together: their model calls are in flight at the same time.

Through the compiled graph, with the model behind the local web's OpenAI-compatible endpoint
(as `research-studio run --model openai:…` speaks to it). The endpoint holds each extraction
request until requests from two different workers are in flight at once: workers that waited
one after another (a lock, one connection, blocking work on the event loop) would never meet,
and each held request would be let go only when its patience ran out. No timing threshold is
asserted, only whether the requests met.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import QUESTIONS_LABEL
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb, Fault
from tests.doubles.prompt_reader import numbered_under
from tests.doubles.research_script import ResearchScript

pytestmark = pytest.mark.e2e
PATIENCE_S = 20.0  # only a failing run waits this long
SLOW_PAGE_S = 5.0


class Meeting:
    """Holds extraction requests until `needed` workers have one in flight at the same time."""

    def __init__(self, needed: int) -> None:
        self.needed = needed
        self.met = False
        self.held: list[str] = []  # the worker (its question) of each request held
        self._in_flight: Counter[str] = Counter()
        self._changed = threading.Condition()

    def hold(self, worker: str) -> None:
        with self._changed:
            self.held.append(worker)
            self._in_flight[worker] += 1
            if len(+self._in_flight) >= self.needed:
                self.met = True
                self._changed.notify_all()
            self._changed.wait_for(lambda: self.met, timeout=PATIENCE_S)
            self._in_flight[worker] -= 1


def meeting_responder(meeting: Meeting) -> Callable[[dict[str, Any]], Any]:
    script = ResearchScript(ready=[True]).chat_responder()

    def respond(request: dict[str, Any]) -> Any:
        schema = (request.get("response_format") or {}).get("json_schema") or {}
        if schema.get("name") == "PageExtraction":
            prompt = "\n\n".join(str(m.get("content") or "") for m in request["messages"])
            meeting.hold(" | ".join(numbered_under(QUESTIONS_LABEL, prompt)))
        return script(request)

    return respond


async def test_workers_model_calls_are_in_flight_at_once(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    meeting = Meeting(needed=2)
    web.chat.responder = meeting_responder(meeting)
    web.search_latency_s = web.page_latency_s = 0.05
    config = make_config(
        model="openai:fake-model",
        openai_base_url=web.url("/v1"),
        llm_max_retries=0,
        max_subagents=4,
        max_iterations=1,
    )
    state = await full_state(
        "standard", {"query": "coral bleaching heat stress", "mode": "multi"}, config
    )
    # Three workers (one per research question) each asked the model about their own pages.
    assert state["total_workers"] == 3 and len(set(meeting.held)) == 3
    assert meeting.met, "no two workers' extraction requests were ever in flight at once"
    assert not state["errors"] and state["evidence"]


async def test_a_slow_page_holds_back_no_other_page_of_its_search(
    run_pipeline: Callable[..., Any], web: FakeWeb
) -> None:
    # One page of a worker's two-page search answers late: the other page of that search is
    # extracted while it is still on its way (each page is asked about as soon as it is read),
    # so the worker waits for its slowest page and that page's own call, not for both in one.
    slow = "/pages/great-barrier-reef-2024-survey.html"
    web.set_fault(slow, Fault(kind="latency", delay_s=SLOW_PAGE_S))
    state, model = await run_pipeline(
        "coral bleaching heat stress",
        mode="multi",
        max_subagents=4,
        max_iterations=1,
        fetch_timeout_s=4 * SLOW_PAGE_S,
    )
    fetch = next(request for request in web.requests if request.path == slow)
    extractions = model.calls_for("PageExtraction")
    read = {urlsplit(source["url"]).path for source in state["sources"]}
    assert slow in read and len(read) >= 3
    for path in read - {slow}:  # every other page was before the model while the slow one came
        assert min(call.started for call in extractions if path in call.prompt) < fetch.ended

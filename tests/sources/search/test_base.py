"""The search deadline: a provider that drips its answer is cut, whatever its retries."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import SearchError
from research_studio.services.clients import open_services
from tests.doubles.fake_web import FakeWeb, Fault


@pytest.mark.parametrize("provider", ["searxng", "tavily"])
async def test_a_dripping_search_answer_is_cut_at_the_deadline(
    provider: str, web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """A byte every 0.2 s never trips the 2 s read timeout; the deadline still ends the search."""
    web.set_fault("/search", Fault("drip", delay_s=0.2))
    web.set_fault("/tavily/search", Fault("drip", delay_s=0.2))
    config = make_config(search=provider, search_deadline_s=1.0, use_cache=False)
    started = time.monotonic()
    async with open_services(config) as services:
        with pytest.raises(SearchError) as caught:
            await services.search.search("coral bleaching", 3)
    assert time.monotonic() - started < 3.0  # one dripped answer alone takes about 30 s
    assert caught.value.kind == "timeout"
    assert "no answer within the 1 s deadline" in str(caught.value)


async def test_the_deadline_does_not_touch_a_prompt_search(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    async with open_services(make_config(search_deadline_s=1.0)) as services:
        results = await services.search.search("coral bleaching", 3)
    assert results and results[0].url.startswith(web.base_url)

"""use_tavily_extract: pages are read through Tavily Extract (the local /tavily stand-in);
a page Tavily cannot extract is fetched directly."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb, Fault
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
QUERY = "coral bleaching heat stress"


async def run(
    make_config: Callable[..., Configuration], web: FakeWeb, **settings: object
) -> dict[str, object]:
    model = ResearchScript(coverage=[0.9], ready=[True]).model()
    config = make_config(model=use_scripted_model(model), max_iterations=1, **settings)
    return await full_state("advanced", {"query": QUERY, "mode": "single"}, config)


async def test_pages_come_from_tavily_extract_when_it_is_on(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    state = await run(make_config, web, use_tavily_extract=True)
    extracts = web.requests_to("/tavily/extract")
    assert extracts and state["evidence"]
    assert not [r for r in web.requests if r.method == "GET" and r.path.endswith(".html")]


async def test_without_the_setting_pages_are_fetched_directly(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    state = await run(make_config, web)
    assert not web.requests_to("/tavily/extract") and state["evidence"]
    assert [r for r in web.requests if r.method == "GET" and r.path.endswith(".html")]


async def test_a_failed_extract_falls_back_to_fetching(
    make_config: Callable[..., Configuration], web: FakeWeb
) -> None:
    web.set_fault("/tavily/extract", Fault("status", status=500))
    state = await run(make_config, web, use_tavily_extract=True, search_retries=0)
    assert web.requests_to("/tavily/extract") and state["evidence"]
    assert [r for r in web.requests if r.method == "GET" and r.path.endswith(".html")]

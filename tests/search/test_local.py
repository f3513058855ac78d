"""The local provider through the services: chunk results, fetch from the index, guard untouched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.config import Configuration
from research_studio.errors import ConfigError, FetchError
from research_studio.services import open_services

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"


async def test_chunk_results_and_fetch_from_the_index(
    make_config: Callable[..., Configuration],
) -> None:
    config = make_config(search=None, docs=[EXAMPLES], allow_private_networks=False)
    async with open_services(config) as services:
        assert services.search_choice.name == "local"
        results = await services.search.search("cool roofs reflect sunlight", 5)
        assert results and all(
            r.provider == "local" and r.url.startswith("file://") and "#chunk-" in r.url
            for r in results
        )
        assert len({r.url.split("#")[0] for r in results[:3]}) == 3, "distinct documents come first"
        page = await services.fetcher.fetch(results[0].url)
        assert page.final_url == results[0].url.split("#")[0]
        assert " ".join(results[0].snippet.split())[:40] in " ".join(page.text.split())
        with pytest.raises(FetchError, match="not an indexed local document"):
            await services.fetcher.fetch("file:///etc/passwd")


async def test_file_urls_are_refused_without_local_documents(
    make_config: Callable[..., Configuration],
) -> None:
    async with open_services(make_config()) as services:
        with pytest.raises(FetchError, match="only read from the document index"):
            await services.fetcher.fetch((EXAMPLES / "how-much-hotter-are-cities.md").as_uri())


async def test_local_search_with_an_empty_index_says_what_to_do(
    make_config: Callable[..., Configuration],
) -> None:
    async with open_services(make_config(search="local")) as services:
        with pytest.raises(ConfigError, match="--docs PATH"):
            await services.search.search("anything", 3)

"""The local provider through the services: chunk results, fetch from the index, guard untouched."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError, FetchError
from research_studio.services.clients import open_services

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "urban-heat"


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


async def test_local_search_over_an_empty_folder_fails_in_one_line(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    async with open_services(make_config(search=None, docs=[empty])) as services:
        with pytest.raises(ConfigError, match=f"^no readable documents in {empty}$"):
            await services.search.search("anything", 3)


_BLOCKING_EVENTS = {"open", "os.mkdir", "os.listdir", "os.scandir", "sqlite3.connect"}
_watched: list[tuple[threading.Thread, list[str]]] = []


def _audit(event: str, _args: tuple[object, ...]) -> None:
    for thread, seen in _watched:
        if event in _BLOCKING_EVENTS and threading.current_thread() is thread:
            seen.append(event)


sys.addaudithook(_audit)  # stays installed; it only records while a test watches a thread


async def test_the_index_is_opened_and_updated_off_the_event_loop(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(search=None, docs=[EXAMPLES], cache_dir=tmp_path / "index-cache")
    async with open_services(config) as services:
        seen: list[str] = []
        _watched.append((threading.current_thread(), seen))
        try:
            results = await services.search.search("cool roofs", 2)
        finally:
            _watched.clear()
        assert results and seen == [], "file-system calls ran in the event loop"
        assert (tmp_path / "index-cache" / "documents.sqlite3").is_file()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "roofs.md").write_text(
        "# Roofs\n\nCool roofs reflect sunlight and lower temperatures.\n"
    )
    return folder


async def _titles(config: Configuration, query: str) -> tuple[list[str], object]:
    async with open_services(config) as services:
        results = await services.search.search(query, 5)
        return [result.title for result in results], services.index


async def test_runs_of_one_process_share_the_index_and_check_the_folders_once_per_interval(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    folder = _folder(tmp_path)
    config = make_config(
        search=None, docs=[folder], cache_dir=tmp_path / "cache", index_recheck_s=3600
    )
    first, first_index = await _titles(config, "cool roofs sunlight")
    (folder / "trees.md").write_text("# Trees\n\nStreet trees shade sidewalks and cool roofs.\n")
    second, second_index = await _titles(config, "cool roofs sunlight")
    assert first == second == ["Roofs"]  # checked within the interval: the new file waits
    assert second_index is first_index  # one open index for the process
    rechecking = make_config(
        search=None, docs=[folder], cache_dir=tmp_path / "cache", index_recheck_s=0
    )
    third, _index = await _titles(rechecking, "cool roofs sunlight")
    assert sorted(third) == ["Roofs", "Trees"]


async def test_a_run_reads_its_folders_once_never_per_query(
    tmp_path: Path, make_config: Callable[..., Configuration]
) -> None:
    folder = _folder(tmp_path)
    config = make_config(
        search=None, docs=[folder], cache_dir=tmp_path / "cache", index_recheck_s=0
    )
    async with open_services(config) as services:
        assert [r.title for r in await services.search.search("cool roofs", 5)] == ["Roofs"]
        (folder / "trees.md").write_text("# Trees\n\nStreet trees shade cool roofs.\n")
        again = await services.search.search("cool roofs", 5)
        assert [r.title for r in again] == ["Roofs"]  # the second query reads the index only

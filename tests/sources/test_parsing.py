"""Parsing: ordinary pages on the parser thread; PDFs and large pages in bounded worker processes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from research_studio.core.errors import ParseError
from research_studio.sources.parser_pool import ParserPool
from research_studio.sources.parser_thread import IN_THREAD_MAX_BYTES, in_parser_thread, thread
from research_studio.sources.parsing import decode_text, parse_document
from tests.doubles.pdf_builder import make_pdf


def article(number: int) -> bytes:
    paragraph = f"Finding number {number} says reefs recover when the water cools again. " * 8
    return (
        f"<!DOCTYPE html><html><head><title>Article {number}</title></head><body>"
        f"<nav>Home | About</nav><article><h1>Article {number}</h1><p>{paragraph}</p></article>"
        "<footer>All rights reserved</footer></body></html>"
    ).encode()


@pytest.fixture
async def pool() -> AsyncIterator[ParserPool]:
    parsers = ParserPool(workers=2, timeout_s=10.0, max_memory_mb=256)
    yield parsers
    await parsers.aclose()


async def test_each_kind_parses_in_a_worker(pool: ParserPool) -> None:
    title, text, _date = await pool.run(parse_document, "html", article(1), None)
    assert title == "Article 1" and "Finding number 1" in text and "All rights" not in text
    pdf = make_pdf("A PDF title", ["Coral cover fell by half after the heatwave."])
    title, text, _date = await pool.run(parse_document, "pdf", pdf, None)
    assert title == "A PDF title" and "Coral cover fell by half" in " ".join(text.split())
    latin = "Température de l'eau".encode("latin-1")
    assert (await pool.run(parse_document, "text", latin, "iso-8859-1"))[1] == latin.decode(
        "latin-1"
    )
    assert all(pid != os.getpid() for pid in pool.pids())


def test_unknown_charset_falls_back_to_utf8() -> None:
    assert decode_text("café".encode(), "no-such-charset") == "café"
    assert decode_text(b"caf\xe9 ", None) == "caf\ufffd"


async def test_many_pages_parse_concurrently_on_two_workers(pool: ParserPool) -> None:
    results = await asyncio.gather(
        *(pool.run(parse_document, "html", article(n), None) for n in range(24))
    )
    assert [title for title, _text, _date in results] == [f"Article {n}" for n in range(24)]
    assert all(f"Finding number {n} " in text for n, (_t, text, _d) in enumerate(results))
    assert len(pool.pids()) <= 2


async def test_a_crash_costs_one_document_and_the_pool_recovers(pool: ParserPool) -> None:
    outcomes = await asyncio.gather(
        *(pool.run(parse_document, "html", article(n), None) for n in range(3)),
        pool.run(os.abort),
        *(pool.run(parse_document, "html", article(n), None) for n in range(3, 6)),
        return_exceptions=True,
    )
    crash = outcomes[3]
    assert isinstance(crash, ParseError) and crash.kind == "bad_response"
    assert "died (killed by SIGABRT)" in str(crash)
    pages = outcomes[:3] + outcomes[4:]
    assert [page[0] for page in pages if isinstance(page, tuple)] == [
        f"Article {n}" for n in range(6)
    ]
    assert (await pool.run(parse_document, "html", article(7), None))[0] == "Article 7"


async def test_library_errors_are_parse_errors_and_keep_the_worker(pool: ParserPool) -> None:
    await pool.run(parse_document, "html", article(1), None)
    before = pool.pids()
    with pytest.raises(ParseError) as caught:
        await pool.run(parse_document, "pdf", b"%PDF-1.4 not really a PDF", None)
    assert caught.value.kind == "bad_response" and "Error" in caught.value.reason
    assert pool.pids() == before


async def test_a_document_over_the_time_bound_is_cut() -> None:
    parsers = ParserPool(workers=1, timeout_s=0.5, max_memory_mb=256)
    try:
        await parsers.run(parse_document, "text", b"warm", None)  # the worker has started
        [slow_pid] = parsers.pids()
        started = time.monotonic()
        with pytest.raises(ParseError) as caught:
            await parsers.run(time.sleep, 30)
        assert time.monotonic() - started < 1.5
        assert caught.value.kind == "timeout" and "longer than 0.5 s" in caught.value.reason
        assert (await parsers.run(parse_document, "text", b"next", None))[1] == "next"
        assert slow_pid not in parsers.pids()
    finally:
        await parsers.aclose()


async def test_a_document_over_the_memory_bound_fails_alone() -> None:
    parsers = ParserPool(workers=1, timeout_s=10.0, max_memory_mb=64)
    try:
        with pytest.raises(ParseError) as caught:
            await parsers.run(bytearray, 512 * 1024 * 1024)
        assert caught.value.kind == "too_large" and "64 MB" in caught.value.reason
        assert len(await parsers.run(bytearray, 8 * 1024 * 1024)) == 8 * 1024 * 1024
    finally:
        await parsers.aclose()


async def test_a_worker_that_died_idle_is_replaced_without_blaming_the_document(
    pool: ParserPool,
) -> None:
    await pool.run(parse_document, "html", article(1), None)
    [idle] = pool.pids()
    os.kill(idle, signal.SIGKILL)
    for _ in range(100):  # wait until the pipe reports the death
        if idle not in pool.pids():
            break
        await asyncio.sleep(0.01)
    assert (await pool.run(parse_document, "html", article(2), None))[0] == "Article 2"


async def test_a_closed_pool_refuses_and_leaves_no_process() -> None:
    parsers = ParserPool(workers=2, timeout_s=10.0, max_memory_mb=256)
    await parsers.run(parse_document, "text", b"hello", None)
    [pid] = parsers.pids()
    await parsers.aclose()
    with pytest.raises(ParseError) as caught:
        await parsers.run(parse_document, "text", b"hello", None)
    assert caught.value.kind == "refused"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def imported(module: str) -> bool:
    """Whether the process running this has `module` loaded (runs in a parser worker)."""
    return module in sys.modules


# A console script: no .py suffix and no module spec, importing the whole CLI like the real one.
_CONSOLE_SCRIPT = """
import asyncio, json, sys
import research_studio.faces.cli
from research_studio.sources.parser_pool import ParserPool
from tests.sources.test_parsing import imported

async def main():
    pool = ParserPool(workers=1, timeout_s=30.0, max_memory_mb=256)
    try:
        cli = await pool.run(imported, "research_studio.faces.cli")
        parser = await pool.run(imported, "pypdf")
    finally:
        await pool.aclose()
    print(json.dumps([cli, parser]))

if __name__ == "__main__":
    asyncio.run(main())
"""


@pytest.mark.e2e
def test_workers_of_a_console_script_load_the_parser_not_the_cli(tmp_path: Path) -> None:
    script = tmp_path / "research-studio"
    script.write_text(_CONSOLE_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [False, True]


# A program that reads one PDF: the processes it has then, and the process machinery it loaded.
_ONE_PDF = """
import asyncio, glob, json, os, sys
from research_studio.sources.parser_pool import ParserPool
from tests.doubles.pdf_builder import make_pdf

MACHINERY = ["multiprocessing.forkserver", "multiprocessing.resource_tracker",
             "multiprocessing.popen_forkserver", "multiprocessing.popen_spawn_posix"]
# What the worker needs none of to parse: process machinery, JSON, the CLI, an image library.
NOT_IN_WORKER = ["multiprocessing", "json", "research_studio.faces.cli", "PIL.Image"]

def children():
    found = []
    for listing in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with open(listing) as named:
            found += [int(pid) for pid in named.read().split()]
    return sorted(found)

async def main():
    pool = ParserPool(workers=2, timeout_s=30.0, max_memory_mb=256)
    try:
        pdf = make_pdf("One PDF", ["Reefs recover when the water cools."])
        title = (await pool.parse("pdf", pdf, None))[0]
        # (Asked with a builtin: a job of this module would import it, and all it imports.)
        worker_modules = await pool.run(eval, "list(__import__('sys').modules)")
        in_worker = [name for name in NOT_IN_WORKER if name in worker_modules]
        print(json.dumps({"title": title, "workers": sorted(pool.pids()), "children": children(),
                          "loaded": [name for name in MACHINERY if name in sys.modules],
                          "in_worker": in_worker}))
    finally:
        await pool.aclose()

asyncio.run(main())
"""


@pytest.mark.e2e
def test_a_pdf_costs_one_worker_process_and_no_fork_server_or_resource_tracker() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ONE_PDF], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    # The worker is the program's only child, started directly: no fork server and no resource
    # tracker beside it (each an interpreter of its own), none of their machinery loaded.
    assert answer["title"] == "One PDF" and len(answer["workers"]) == 1
    assert answer["children"] == answer["workers"]
    assert answer["loaded"] == []
    # The worker itself loads the parser and its own loop: no process machinery, JSON or CLI.
    assert answer["in_worker"] == []


def test_a_worker_takes_no_module_from_the_folder_it_runs_in(tmp_path: Path) -> None:
    """A file in the program's working folder cannot stand in for a module the worker imports."""
    program, here = tmp_path / "program", tmp_path / "here"
    program.mkdir()
    here.mkdir()
    (program / "one_pdf.py").write_text(_ONE_PDF)
    for module in ("json", "pypdf", "research_studio"):
        (here / f"{module}.py").write_text(f"raise SystemExit('{module}.py of the folder')\n")
    done = subprocess.run(
        [sys.executable, str(program / "one_pdf.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=here,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["title"] == "One PDF"


def test_the_shared_pool_serves_runs_on_different_event_loops() -> None:
    async def one_run() -> tuple[str, list[int]]:
        pool = ParserPool.shared(timeout_s=10.0, max_memory_mb=200)
        try:
            title, _text, _date = await pool.run(parse_document, "html", article(3), None)
            return title, pool.pids()
        finally:
            await pool.aclose()  # the run lets go; the workers stay for the next run

    first_title, first_pids = asyncio.run(one_run())
    second_title, second_pids = asyncio.run(one_run())
    assert first_title == second_title == "Article 3"
    assert first_pids and set(second_pids) >= set(first_pids) and len(second_pids) <= 2


async def test_the_shared_pool_bounds_its_workers_across_runs() -> None:
    pools = [ParserPool.shared(timeout_s=10.0, max_memory_mb=201) for _ in range(4)]
    pages = [pool.run(parse_document, "html", article(n), None) for n, pool in enumerate(pools)]
    titles = [title for title, _text, _date in await asyncio.gather(*pages)]
    assert titles == [f"Article {n}" for n in range(4)]
    assert 1 <= len(pools[0].pids()) <= 2
    await pools[0].aclose()
    with pytest.raises(ParseError) as caught:
        await pools[0].run(parse_document, "text", b"hello", None)
    assert caught.value.kind == "refused"
    assert (await pools[1].run(parse_document, "text", b"still here", None))[1] == "still here"


async def test_an_ordinary_page_is_parsed_on_the_parser_thread_and_a_pdf_in_a_worker() -> None:
    pool = ParserPool(workers=1, timeout_s=10.0, max_memory_mb=256)
    try:
        title, text, _date = await pool.parse("html", article(5), None)
        assert title == "Article 5" and "Finding number 5" in text
        assert (await pool.parse("text", b"plain words", None))[1] == "plain words"
        assert pool.pids() == []  # no process started for ordinary pages
        pdf = make_pdf("A PDF title", ["Coral cover fell by half after the heatwave."])
        assert (await pool.parse("pdf", pdf, None))[0] == "A PDF title"
        assert len(pool.pids()) == 1
    finally:
        await pool.aclose()


async def test_a_large_page_goes_to_a_worker() -> None:
    padding = b"<!-- " + b"x" * IN_THREAD_MAX_BYTES + b" -->"
    large = article(6).replace(b"<footer>", padding + b"<footer>")
    pool = ParserPool(workers=1, timeout_s=30.0, max_memory_mb=512)
    try:
        assert (await pool.parse("html", large, None))[0] == "Article 6"
        assert len(pool.pids()) == 1
    finally:
        await pool.aclose()


async def test_a_page_that_overruns_the_thread_fails_and_the_next_goes_to_a_worker() -> None:
    with pytest.raises(ParseError) as caught:
        await thread.run(time.sleep, (1.5,), 0.3)
    assert caught.value.kind == "timeout" and "longer than 0.3 s" in caught.value.reason
    assert thread.stuck()  # a thread cannot be stopped: it is left to finish
    pool = ParserPool(workers=1, timeout_s=30.0, max_memory_mb=256)
    try:
        assert (await pool.parse("html", article(7), None))[0] == "Article 7"
        assert len(pool.pids()) == 1  # parsed by a worker while the thread was held
    finally:
        await pool.aclose()
    while thread.stuck():
        await asyncio.sleep(0.05)
    assert (await thread.run(parse_document, ("text", b"back", None), 5.0))[1] == "back"


async def test_a_library_error_on_the_thread_is_that_documents_parse_error() -> None:
    with pytest.raises(ParseError) as caught:
        await thread.run(parse_document, ("text", b"x", "utf-8", "one too many"), 5.0)
    assert caught.value.kind == "bad_response" and "TypeError" in caught.value.reason


def test_documents_read_from_any_thread_are_parsed_on_the_parser_thread() -> None:
    names = []

    def where(body: bytes) -> str:
        names.append(threading.current_thread().name)
        return body.decode()

    with ThreadPoolExecutor(max_workers=4) as callers:
        assert list(callers.map(lambda n: in_parser_thread(where, b"%d" % n), range(8))) == [
            str(n) for n in range(8)
        ]
    assert len(set(names)) == 1 and names[0].startswith("page-parser")


async def test_a_page_cancelled_while_it_waits_for_the_thread_is_never_parsed() -> None:
    parsed: list[str] = []
    busy = asyncio.create_task(thread.run(time.sleep, (0.5,), 5.0))
    await asyncio.sleep(0.1)  # the thread is busy now
    waiting = asyncio.create_task(thread.run(parsed.append, ("late",), 5.0))
    await asyncio.sleep(0.1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await busy
    assert (await thread.run(parse_document, ("text", b"next", None), 5.0))[1] == "next"
    assert parsed == []

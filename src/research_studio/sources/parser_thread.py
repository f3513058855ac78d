"""The process's page-parsing thread: ordinary pages parsed here, one at a time.

lxml is not safe in parallel threads (native double frees), so every page parsed in this process
is parsed on this one thread, whoever asks (a run's fetches on any event loop, the document
index, `verify`). Pages too large or too risky for it go to worker processes (`parser_pool`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from research_studio.core.errors import ParseError

T = TypeVar("T")

# Pages up to this size are parsed on the parser thread: an ordinary page parses in milliseconds
# there, where a worker costs a process and two pickles. Bigger pages (whose parse time and
# memory grow with them) and every PDF go to a worker bounded in time and memory.
IN_THREAD_MAX_BYTES = 1_000_000


def grant(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class _ParserThread:
    """The process's one parsing thread, shared by every run in it (as the workers are).

    A page is given `timeout_s` from the moment the thread starts it; one that overruns fails
    with a timeout, and while it still runs (a thread cannot be stopped) pages go to workers.
    """

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="page-parser")
        self._lock = threading.Lock()
        self._overran: Future[Any] | None = None
        self._ident: int | None = None

    def _enter(self) -> None:
        self._ident = threading.get_ident()

    def warm_up(self) -> None:
        """Load the page parser on the thread now, in the background."""
        from research_studio.sources.parsing import warm_up_pages

        with contextlib.suppress(RuntimeError):  # the interpreter is shutting down
            self._executor.submit(warm_up_pages)

    def stuck(self) -> bool:
        """Whether a page that overran its time bound still holds the thread."""
        with self._lock:
            return self._overran is not None and not self._overran.done()

    def call(self, func: Callable[..., T], *args: Any) -> T:
        """`func(*args)` on the parser thread, waited for (from any thread, blocking)."""
        if threading.get_ident() == self._ident:
            return func(*args)

        def job() -> T:
            self._enter()
            return func(*args)

        return self._executor.submit(job).result()

    async def run(self, func: Callable[..., T], args: tuple[Any, ...], timeout_s: float) -> T:
        loop = asyncio.get_running_loop()
        started: asyncio.Future[None] = loop.create_future()

        def job() -> T:
            self._enter()
            with contextlib.suppress(RuntimeError):  # the caller's loop closed meanwhile
                loop.call_soon_threadsafe(grant, started)
            return func(*args)

        future = self._executor.submit(job)
        done = asyncio.wrap_future(future)
        try:
            await asyncio.wait((started, done), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            future.cancel()  # not started yet: the thread never parses it
            started.cancel()
            raise
        try:
            async with asyncio.timeout(timeout_s):
                return await done
        except TimeoutError:
            with self._lock:
                self._overran = future
            raise ParseError(f"parsing took longer than {timeout_s:g} s", kind="timeout") from None
        except MemoryError:
            raise ParseError("parsing ran out of memory", kind="too_large") from None
        except ParseError:
            raise
        except Exception as exc:  # any library error is the document's failure
            raise ParseError(f"{type(exc).__name__}: {exc}"[:300], kind="bad_response") from None
        finally:
            started.cancel()


thread = _ParserThread()


def in_parser_thread(func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` on the process's parser thread (blocking): lxml is used by one thread only."""
    return thread.call(func, *args)

"""Document parsing: ordinary pages on one thread of this process, the rest in worker processes.

lxml is not safe in parallel threads (native double frees), so one thread per process parses
every ordinary page (HTML and text up to `IN_THREAD_MAX_BYTES`): no worker process and no
pickling for the pages most runs read. A PDF, or a page larger than that, goes to a worker
process bounded in time and memory, which a crash or a blow-up costs that document only.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from research_studio.core.errors import ParseError
from research_studio.sources.parser_thread import IN_THREAD_MAX_BYTES, grant, thread
from research_studio.sources.parsing import ContentKind, Parsed, parse_document

T = TypeVar("T")

STARTUP_TIMEOUT_S = 60.0  # a fresh worker imports the PDF parser first; slow machines take time


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "its connection was lost"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _Worker:
    """One parser process and the parent's end of its socket."""

    def __init__(self, max_memory_mb: int) -> None:
        # The process machinery loads with the first worker: a run over ordinary pages needs none.
        from research_studio.sources.parser_worker import start

        self.process, self.conn = start(max_memory_mb)
        self.parsing = False
        self._dead = False
        # The pipe is closed only when no thread is reading it (a closed fd number can be reused).
        self._io = threading.Lock()
        self._join_lock = threading.Lock()

    def wait_ready(self, timeout_s: float) -> None:
        """Block until the worker has warmed up, so start-up never counts against a document."""
        try:
            if self.conn.poll(timeout_s) and self.conn.recv() == ("ready", None):
                return
        except (EOFError, OSError):
            pass
        self.kill()
        self.reap()
        raise ParseError("a parser process could not be started", kind="server_error")

    def exchange(self, job: tuple[Callable[..., Any], tuple[Any, ...]]) -> tuple[str, Any]:
        """Send a job and wait for the answer (blocking; runs in a thread)."""
        with self._io:
            if self.conn.closed:
                return ("unsent", None)
            try:
                self.conn.send(job)
            except (EOFError, OSError):
                return ("unsent", None)  # the worker died while idle: not this document's fault
            self.parsing = True
            try:
                answer: tuple[str, Any] = self.conn.recv()
                return answer
            except (EOFError, OSError):
                return ("crashed", self._join())
            finally:
                self.parsing = False

    def alive(self) -> bool:
        return not self._dead and self.process.poll() is None

    def kill(self) -> None:
        """End the process now, even mid-document; a thread reading its pipe then sees EOF."""
        self._dead = True
        self.process.kill()

    def reap(self) -> None:
        """Wait for a killed process to end, then release the pipe (blocking; runs in a thread)."""
        self._join()
        with self._io:
            self.conn.close()

    def _join(self) -> int | None:
        """The exit status (negative: the signal that ended it), or None if still running."""
        with self._join_lock:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=2.0)
            return self.process.returncode


class _Slots:
    """A counting semaphore that tasks on any event loop (or thread) can wait on.

    One pool serves every run in a process, and runs may live on different loops (a server's,
    a test's, `asyncio.run` per CLI command), where an asyncio.Semaphore would be bound to one.
    """

    def __init__(self, count: int) -> None:
        self._free = count
        self._lock = threading.Lock()
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> None:
        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            with self._lock:
                granted = waiter not in self._waiters
                if not granted:
                    self._waiters.remove(waiter)
            if granted:  # the slot arrived as the wait was cancelled: pass it on
                self.release()
            raise

    def release(self) -> None:
        while True:
            with self._lock:
                if not self._waiters:
                    self._free += 1
                    return
                waiter = self._waiters.popleft()
            try:
                waiter.get_loop().call_soon_threadsafe(grant, waiter)
                return
            except RuntimeError:  # that waiter's loop is closed: the next one gets the slot
                continue


class _Workers:
    """Up to `count` parser processes, started on demand, reused, replaced when they die."""

    def __init__(self, count: int, max_memory_mb: int) -> None:
        self.count = count
        self.max_memory_mb = max_memory_mb
        self._slots = _Slots(count)
        # Threads only wait on pipes; the parsing itself happens in the worker processes.
        self._threads = ThreadPoolExecutor(max_workers=count * 2, thread_name_prefix="parser")
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self.closed = False

    def _spawn(self) -> _Worker:
        worker = _Worker(self.max_memory_mb)
        worker.wait_ready(STARTUP_TIMEOUT_S)
        with self._lock:
            self._all.add(worker)
            closed = self.closed
        if closed:  # the pool closed while this worker was starting
            self._discard(worker)
            raise ParseError("the parser pool is closed", kind="refused")
        return worker

    def warm_up(self) -> None:
        """Start one worker in the background now, so the first page does not wait for it."""
        with contextlib.suppress(RuntimeError):  # the pool closed meanwhile
            self._threads.submit(self._spawn).add_done_callback(self._adopt)

    def _discard(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            owned = worker in self._all
            self._all.discard(worker)
        if owned:  # else close() reaps it
            # RuntimeError: the pool has just closed; the killed process is reaped at exit.
            with contextlib.suppress(RuntimeError):
                self._threads.submit(worker.reap)

    def _park(self, worker: _Worker) -> None:
        """An idle, healthy worker back on the list (or ended when not needed)."""
        with self._lock:
            keep = not self.closed and len(self._idle) < self.count
            if keep:
                self._idle.append(worker)
        if not keep:
            self._discard(worker)

    def _adopt(self, future: asyncio.Future[_Worker] | Future[_Worker]) -> None:
        """Keep a worker whose caller was cancelled while it started (or end it if not needed)."""
        if future.cancelled() or future.exception() is not None:
            return
        self._park(future.result())

    def _idle_worker(self) -> _Worker | None:
        while True:
            with self._lock:
                if not self._idle:
                    return None
                worker = self._idle.pop()
            if worker.alive():
                return worker
            self._discard(worker)

    async def _take(self) -> _Worker:
        worker = self._idle_worker()
        if worker is not None:
            return worker
        # Starting a process blocks (a fork and an exec): not on the event loop.
        future = asyncio.get_running_loop().run_in_executor(self._threads, self._spawn)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.add_done_callback(self._adopt)
            raise

    async def run(
        self, func: Callable[..., Any], args: tuple[Any, ...], timeout_s: float
    ) -> tuple[str, Any]:
        """One job on a free worker, retried once on a worker that died idle; (status, value)."""
        await self._slots.acquire()
        try:
            for _attempt in range(2):
                status, value = await self._exchange(func, args, timeout_s)
                if status != "unsent":
                    break
        finally:
            self._slots.release()
        return status, value

    async def _exchange(
        self, func: Callable[..., Any], args: tuple[Any, ...], timeout_s: float
    ) -> tuple[str, Any]:
        """One job on one worker; the worker goes back to the idle list only if it is healthy."""
        if self.closed:
            raise ParseError("the parser pool is closed", kind="refused")
        worker = await self._take()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout_s):
                status, value = await loop.run_in_executor(
                    self._threads, worker.exchange, (func, args)
                )
        except TimeoutError:
            self._discard(worker)
            raise ParseError(f"parsing took longer than {timeout_s:g} s", kind="timeout") from None
        except BaseException:  # cancelled by a caller's deadline: the worker is mid-document
            self._discard(worker)
            raise
        if status in ("ok", "error"):
            self._park(worker)
        else:
            self._discard(worker)
        return status, value

    def pids(self, *, parsing: bool = False) -> list[int]:
        with self._lock:
            workers = [w for w in self._all if w.alive() and (w.parsing or not parsing)]
        return [w.process.pid for w in workers if w.process.pid is not None]

    def kill_now(self) -> None:
        """End every worker without waiting for it (for closing without an event loop)."""
        self._kill_all()
        self._threads.shutdown(wait=False, cancel_futures=True)

    def _kill_all(self) -> list[_Worker]:
        """Close the pool and kill every worker; the killed workers, still to be reaped."""
        with self._lock:
            self.closed = True
            workers = list(self._all)
            self._all.clear()
            self._idle.clear()
        for worker in workers:
            worker.kill()
        return workers

    async def aclose(self) -> None:
        workers = self._kill_all()
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._threads, worker.reap) for worker in workers)
        )
        self._threads.shutdown(wait=False, cancel_futures=True)


# One set of workers per process and memory bound, shared by every run in it (CLI, server, eval).
_shared: dict[int, _Workers] = {}
_shared_lock = threading.Lock()


def _shared_workers(max_memory_mb: int) -> _Workers:
    with _shared_lock:
        workers = _shared.get(max_memory_mb)
        if workers is None or workers.closed:
            workers = _shared[max_memory_mb] = _Workers(min(2, os.cpu_count() or 1), max_memory_mb)
            atexit.register(workers.kill_now)
        return workers


class ParserPool:
    """Documents parsed in worker processes, each bounded by `timeout_s` and `max_memory_mb`.

    A pool built directly owns its `workers` processes; `ParserPool.shared` hands a run the
    process's common workers, which outlive the run (closing the run's pool only stops its use).
    """

    def __init__(self, *, workers: int, timeout_s: float, max_memory_mb: int) -> None:
        self._workers = _Workers(workers, max_memory_mb)
        self._owner = True
        self.timeout_s = timeout_s
        self._closed = False

    @classmethod
    def shared(cls, *, timeout_s: float, max_memory_mb: int) -> ParserPool:
        """This process's parser workers (two, or one on a single-core machine), warming up."""
        pool = cls.__new__(cls)
        pool._workers = _shared_workers(max_memory_mb)
        pool._owner = False
        pool.timeout_s = timeout_s
        pool._closed = False
        return pool

    @property
    def workers(self) -> int:
        return self._workers.count

    @property
    def max_memory_mb(self) -> int:
        return self._workers.max_memory_mb

    def warm_up(self) -> None:
        """Load the page parser on the parser thread now, so the first page does not wait for it
        (workers start when a PDF or a large page first needs one)."""
        thread.warm_up()

    async def parse(self, kind: ContentKind, body: bytes, charset: str | None) -> Parsed:
        """Title, text and date of a document: on the parser thread when it is an ordinary page,
        else in a worker (a PDF, a large page, or while an overrunning page holds the thread)."""
        if self._closed:
            raise ParseError("the parser pool is closed", kind="refused")
        if kind == "pdf" or len(body) > IN_THREAD_MAX_BYTES or thread.stuck():
            return await self.run(parse_document, kind, body, charset)
        return await thread.run(parse_document, (kind, body, charset), self.timeout_s)

    async def run(self, func: Callable[..., T], *args: Any) -> T:
        """`func(*args)` in a worker; ParseError when it fails, crashes, times out or runs out of memory.

        `func` and its arguments must be picklable (a module-level function).
        """
        if self._closed:
            raise ParseError("the parser pool is closed", kind="refused")
        status, value = await self._workers.run(func, args, self.timeout_s)
        if status == "ok":
            result: T = value
            return result
        if status == "error":
            raise ParseError(str(value), kind="bad_response")
        if self._closed or self._workers.closed:
            raise ParseError("the parser pool was closed", kind="refused")
        if status == "memory":
            raise ParseError(
                f"parsing needed more than {self.max_memory_mb} MB of memory", kind="too_large"
            )
        raise ParseError(f"the parser process died ({_describe_exit(value)})", kind="bad_response")

    def pids(self, *, parsing: bool = False) -> list[int]:
        """Process ids of the live workers, or of those parsing a document now (for diagnostics)."""
        return self._workers.pids(parsing=parsing)

    def kill_now(self) -> None:
        """Stop using the pool; an owned pool's workers end now (no event loop needed)."""
        self._closed = True
        if self._owner:
            self._workers.kill_now()

    async def aclose(self) -> None:
        """Stop using the pool; an owned pool's workers end, and documents in them fail."""
        self._closed = True
        if self._owner:
            await self._workers.aclose()

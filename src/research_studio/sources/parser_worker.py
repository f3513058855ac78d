"""The parser worker process: its loop, its bounds, and how it is started without the CLI.

Workers fork from a fork server that has loaded only the parsers (`parser_warmup`), so a worker
costs a fork, not an import of the program that asked for it.
"""

from __future__ import annotations

import io
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable
from multiprocessing import context, forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any

# Imported by the fork server once: workers fork from it with the parsers loaded and warm.
# Not "__main__": the parser needs none of the CLI (see _ParserPopen).
PRELOAD = ["research_studio.sources.parser_warmup"]


def limit_resources(max_memory_mb: int) -> None:
    """No core dumps; address space capped at what the worker uses now plus `max_memory_mb`."""
    try:
        import resource
    except ImportError:
        return  # not on Unix: the time bound still applies
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing parser must not litter cores
    try:
        with open("/proc/self/statm") as statm:
            baseline = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return  # no /proc (macOS, where RLIMIT_AS is not enforced anyway)
    limit = baseline + max_memory_mb * 1024 * 1024
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _answer(conn: Connection, job: tuple[Callable[..., Any], tuple[Any, ...]]) -> str:
    """Run one job and send its outcome; the status sent ("ok", "error" or "memory")."""
    func, args = job
    try:
        answer: tuple[str, Any] = ("ok", func(*args))
    except MemoryError:
        answer = ("memory", None)
    except Exception as exc:  # any library error is the document's failure, not the worker's
        answer = ("error", f"{type(exc).__name__}: {exc}"[:300])
    try:
        conn.send(answer)
    except MemoryError:  # pickling a large result
        answer = ("memory", None)
        conn.send(answer)
    return answer[0]


def serve(conn: Connection, max_memory_mb: int) -> None:
    """A worker's loop: receive (function, args), answer ("ok", value) or a failure, until EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    logging.disable(logging.WARNING)  # library warnings about broken pages: failures are data
    from research_studio.sources.parsing import warm_up  # (imported in the worker only)

    warm_up()  # done already when forked from a warm fork server
    limit_resources(max_memory_mb)
    try:
        conn.send(("ready", None))
        while True:
            try:
                job = conn.recv()
            except MemoryError:  # the document alone does not fit
                conn.send(("memory", None))
                return
            if _answer(conn, job) == "memory":
                return  # a worker that ran out of memory is not trusted with another document
    except (EOFError, OSError):
        return  # the parent closed the pool or died
    except BaseException:  # an answer that cannot be pickled, or worse
        os._exit(70)  # quietly: the parent reports the exit code, not a traceback on the terminal


class _ParserPopen(popen_forkserver.Popen):
    """Starts a worker from the fork server without re-running the parent's main script.

    CPython (3.11 to 3.13) sends every forkserver child the parent's `__main__` to re-import, and
    never preloads it in the server (it passes the wrong key): under the console script each
    worker would import the whole CLI (about 3 CPU-s and 120 MiB). A parser worker needs only
    this module, which the fork server has loaded already.
    """

    def _launch(self, process_obj: Any) -> None:
        prep_data = spawn.get_preparation_data(process_obj._name)
        prep_data.pop("init_main_from_path", None)
        prep_data.pop("init_main_from_name", None)
        buf = io.BytesIO()
        context.set_spawning_popen(self)
        try:
            reduction.dump(prep_data, buf)
            reduction.dump(process_obj, buf)
        finally:
            context.set_spawning_popen(None)
        self.sentinel, write = forkserver.connect_to_new_process(self._fds)  # type: ignore[attr-defined]
        # The child watches a duplicate of the data pipe to notice that its parent died.
        parent_write = os.dup(write)
        self.finalizer = util.Finalize(self, util.close_fds, (parent_write, self.sentinel))  # type: ignore[attr-defined]
        with open(write, "wb", closefd=True) as pipe:
            pipe.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


class ParserProcess(context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> Any:
        return _ParserPopen(process_obj)


def _has_forkserver() -> bool:
    return "forkserver" in multiprocessing.get_all_start_methods()


def parser_context() -> BaseContext:
    """A fork server when there is one: workers fork from a clean, single-threaded process."""
    if _has_forkserver():
        forkserver_context = multiprocessing.get_context("forkserver")
        forkserver_context.set_forkserver_preload(PRELOAD)
        return forkserver_context
    return multiprocessing.get_context("spawn")

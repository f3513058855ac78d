"""The parser worker process: how it is started, its loop and its bounds.

A worker is a fresh interpreter started directly by the pool (no fork server and no resource
tracker, which cost a run that reads one PDF two more interpreters): it imports this module and the
PDF parser, never the program that asked for it (re-running the CLI's `__main__` would cost about
3 CPU-s and 120 MiB), and speaks to the pool over one socket pair.
"""

from __future__ import annotations

import logging
import os
import pickle
import select
import signal
import socket
import struct
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

# The worker's first lines: the parent's import path (the worker must import what the parent
# can: this package, a test's job), set before anything else is imported. `-P` keeps the current
# folder off the path until then, so no file there can stand in for a module.
_BOOT = (
    "import sys; sys.path[:] = sys.argv[3:]; "
    "from research_studio.sources.parser_worker import main; main()"
)
_HEADER = struct.Struct("!Q")  # each message's length in bytes


class Channel:
    """One end of the socket between the pool and a worker: pickled messages, each after its
    length. (multiprocessing.connection does the same, with 20 more modules and 2.7 MiB in each
    worker.) EOFError once the other end has closed; OSError once this end has."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    @property
    def closed(self) -> bool:
        return self._sock.fileno() == -1

    def fileno(self) -> int:
        return self._sock.fileno()

    def send(self, message: object) -> None:
        data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
        self._sock.sendall(_HEADER.pack(len(data)))
        self._sock.sendall(data)

    def recv(self) -> Any:
        (size,) = _HEADER.unpack(self._read(_HEADER.size))
        return pickle.loads(self._read(size))

    def poll(self, timeout_s: float) -> bool:
        """Whether a message (or the end of the stream) can be read within `timeout_s`."""
        readable, _, _ = select.select([self._sock], [], [], timeout_s)
        return bool(readable)

    def close(self) -> None:
        self._sock.close()

    def _read(self, size: int) -> bytearray:
        buffer = bytearray(size)  # MemoryError when a message alone does not fit the bound
        view = memoryview(buffer)
        done = 0
        while done < size:
            got = self._sock.recv_into(view[done:])
            if not got:
                raise EOFError("the other end closed the channel")
            done += got
        return buffer


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


def _answer(conn: Channel, job: tuple[Callable[..., Any], tuple[Any, ...]]) -> str:
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


def serve(conn: Channel, max_memory_mb: int) -> None:
    """A worker's loop: receive (function, args), answer ("ok", value) or a failure, until EOF."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    logging.disable(logging.WARNING)  # library warnings about broken pages: failures are data
    from research_studio.sources.parsing import warm_up  # (imported in the worker only)

    warm_up()  # the PDF parser, loaded before the worker says it is ready
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


def main() -> None:
    """The worker process's entry (`_BOOT`): argv is [socket fd, memory bound in MB, *path]."""
    # A worker reads text, never images: pypdf imports Pillow for its image features whenever it
    # is installed (2.4 MiB and 0.02 CPU-s a worker). Kept out, pypdf reads Pillow as absent.
    sys.modules["PIL"] = None  # type: ignore[assignment]
    serve(Channel(socket.socket(fileno=int(sys.argv[1]))), int(sys.argv[2]))


def start(max_memory_mb: int) -> tuple[subprocess.Popen[bytes], Channel]:
    """A new worker process and the parent's end of its socket (blocking: it forks and execs).

    Its own session: a Ctrl-C at the terminal is the parent's to handle, and reaches the worker
    as the end of its socket when the parent stops, not as a traceback while it starts. It ends
    when it reads that end, whether the parent closed the pool or died.
    """
    import subprocess  # (the parent's: a worker never starts one)

    parent, child = socket.socketpair()
    try:
        process = subprocess.Popen(
            [sys.executable, "-P", "-c", _BOOT, str(child.fileno()), str(max_memory_mb), *sys.path],
            stdin=subprocess.DEVNULL,
            pass_fds=(child.fileno(),),
            start_new_session=True,
        )
    except BaseException:
        parent.close()
        raise
    finally:
        child.close()  # only the worker holds its end: its death reads as EOF here
    return process, Channel(parent)

"""CPU time and memory of a process and all its descendants, read from /proc (Linux).

Parser workers are never waited for (they are killed at exit), so `resource.getrusage` would
miss them: the tree is walked instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # fields after the command name, from "state" on


def descendants(root: int) -> list[int]:
    """Every live process under `root` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, pending = [], [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def tree_cpu_s(root: int | None = None) -> float:
    """CPU-seconds (user + system) of `root`, its waited-for children and its live descendants."""
    root = os.getpid() if root is None else root
    total = 0.0
    for pid in [root, *descendants(root)]:
        fields = _stat(pid)
        if fields is not None:  # utime, stime, cutime, cstime
            total += sum(int(value) for value in fields[11:15]) / _TICKS
    return total


def tree_pss_mb(root: int | None = None) -> float:
    """Proportional set size of the whole tree (shared pages counted once), in MiB."""
    root = os.getpid() if root is None else root
    total_kib = 0
    for pid in [root, *descendants(root)]:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kib += int(line.split()[1])
                    break
        except (OSError, ValueError):
            continue
    return total_kib / 1024


def load() -> float:
    """The machine's 1-minute load average (other processes share the cores)."""
    return round(os.getloadavg()[0], 2)


@dataclass
class TreeUsage:
    cpu_s: float = 0.0
    peak_pss_mb: float = 0.0
    load: float = 0.0


@contextmanager
def measured(interval_s: float = 0.1) -> Iterator[TreeUsage]:
    """CPU-seconds of this process tree spent inside the block, and its peak PSS (sampled)."""
    usage = TreeUsage()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            usage.peak_pss_mb = max(usage.peak_pss_mb, tree_pss_mb())
            stop.wait(interval_s)

    sampler = threading.Thread(target=sample, daemon=True)
    before = tree_cpu_s()
    sampler.start()
    try:
        yield usage
    finally:
        usage.cpu_s = round(tree_cpu_s() - before, 3)
        stop.set()
        sampler.join()
        usage.peak_pss_mb = round(max(usage.peak_pss_mb, tree_pss_mb()), 1)
        usage.load = load()


# Runs one command and prints its rusage. A small launcher, because a child's peak RSS counts the
# memory it had between fork and exec: forked from the (large) bench, it would read far too high.
_LAUNCHER = """
import json, os, subprocess, sys
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_pid, _status, usage = os.wait4(process.pid, 0)
print(json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024]))
"""


def command_cost(command: list[str], repeats: int = 3) -> dict[str, float]:
    """Median CPU-seconds and peak RSS (MiB) of a short command, each run waited for."""
    cpu, rss = [], []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, *command],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, mib = json.loads(done.stdout)
        cpu.append(seconds)
        rss.append(mib)
        time.sleep(0.05)
    return {
        "cpu_s": round(sorted(cpu)[len(cpu) // 2], 3),
        "rss_mb": round(sorted(rss)[len(rss) // 2], 1),
        "load": load(),
    }

"""What a user pays for one `research-studio run`: a cold process, measured from outside it.

The run is started as its own process, as a person starts it, by a small launcher that makes
itself the subreaper of everything the run starts (PR_SET_CHILD_SUBREAPER): the parser
workers, orphaned when the run exits, are re-parented to the launcher and reaped
there, so `RUSAGE_CHILDREN` of the launcher holds the CPU of the whole tree, and `wait4` on the run
gives its own process's share (the rest is the parser processes'). Peak PSS is the
sum over the launcher's live descendants, sampled from /proc every 0.1 s. The model is the
local web's OpenAI-compatible endpoint answering a research script after a simulated latency;
search is the local web's SearXNG. "Start → first model call" is from starting the launcher to
the first chat request the local web receives.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

from benchmarks.harness import QUERIES, Latency, settings_file
from benchmarks.process_tree import load, tree_pss_mb

# Runs argv[1:] and every process it leaves behind to the end; prints their CPU (user + sys).
_LAUNCHER = """
import ctypes, json, os, resource, signal, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
run = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
_pid, status, own = os.wait4(run.pid, 0)  # the run's own process, apart from what it started
code = os.waitstatus_to_exitcode(status)
deadline = time.monotonic() + 30  # orphans (parser workers) end when they see EOF
while True:
    try:
        pid, _status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        if time.monotonic() > deadline:  # a stuck orphan: ended, its CPU still counted
            try:
                left = open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split()
            except OSError:
                left = []
            for child in left:
                os.kill(int(child), signal.SIGKILL)
        time.sleep(0.02)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"cpu_s": usage.ru_utime + usage.ru_stime,
                  "main_cpu_s": own.ru_utime + own.ru_stime, "exit": code}))
"""
CHAT_PATH = "/v1/chat/completions"


def _command() -> list[str]:
    script = shutil.which("research-studio")
    if script:
        return [script]
    return [sys.executable, "-c", "from research_studio.faces.cli import main; main()"]


def _slow(responder: Any, latency: Latency) -> Any:
    """The research script's replies after the model's simulated latency."""

    def respond(request: dict[str, Any]) -> Any:
        reply = responder(request)
        tokens = len(json.dumps(reply, default=str)) / 4
        time.sleep(latency.llm_s + latency.llm_per_token_s * tokens)
        return reply

    return respond


def cold_run(
    web: FakeWeb, query: str, latency: Latency, workers: int, folder: Path
) -> dict[str, Any]:
    """One `research-studio run` in its own process tree: CPU, peak PSS, first model call."""
    web.chat.reset()
    web.chat.responder = _slow(
        ResearchScript(coverage=[0.9], ready=[True]).chat_responder(), latency
    )
    web.clear_requests()
    config = settings_file(folder, web, workers, "max_iterations = 1\n")
    command = [
        *_command(),
        "run",
        query,
        "--model",
        "openai:fake-model",
        "--no-clarify",
        "--config",
        str(config),
        "--out",
        str(folder / "run"),
    ]
    environment = {
        **os.environ,
        "OPENAI_BASE_URL": web.url("/v1"),
        "OPENAI_API_KEY": "sk-bench-local",
    }
    peak = 0.0
    started = time.monotonic()
    launcher = subprocess.Popen(
        [sys.executable, "-c", _LAUNCHER, *command],
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    )
    while launcher.poll() is None:
        peak = max(peak, tree_pss_mb(launcher.pid) - _own_pss_mb(launcher.pid))
        time.sleep(0.1)
    wall = time.monotonic() - started
    answer = json.loads(launcher.stdout.read() if launcher.stdout else "{}")
    chats = [request for request in web.requests if request.path == CHAT_PATH]
    first = min((request.started for request in chats), default=None)
    result_file = folder / "run" / "result.json"
    sources = 0
    if result_file.is_file():
        document = json.loads(result_file.read_text())
        sources = len(_cited(document))
    return {
        "cpu_s": round(answer.get("cpu_s", 0.0), 3),
        # The `research-studio` process itself; the rest went to the processes it started.
        "main_cpu_s": round(answer.get("main_cpu_s", 0.0), 3),
        "peak_pss_mb": round(peak, 1),
        "wall_s": round(wall, 3),
        "first_model_call_s": round(first - started, 3) if first is not None else None,
        "model_calls": len(chats),
        "cited_sources": sources,
        "exit": answer.get("exit"),
        "load": load(),
    }


def _own_pss_mb(pid: int) -> float:
    """The launcher's own PSS: not the run's (it is a small Python that only waits)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def _cited(document: dict[str, Any]) -> set[str]:
    """The distinct sources the report's statements cite."""
    return {sid for record in document.get("statements", []) for sid in record.get("sids", [])}


def run_cold(latency: Latency, workers: int, queries: tuple[str, ...] = QUERIES) -> dict[str, Any]:
    """A cold standard multi run per query, each in its own process tree; medians and each run."""
    runs = []
    with FakeWeb() as web:
        web.search_latency_s = latency.search_s
        web.page_latency_s = latency.page_s
        for query in queries:
            with tempfile.TemporaryDirectory() as folder:
                runs.append(
                    {"query": query, **cold_run(web, query, latency, workers, Path(folder))}
                )
    completed = [run for run in runs if run["exit"] == 0] or runs

    def median(key: str) -> float | None:
        values = [run[key] for run in completed if run[key] is not None]
        return round(statistics.median(values), 3) if values else None

    return {
        "command": "research-studio run … --model openai:fake-model",
        "latency": vars(latency),
        "workers": workers,
        "runs": runs,
        "completed": sum(1 for run in runs if run["exit"] == 0),
        "cpu_s": median("cpu_s"),
        "main_cpu_s": median("main_cpu_s"),
        "peak_pss_mb": median("peak_pss_mb"),
        "wall_s": median("wall_s"),
        "first_model_call_s": median("first_model_call_s"),
        "model_calls": median("model_calls"),
        "cited_sources": median("cited_sources"),
        "load": round(statistics.mean(run["load"] for run in runs), 2),
    }

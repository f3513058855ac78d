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
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.doubles.fake_chat import _content_chars, _tokens
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

from benchmarks.harness import PAGE_PREFIXES, QUERIES, Latency, settings_file
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


class Slow:
    """A responder's replies after the model's simulated latency; counts their tokens."""

    def __init__(self, responder: Callable[[dict[str, Any]], object], latency: Latency) -> None:
        self.responder = responder
        self.latency = latency
        self.completion_tokens = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> object:
        reply = self.responder(request)
        tokens = len(json.dumps(reply, default=str)) / 4
        with self._lock:
            self.completion_tokens += round(tokens)
        time.sleep(self.latency.llm_s + self.latency.llm_per_token_s * tokens)
        return reply


def cold_run(
    web: FakeWeb, query: str, latency: Latency, workers: int, folder: Path, *, single: bool = False
) -> dict[str, Any]:
    """One `research-studio run` (multi, or `--single-agent`) in its own process tree: CPU, peak
    PSS, first model call."""
    web.chat.reset()
    model = Slow(ResearchScript(coverage=[0.9], ready=[True]).chat_responder(), latency)
    web.chat.responder = model
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
        *(["--single-agent"] if single else []),
    ]
    environment = {
        **clean_environment(),
        "OPENAI_BASE_URL": web.url("/v1"),
        "OPENAI_API_KEY": "sk-bench-local",
    }
    measured = measure_tree(web, command, environment)
    result_file = folder / "run" / "result.json"
    sources = 0
    if result_file.is_file():
        document = json.loads(result_file.read_text())
        sources = len(_cited(document))
    return {**measured, "completion_tokens": model.completion_tokens, "cited_sources": sources}


def clean_environment() -> dict[str, str]:
    """This process's environment, less PYTHONDONTWRITEBYTECODE: a run reads and writes byte
    code as a user's does, so it pays no compilation after its first start."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def measure_tree(web: FakeWeb, command: list[str], environment: dict[str, str]) -> dict[str, Any]:
    """Run `command` under the subreaper launcher: CPU of the whole tree, its own process's
    share, peak PSS of the tree, wall, start → first model call, and what it asked the web."""
    web.clear_requests()
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
    requests = web.requests
    chats = [request for request in requests if request.path == CHAT_PATH]
    first = min((request.started for request in chats), default=None)
    return {
        "cpu_s": round(answer.get("cpu_s", 0.0), 3),
        # The command's own process; the rest went to the processes it started.
        "main_cpu_s": round(answer.get("main_cpu_s", 0.0), 3),
        "peak_pss_mb": round(peak, 1),
        "wall_s": round(wall, 3),
        "first_model_call_s": round(first - started, 3) if first is not None else None,
        "model_calls": len(chats),
        "prompt_tokens": sum(_tokens(_content_chars(_messages(request.body))) for request in chats),
        "searches": sum(1 for r in requests if r.path in ("/search", "/tavily/search")),
        "page_fetches": sum(1 for r in requests if r.path.startswith(PAGE_PREFIXES)),
        "exit": answer.get("exit"),
        "load": load(),
    }


def _messages(body: bytes) -> object:
    """A chat request's messages ([] when the body is no JSON object)."""
    try:
        document = json.loads(body)
    except ValueError:
        return []
    return document.get("messages") if isinstance(document, dict) else []


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
    with local_web(latency) as web:
        for query in queries:
            with tempfile.TemporaryDirectory() as folder:
                runs.append(
                    {"query": query, **cold_run(web, query, latency, workers, Path(folder))}
                )
    return {
        "command": COMMAND,
        "latency": vars(latency),
        "workers": workers,
        **medians(runs),
    }


COMMAND = "research-studio run … --model openai:fake-model"
MEASURES = (
    "cpu_s",
    "main_cpu_s",
    "peak_pss_mb",
    "wall_s",
    "first_model_call_s",
    "model_calls",
    "prompt_tokens",
    "completion_tokens",
    "searches",
    "page_fetches",
    "cited_sources",
)


def local_web(latency: Latency) -> FakeWeb:
    """The local web with the search and page latency of `latency` (not yet started)."""
    web = FakeWeb()
    web.search_latency_s = latency.search_s
    web.page_latency_s = latency.page_s
    return web


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each run, how many completed, the median of each measure over the completed runs (all of
    them when none did), and the mean load."""
    completed = [run for run in runs if run["exit"] == 0] or runs

    def median(key: str) -> float | None:
        values = [run[key] for run in completed if run.get(key) is not None]
        return round(statistics.median(values), 3) if values else None

    return {
        "runs": runs,
        "completed": sum(1 for run in runs if run["exit"] == 0),
        **{key: median(key) for key in MEASURES},
        "load": round(statistics.mean(run["load"] for run in runs), 2),
    }


def run_cold_paired(
    latency: Latency, workers: int, queries: tuple[str, ...] = QUERIES, rounds: int = 2
) -> dict[str, Any]:
    """Standard single and multi, each a cold process, paired on the same question one right
    after the other (which goes first alternates), so both meet the same load: the multi/single
    wall ratio a user sees."""
    pairs = []
    with FakeWeb() as web:
        web.search_latency_s = latency.search_s
        web.page_latency_s = latency.page_s
        for round_ in range(rounds):
            for index, query in enumerate(queries):
                pair: dict[str, Any] = {"query": query}
                order = ("single", "multi") if (round_ + index) % 2 == 0 else ("multi", "single")
                for mode in order:
                    with tempfile.TemporaryDirectory() as folder:
                        pair[mode] = cold_run(
                            web, query, latency, workers, Path(folder), single=mode == "single"
                        )
                pairs.append({**pair, **_ratios(pair["single"], pair["multi"])})
    ratios = [pair["wall_ratio"] for pair in pairs if "wall_ratio" in pair]
    after_start = [pair["after_start_ratio"] for pair in pairs if "after_start_ratio" in pair]
    loads = [pair[mode]["load"] for pair in pairs for mode in ("single", "multi")]

    def median(mode: str, key: str) -> float | None:
        values = [pair[mode][key] for pair in pairs if pair[mode]["exit"] == 0]
        values = [value for value in values if value is not None]
        return round(statistics.median(values), 3) if values else None

    return {
        "command": "research-studio run … [--single-agent] --model openai:fake-model",
        "latency": vars(latency),
        "workers": workers,
        "pairs": pairs,
        "completed": len(ratios),
        "paired_wall_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "ratio_range": [min(ratios), max(ratios)] if ratios else None,
        "after_start_ratio": round(statistics.median(after_start), 3) if after_start else None,
        **{
            f"{mode}_{key}": median(mode, key)
            for mode in ("single", "multi")
            for key in ("wall_s", "first_model_call_s", "cited_sources")
        },
        "load": round(statistics.mean(loads), 2) if loads else None,
        "load_range": [min(loads), max(loads)] if loads else None,
    }


def _ratios(single: dict[str, Any], multi: dict[str, Any]) -> dict[str, float]:
    """Multi's wall over single's, whole and past the start-up: from the first model call to
    the end (the imports before it are the same code on both sides, and the noisiest part under
    load). Nothing when either run failed."""
    if single["exit"] != 0 or multi["exit"] != 0:
        return {}
    ratios = {"wall_ratio": round(multi["wall_s"] / single["wall_s"], 3)}
    if single["first_model_call_s"] is not None and multi["first_model_call_s"] is not None:
        after = single["wall_s"] - single["first_model_call_s"]
        ratios["after_start_ratio"] = round(
            (multi["wall_s"] - multi["first_model_call_s"]) / after, 3
        )
    return ratios

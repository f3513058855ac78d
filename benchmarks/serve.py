"""Throughput of `serve`: 1, 4 and 8 standard multi runs at once through its HTTP API.

The server runs in a thread of this process (uvicorn, as `research-studio serve` runs it), so
scripted models with simulated latency answer its runs; the local web serves search and pages.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

from benchmarks.harness import QUERIES, Latency, settings_file
from benchmarks.process_tree import measured
from research_studio.faces.web import ServeSettings, create_app

STEPS = (1, 4, 8)
QUICK_STEPS = (1, 2)
ENDED = ("completed", "failed", "cancelled", "interrupted")


class _Server:
    """uvicorn serving the web app on a free loopback port, in a thread."""

    def __init__(self, settings: ServeSettings) -> None:
        config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=0, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        for _ in range(3000):
            if self.server.started:
                port = self.server.servers[0].sockets[0].getsockname()[1]
                return f"http://127.0.0.1:{port}"
            time.sleep(0.01)
        raise RuntimeError("the bench's server did not start")

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


def _batch(client: httpx.Client, count: int, latency: Latency, tag: str) -> dict[str, Any]:
    """Start `count` runs at once and wait for all of them; wall time and how they ended."""
    ids = []
    started = time.monotonic()
    for index in range(count):
        model = ResearchScript(coverage=[0.9], ready=[True]).model(
            latency_s=latency.llm_s, latency_per_token_s=latency.llm_per_token_s
        )
        spec = use_scripted_model(model, name=f"bench-serve-{tag}-{index}")
        response = client.post(
            "/api/runs",
            json={
                "question": QUERIES[index % len(QUERIES)],
                "model": spec,
                "max_iterations": 1,
                "no_clarify": True,
            },
        )
        response.raise_for_status()
        ids.append(response.json()["run_id"])
    statuses: dict[str, str] = {}
    while len(statuses) < count:
        time.sleep(0.1)
        for run_id in ids:
            if run_id not in statuses:
                status = client.get(f"/api/runs/{run_id}").json()["status"]
                if status in ENDED:
                    statuses[run_id] = status
    wall = time.monotonic() - started
    completed = sum(1 for status in statuses.values() if status == "completed")
    return {"wall_s": round(wall, 3), "completed": completed}


def run_serve(latency: Latency, workers: int, steps: tuple[int, ...] = STEPS) -> dict[str, Any]:
    """Runs/min and peak PSS at each number of concurrent standard multi runs."""
    rows: dict[str, dict[str, Any]] = {}
    with FakeWeb() as web, tempfile.TemporaryDirectory() as tmp:
        web.search_latency_s = latency.search_s
        web.page_latency_s = latency.page_s
        settings = ServeSettings(config_file=settings_file(Path(tmp), web, workers))
        with _Server(settings) as url, httpx.Client(base_url=url, timeout=60) as client:
            _batch(client, 1, latency, "warm")  # imports, parser workers: not a step's cost
            for count in steps:
                with measured() as usage:
                    batch = _batch(client, count, latency, str(count))
                rows[str(count)] = {
                    "runs": count,
                    **batch,
                    "runs_per_min": round(count / batch["wall_s"] * 60, 2),
                    "cpu_s": usage.cpu_s,
                    "peak_pss_mb": usage.peak_pss_mb,
                    "load": usage.load,
                }
    one = rows[str(steps[0])]
    for row in rows.values():
        row["ratio_to_one"] = round(row["runs_per_min"] / one["runs_per_min"], 2)
    last = rows[str(steps[-1])]
    extra = last["runs"] - one["runs"]
    growth = (last["peak_pss_mb"] - one["peak_pss_mb"]) / extra if extra else 0.0
    return {
        "latency": vars(latency),
        "workers": workers,
        "steps": rows,
        # The target reads the row of 8 runs at once by its key: a quick bench (1 and 2 at
        # once) has no such row, so its 2-at-once ratio is never reported as the 8-at-once one.
        "most": last["runs"],
        "pss_growth_per_run_mb": round(growth, 1),
        "load": last["load"],
    }

"""The fault suite: seeded runs through the CLI against a breaking model server and a broken web.

Every run must end with a report, and every loss must be on record: each fault the model
stand-in injected is a model call that went wrong, each broken page that was requested is an
error with that page as its target, and the report says what it lost.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.doubles.fake_chat import ChatFaults
from tests.doubles.fake_web import FakeWeb, Fault
from tests.doubles.research_script import ResearchScript
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e
runner = CliRunner()
SHAPES = [
    ["--pipeline", "standard"],
    ["--pipeline", "standard", "--single-agent"],
    ["--pipeline", "advanced"],
]
QUERIES = [
    "coral bleaching heat stress",
    "solid-state battery energy density",
    "coral reef recovery",
]
PAGES = [
    "coral-bleaching-causes",
    "global-bleaching-event-2024",
    "great-barrier-reef-2024-survey",
    "degree-heating-weeks-explained",
    "solid-state-energy-density",
    "solid-state-electrolytes-explained",
    "lithium-dendrites-solid-state",
    "automaker-solid-state-timelines",
]
PAGE_FAULTS = [
    Fault("status", status=500),
    Fault("status", status=404),
    Fault("status", status=402),
    Fault("binary"),
    Fault("timeout", delay_s=1.5),
]


@pytest.mark.parametrize("seed", range(20))
def test_a_seeded_faulty_run_ends_with_a_report_and_records_every_loss(
    seed: int, web: FakeWeb, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    chance = random.Random(seed)
    web.chat.responder = ResearchScript(coverage=[0.9], ready=[True]).chat_responder()
    web.chat.faults = ChatFaults(rate=0.3, seed=seed, slow_s=0.2, retry_after_s=0.01)
    broken = {web.page(slug).path: chance.choice(PAGE_FAULTS) for slug in chance.sample(PAGES, 3)}
    for path, fault in broken.items():
        web.set_fault(path, fault)
    if seed % 4 == 0:
        web.set_fault("/search", Fault("status", status=503, times=1))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", web.url("/v1"))
    monkeypatch.setenv("RESEARCH_STUDIO_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("RESEARCH_STUDIO_SEARCH_RETRIES", "0")
    monkeypatch.setenv("RESEARCH_STUDIO_FETCH_TIMEOUT_S", "1.0")
    result = run_cli(
        web,
        "run",
        QUERIES[seed % len(QUERIES)],
        *SHAPES[seed % len(SHAPES)],
        "--out",
        "run",
        "--iterations",
        "1",
        model="openai:fake-model",
    )
    assert result.exit_code == 0, result.output
    folder = tmp_path / "run"
    report = (folder / "report.md").read_text()
    document = json.loads((folder / "result.json").read_text())
    assert report.startswith("# ") and document["report"] == report
    metadata = document["metadata"]
    injected = [kind for kind in web.chat.injected if kind != "slow"]
    assert sum(metadata["llm_faults_by_kind"].values()) == len(injected)
    targets = {error["target"] for error in metadata["errors"]}
    for path in broken:
        if web.requests_to(path):
            assert any(target.endswith(path) for target in targets), path
    if metadata["errors"]:
        assert "## Limitations of this run" in report

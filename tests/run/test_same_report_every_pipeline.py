"""Same inputs, same report on the supervisor and over later subagent rounds: pages found by
parallel researchers, or by subagents in their second round, are shared out in plan order, not
in the order the searches happen to answer (services.claims.PageShares)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.helpers import run_cli
from tests.run.test_audit_outputs import _delays

QUERY = "coral bleaching heat stress"
# Its researchers' searches differ in one word: they find the same pages, and race for them.
CONTESTED = "coral reef bleaching heat stress"


def _two_rounds() -> Any:
    """Subagents unsure after their first round (confidence 0.5): each refines and searches again."""
    return ResearchScript(subagent_confidence=[0.5])


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("args", "script"),
    [
        (["--pipeline", "supervisor"], lambda: SupervisorScript(topics=3)),
        (["--pipeline", "advanced", "--iterations", "1"], _two_rounds),
    ],
)
def test_reversed_search_timing_gives_the_same_report(
    web: FakeWeb,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    script: Callable[[], Any],
) -> None:
    # One page per search: pages several searches found are left for later rounds and peers.
    monkeypatch.setenv("RESEARCH_STUDIO_PAGES_PER_SEARCH", "1")
    reports = []
    for order, out in enumerate(("first", "second")):
        web.search_delay = _delays(order)
        web.clear_requests()
        query = CONTESTED if "supervisor" in args else QUERY
        result = run_cli(
            web, "run", query, "--out", out, "--no-cache", *args, model=script().model()
        )
        assert result.exit_code == 0, result.output
        reports.append((tmp_path / out / "report.md").read_text())
        queries = [request.query.get("q", "") for request in web.requests_to("/search")]
        if "advanced" in args:  # the second subagent round did search
            assert any(query.endswith("refined") for query in queries), queries
    assert reports[0] == reports[1]
    assert "[S1]" in reports[0]


@pytest.mark.e2e
async def test_each_supervisor_researcher_reads_the_same_pages_whatever_the_timing(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    """Researchers of a round whose searches find the same pages get them by their order in
    the round, not by whose search answered first: each one's findings are the same."""
    notes = []
    for order in (0, 1):
        web.search_delay = _delays(order)
        script = SupervisorScript(topics=3)
        config = make_config(model=use_scripted_model(script.model()), pages_per_search=1)
        state = await full_state("supervisor", {"query": CONTESTED}, config, store=InMemoryStore())
        notes.append(state["notes"])
    assert len(notes[0]) == 3 and notes[0] == notes[1]

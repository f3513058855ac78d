"""Standard multi writes its report in parts at once; single writes it alone.

Through the compiled graph, with the research script as every writer: what is asserted is what
code does with the parts (who gets which evidence, when they are asked, how their drafts are
joined), never what the script writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.pipelines.standard.finish import WRITERS_AT_ONCE
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedRequest

pytestmark = pytest.mark.e2e
RunPipeline = Callable[..., Any]
QUERY = "coral bleaching heat stress and reef recovery"


def listed_ids(prompt: str) -> set[str]:
    """The evidence ids a writer was given (its prompt's list of ids it may use)."""
    line = next(line for line in prompt.splitlines() if "Use only these ids:" in line)
    return {part.strip(" .") for part in line.split("Use only these ids:")[1].split(",")}


async def test_multi_writers_share_the_evidence_and_write_at_once(
    run_pipeline: RunPipeline,
) -> None:
    model = ResearchScript().model(latency_s=0.2)
    state, _ = await run_pipeline(QUERY, mode="multi", max_subagents=4, chat_model=model)
    writers = model.calls_for("ReportDraft")
    assert len(writers) == WRITERS_AT_ONCE
    shares = [listed_ids(call.prompt) for call in writers]
    assert not set.intersection(*shares)  # no item is given to two writers
    assert set.union(*shares) >= {s["supporting_eids"][0] for s in state["claims"] if s["verified"]}
    # Asked at once: each writer was asked before any other answered.
    assert max(call.started for call in writers) < min(call.ended for call in writers)
    # The joined report: one section per heading, the writers' statements all grounded.
    headings = [line for line in state["report"].splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings))
    assert state["metadata"]["llm_calls_by_node"]["write_report"] == WRITERS_AT_ONCE


async def test_single_writes_alone(run_pipeline: RunPipeline) -> None:
    state, model = await run_pipeline(QUERY, mode="single")
    [writer] = model.calls_for("ReportDraft")
    assert "writers at the same time" not in writer.prompt
    assert state["statements"]


async def test_a_writer_that_fails_leaves_the_others_part(run_pipeline: RunPipeline) -> None:
    script = ResearchScript()
    model = script.model()
    first_part = script.responders()["ReportDraft"]

    def second_fails(request: ScriptedRequest) -> Any:
        if "You write part 2" in request.prompt:
            raise RuntimeError("the writer's connection dropped")
        return first_part(request.prompt)

    model.script("ReportDraft", second_fails)
    state, _ = await run_pipeline(QUERY, mode="multi", max_subagents=4, chat_model=model)
    assert state["statements"] and state["metadata"]["cited_sources"] >= 1
    assert any(error["node"] == "write_report" for error in state["metadata"]["errors"])
    limitations = state["report"].split("## Limitations", 1)[1]
    assert "write_report" in limitations or "writer" in limitations.lower(), limitations

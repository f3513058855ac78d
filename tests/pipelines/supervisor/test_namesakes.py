"""The supervisor pipeline never merges namesakes: where no one can be asked which Jane Roe is
meant, code takes the likeliest reading its clarification options name, the brief is written
for it, the report opens by saying so, result.json records it, and code keeps the stored
sources only about the other Jane Roe out (the scripted model only offers the options).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.pipelines.advanced.test_discovery import documents
from tests.pipelines.advanced.test_namesakes import (
    NOTICE,
    QUERY,
    READINGS,
    about_the_economist,
    opens_with_the_choice,
    run_without_a_terminal,
)

pytestmark = pytest.mark.e2e


def script(options: list[str] | None = READINGS) -> SupervisorScript:
    return SupervisorScript(ambiguous=True, clarification_options=options)


def cited_urls(state: dict[str, Any]) -> set[str]:
    by_sid = {source["sid"]: source["url"] for source in state["sources"]}
    return {by_sid[sid] for statement in state["statements"] for sid in statement["sids"]}


async def test_the_supervisor_that_cannot_ask_takes_the_likeliest_and_keeps_the_other_out(
    run_supervisor: Callable[..., Any], tmp_path: Path
) -> None:
    state, model = await run_supervisor(
        script(), query=QUERY, search="local", docs=[documents(tmp_path / "docs")]
    )
    assert state["user_clarification"] == READINGS[0]
    # The brief was written for the reading taken, and the painter's page was read.
    [brief, *_] = model.calls_for("ResearchQuestion")
    assert "Amherst College" in brief.prompt
    assert any("painter" in source["url"] for source in state["source_store"])
    # Code left it out: nothing the report cites or lists is about the painter.
    assert about_the_economist(state["sources"]), state["sources"]
    assert cited_urls(state) and not any("painter" in url for url in cited_urls(state))
    assert opens_with_the_choice(state["report"]), state["report"][:600]
    assert "Someone else" not in state["report"].split("[S", 1)[0]
    assert state["metadata"]["referent_assumed"] == READINGS[0]
    assert NOTICE in state["metadata"]["reading_assumed"]


async def test_options_that_only_ask_for_details_are_said_to_leave_the_question_open(
    run_supervisor: Callable[..., Any], tmp_path: Path
) -> None:
    state, _ = await run_supervisor(
        script(["Specify the field", "Provide the institution"]),
        query=QUERY,
        search="local",
        docs=[documents(tmp_path / "docs")],
    )
    assert state["user_clarification"] == ""
    opening = state["report"].split("\n", 1)[1].split("[S", 1)[0]
    assert "can be read more than one way" in opening and "as written" in opening, opening
    assert state["metadata"]["referent_assumed"] == ""


def test_the_supervisor_cli_without_a_terminal_names_the_pick(web: FakeWeb, tmp_path: Path) -> None:
    spec = use_scripted_model(script().model())
    _output, document = run_without_a_terminal("supervisor", spec, tmp_path)
    assert opens_with_the_choice(document["report"]), document["report"][:600]
    assert about_the_economist(document["sources"]), document["sources"]
    assert document["metadata"]["referent_assumed"] == READINGS[0]

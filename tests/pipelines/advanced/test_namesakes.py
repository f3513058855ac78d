"""Namesakes are never merged, on every path of the advanced family: a path that can ask asks;
one that cannot picks the most likely referent, says so at the top of the report, and code keeps
the sources about the others out (the scripted model excludes none: filter_same_name=False).

Two Jane Roes (tests/pipelines/advanced/test_discovery.py): an economist at Amherst College, the
likelier reading, and a landscape painter in Ohio, with pages about each in a documents folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.faces.cli import app
from research_studio.pipelines.advanced.graph import build_optimized_graph
from research_studio.services.clients import open_services
from tests.conftest import full_state
from tests.doubles.advanced_script import FamilyKnobs
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.faces.test_mcp_server import _session, _structured
from tests.pipelines.advanced.test_discovery import ECONOMIST, PAINTER, documents, run_graph

pytestmark = pytest.mark.e2e
QUERY = "Who is Jane Roe?"
NOTICE = 'More than one "Jane Roe" was found, and no one could be asked which was meant'


def script(query_type: str = "person") -> ResearchScript:
    """The model types the subject as `query_type` and finds both Jane Roes, about as likely."""
    return ResearchScript(
        coverage=[0.9],
        ready=[True],
        family=FamilyKnobs(
            subject="Jane Roe",
            query_type=query_type,
            subject_kind=query_type,
            candidates=[ECONOMIST, PAINTER],
            filter_same_name=False,
            complexity="simple",
        ),
    )


def opens_with_the_choice(report: str) -> bool:
    """The notice comes before any finding: right after the title."""
    body = report.split("\n", 1)[1]
    return body.find(NOTICE) != -1 and body.find(NOTICE) < body.find("[S")


def about_the_economist(sources: list[dict[str, Any]]) -> bool:
    return bool(sources) and all("amherst" in s["url"] or "research" in s["url"] for s in sources)


def run_without_a_terminal(pipeline: str, spec: str, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    """`research-studio run` of the query over the two Jane Roes' documents, as a user runs it
    with no terminal to answer: its output and its result.json."""
    docs = documents(tmp_path / "docs")
    result = CliRunner().invoke(
        app,
        ["run", QUERY, "--pipeline", pipeline, "--out", "out", "--model", spec,
         "--search", "local", "--docs", str(docs)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output, json.loads((tmp_path / "out" / "result.json").read_text())


@pytest.mark.parametrize("query_type", ["other", "concept", "person"])
async def test_the_fast_path_asks_which_namesake_whatever_type_the_subject_was_given(
    make_config: Callable[..., Configuration], tmp_path: Path, query_type: str
) -> None:
    model = script(query_type).model()
    config = make_config(
        model=use_scripted_model(model), search="local", docs=[documents(tmp_path / "docs")]
    )
    graph = build_optimized_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=True)
    async with open_services(config):
        state, steps, paused = await run_graph(graph, config, {"query": QUERY})
    assert state["fast_path"] and paused == ("clarify",), steps
    assert "planner" not in steps and len(state["clarification_options"]) == 2


async def test_the_fast_path_that_cannot_ask_picks_the_likelier_and_keeps_the_other_out(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    model = script("other").model()
    config = make_config(
        model=use_scripted_model(model), search="local", docs=[documents(tmp_path / "docs")]
    )
    state = await full_state("advanced-optimized", {"query": QUERY}, config)  # never pauses
    assert state["selected_entity"]["description"] == ECONOMIST["description"]
    # The painter's page was read and found, and code (not the model) left it out.
    assert any("painter" in page["url"] for page in state["pages"])
    assert about_the_economist(state["sources"]), state["sources"]
    assert state["sources_excluded"]
    assert opens_with_the_choice(state["report"]), state["report"][:600]
    assert "Landscape painter in Ohio" in state["report"].split("[S", 1)[0]


def test_the_cli_without_a_terminal_picks_the_likelier_and_says_so(
    web: FakeWeb, tmp_path: Path
) -> None:
    spec = use_scripted_model(script("person").model())
    output, document = run_without_a_terminal("advanced-full", spec, tmp_path)
    assert "continuing without asking" in output
    assert opens_with_the_choice(document["report"]), document["report"][:600]
    assert about_the_economist(document["sources"]), document["sources"]
    assert document["metadata"]["referent_assumed"] == "Jane Roe"


async def test_mcp_cannot_ask_so_it_picks_the_likelier_and_says_so(
    web: FakeWeb, tmp_path: Path
) -> None:
    web.chat.responder = script("other").chat_responder()
    docs = documents(tmp_path / "docs")
    async with _session(web, tmp_path) as session:
        result = await session.call_tool(
            "research",
            {
                "question": QUERY,
                "pipeline": "advanced-optimized",
                "docs": [str(docs)],
                "search": "local",
            },
            read_timeout_seconds=180,
        )
    answer = _structured(result)
    assert answer["status"] == "completed"
    assert opens_with_the_choice(answer["report"]), answer["report"][:600]
    assert about_the_economist(answer["sources"]), answer["sources"]


# V9 (`advanced`): its analyzer offers clarification options, not discovery candidates. Code
# tells options that name a reading from options that ask for a detail.

READINGS = [
    "Jane Roe, professor of economics at Amherst College",
    "Jane Roe, landscape painter in Ohio",
    "Someone else (please specify)",
]


def v9_script(options: list[str] | None) -> ResearchScript:
    """The V9 analyzer finds "Who is Jane Roe?" ambiguous and offers `options`."""
    return ResearchScript(
        ambiguous=True,
        clarification_options=options,
        coverage=[0.9],
        ready=[True],
        family=FamilyKnobs(subject="Jane Roe"),
    )


async def test_v9_that_cannot_ask_takes_the_first_reading_and_keeps_the_other_out(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    model = v9_script(READINGS).model()
    config = make_config(
        model=use_scripted_model(model), search="local", docs=[documents(tmp_path / "docs")]
    )
    state = await full_state("advanced", {"query": QUERY}, config)  # never pauses
    assert "Amherst College" in state["selected_entity"]["identifiers"]
    # The painter's page was read, and code (the scripted model excludes nothing) left it out.
    assert any("painter" in page["url"] for page in state["pages"])
    assert about_the_economist(state["sources"]), state["sources"]
    assert any("painter" in sid_url for sid_url in _excluded_urls(state))
    assert opens_with_the_choice(state["report"]), state["report"][:600]
    notice = state["report"].split("[S", 1)[0]
    assert "landscape painter in Ohio" in notice and "please specify" not in notice
    assert state["metadata"]["referent_assumed"] == "Jane Roe"
    assert "Amherst College" in state["metadata"]["reading_assumed"]


def _excluded_urls(state: dict[str, Any]) -> list[str]:
    """The URLs of the sources code left out (their sids were fixed before the trust engine)."""
    urls = {page["url"] for page in state["pages"]}
    kept = {source["url"] for source in state["sources"]}
    return sorted(urls - kept) if state["sources_excluded"] else []


def test_v9_cli_with_only_prompts_for_details_says_the_question_was_ambiguous(
    web: FakeWeb, tmp_path: Path
) -> None:
    """Options that only ask for a detail name no reading: the query is researched as the
    analyzer understood it, and the report opens by saying so."""
    spec = use_scripted_model(v9_script(None).model())  # "Specify the university", ...
    _output, document = run_without_a_terminal("advanced", spec, tmp_path)
    opening = document["report"].split("\n", 1)[1].split("[S", 1)[0]
    assert "can be read more than one way" in opening, opening
    assert "no one could be asked" in opening and "as written" in opening
    assert "Specify the university" not in opening.split("this report researches", 1)[1]
    assert document["metadata"]["referent_assumed"] == ""
    assert "can be read more than one way" in document["metadata"]["reading_assumed"]


def test_v9_cli_without_a_terminal_names_the_pick_in_result_json(
    web: FakeWeb, tmp_path: Path
) -> None:
    spec = use_scripted_model(v9_script(READINGS).model())
    _output, document = run_without_a_terminal("advanced", spec, tmp_path)
    assert opens_with_the_choice(document["report"]), document["report"][:600]
    assert about_the_economist(document["sources"]), document["sources"]
    assert "Amherst College" in document["metadata"]["reading_assumed"]


async def test_mcp_v9_cannot_ask_so_it_picks_the_first_reading_and_says_so(
    web: FakeWeb, tmp_path: Path
) -> None:
    web.chat.responder = v9_script(READINGS).chat_responder()
    docs = documents(tmp_path / "docs")
    async with _session(web, tmp_path) as session:
        result = await session.call_tool(
            "research",
            {"question": QUERY, "pipeline": "advanced", "docs": [str(docs)], "search": "local"},
            read_timeout_seconds=180,
        )
    answer = _structured(result)
    assert answer["status"] == "completed"
    assert opens_with_the_choice(answer["report"]), answer["report"][:600]
    assert about_the_economist(answer["sources"]), answer["sources"]

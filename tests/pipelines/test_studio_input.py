"""What LangGraph Studio or the SDK may send a graph by mistake: a wrong knob in the run's
context or an unknown mode fails in one line naming it, before any model call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.pipelines.registry import compile_pipeline
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

PIPELINES = ("standard", "advanced", "supervisor")


@pytest.mark.parametrize("pipeline", PIPELINES)
@pytest.mark.parametrize(
    ("context", "named"),
    [
        ({"max_iterations": 0}, "max_iterations (context): Input should be greater than"),
        ({"max_iterations": "many"}, "max_iterations (context): Input should be a valid integer"),
        ({"search": "google"}, "search (context): Input should be 'tavily'"),
        ({"temperature": 3}, "temperature (context): Input should be less than or equal to 2"),
    ],
)
async def test_a_wrong_knob_in_the_run_context_fails_in_one_line(
    pipeline: str, context: dict[str, Any], named: str
) -> None:
    graph = compile_pipeline(pipeline, None, False)
    with pytest.raises(ResearchStudioError) as raised:
        await graph.ainvoke({"query": "coral reef recovery"}, context=context)
    message = str(raised.value)
    assert message.startswith("invalid configuration: ") and named in message
    assert "\n" not in message and "errors.pydantic.dev" not in message


@pytest.mark.parametrize("pipeline", PIPELINES)
async def test_an_unknown_mode_is_refused_before_any_model_call(
    pipeline: str, make_config: Callable[..., Configuration]
) -> None:
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1)
    async with open_services(config):
        with pytest.raises(ResearchStudioError) as raised:
            await compile_pipeline(pipeline, None, False).ainvoke(
                {"query": "coral reef recovery", "mode": "fast"}, context=config
            )
    assert str(raised.value) == "unknown mode 'fast': use 'single' or 'multi'"
    assert not model.calls


@pytest.mark.parametrize("pipeline", PIPELINES)
async def test_a_second_question_on_a_finished_thread_asks_for_a_new_thread(
    pipeline: str, make_config: Callable[..., Configuration]
) -> None:
    """Studio's chat, a second message: not the old question researched again, its report kept."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1)
    graph = compile_pipeline(pipeline, InMemorySaver(), False)
    thread: Any = {"configurable": {"thread_id": "chat"}}
    async with open_services(config):
        first = await graph.ainvoke(
            {"messages": [HumanMessage("coral reef recovery")]}, thread, context=config
        )
        calls = len(model.calls)
        with pytest.raises(ResearchStudioError) as raised:
            await graph.ainvoke(
                {"messages": [HumanMessage("heat pumps in cold climates")]}, thread, context=config
            )
        kept = (await graph.aget_state(thread)).values
    assert str(raised.value) == (
        "this thread already holds a finished run: start a new thread for a new question"
    )
    assert len(model.calls) == calls
    assert kept["report"] == first["report"] and kept["query"] == "coral reef recovery"

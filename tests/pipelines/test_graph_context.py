"""A LangGraph server's client sends a graph its context as a dict and its question unchecked:
a mistake in either is one line before any model is asked, through every registered graph."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.pipelines.registry import graph_builder, names
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model


@pytest.mark.parametrize("name", names())
@pytest.mark.parametrize(
    ("context", "said"),
    [
        ({"max_iterations": "many"}, "max_iterations (context): Input should be a valid integer"),
        ({"bogus": 1}, "unknown setting 'bogus' (context)"),
        ({"temperature": [0.2]}, "temperature (context): Input should be a valid number"),
    ],
)
async def test_a_wrong_context_value_is_one_line(
    name: str, context: dict[str, object], said: str
) -> None:
    graph = graph_builder(name)(checkpointer=None, interrupt_on_clarify=False)
    with pytest.raises(ConfigError) as raised:
        await graph.ainvoke({"query": "coral bleaching"}, context=context)
    assert str(raised.value) == f"invalid configuration: {said}" or said in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("name", names())
async def test_a_question_longer_than_max_query_chars_asks_no_model(name: str) -> None:
    model = ResearchScript().model()
    context = {"model": use_scripted_model(model), "max_query_chars": 50}
    graph = graph_builder(name)(checkpointer=None, interrupt_on_clarify=False)
    with pytest.raises(
        ResearchStudioError, match="the question is 59 characters long; the limit is 50"
    ):
        await graph.ainvoke({"query": "coral " * 10}, context=context)
    assert not model.calls


@settings(max_examples=25, deadline=None)
@given(
    context=st.dictionaries(
        st.sampled_from(["max_iterations", "temperature", "model", "language", "since", "x"]),
        st.none() | st.integers() | st.floats() | st.text(max_size=8) | st.lists(st.integers()),
        max_size=3,
    )
)
async def test_any_context_is_taken_or_refused_in_one_line(context: dict[str, object]) -> None:
    """Context values of any type: refused in one line, or taken (the question, empty here,
    then refused in one line)."""
    graph = graph_builder("standard")(checkpointer=None, interrupt_on_clarify=False)
    with pytest.raises(ResearchStudioError) as raised:
        await graph.ainvoke({"query": "  "}, context=context)
    assert "\n" not in str(raised.value)

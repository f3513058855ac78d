"""What LangGraph Studio or the SDK may send a graph by mistake: a wrong knob in the run's
context or an unknown mode fails in one line naming it, before any model call."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from research_studio.core.config import SECRET_FIELDS, Configuration
from research_studio.core.declarations import WIDENING
from research_studio.core.errors import ResearchStudioError
from research_studio.pipelines.registry import compile_pipeline, names
from research_studio.services.clients import open_services
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript

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


# Per pipeline: its ambiguous script, the question, the answer typed, the model call that
# first carries the answer, and the one that asks the question.
ASKING = {
    "standard": (
        lambda: ResearchScript(ambiguous=True),
        "python",
        "The programming language",
        "ResearchPlan",
        "Understanding",
    ),
    "advanced": (
        lambda: ResearchScript(ambiguous=True, coverage=[0.9], ready=[True]),
        "John Smith professor",
        "MIT, computer science",
        "PlanOutput",
        "QueryAnalysisOutput",
    ),
    "supervisor": (
        lambda: SupervisorScript(ambiguous=True),
        "python",
        "The snake",
        "ResearchQuestion",
        "ClarifyWithUser",
    ),
}


@pytest.mark.parametrize("pipeline", PIPELINES)
async def test_a_chat_message_to_a_thread_asking_its_question_answers_it(
    pipeline: str, make_config: Callable[..., Configuration]
) -> None:
    """Studio's chat: the answer typed as the next message, not the question asked again."""
    from langgraph.checkpoint.memory import InMemorySaver

    script, question, answer, carries, asks = ASKING[pipeline]
    model = script().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1)
    graph = compile_pipeline(pipeline, InMemorySaver(), True)
    thread: Any = {"configurable": {"thread_id": "chat"}}
    async with open_services(config):
        await graph.ainvoke(
            {"messages": [{"role": "user", "content": question}]}, thread, context=config
        )
        paused = await graph.aget_state(thread)
        assert paused.next == ("clarify",) and paused.values["clarification_question"]
        await graph.ainvoke(
            {"messages": [{"role": "user", "content": f"  {answer}\n"}]}, thread, context=config
        )
        state = await graph.aget_state(thread)
    assert state.next == () and state.values["report"]
    assert state.values["user_clarification"] == answer
    assert state.values["query"] == question
    assert len(model.calls_for(asks)) == 1, "the question was asked once"
    assert answer in model.calls_for(carries)[0].prompt
    said = [m for m in state.values["messages"] if m.type == "human" and answer in m.text]
    assert len(said) == 1, "the answer is in the thread's messages once"


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(typed=st.text(min_size=1, max_size=200).filter(str.strip))
async def test_any_text_typed_as_the_answer_is_taken_as_written(
    typed: str, make_config: Callable[..., Configuration]
) -> None:
    """Whatever a person types (markup, braces, other scripts) is the answer, stripped."""
    from langgraph.checkpoint.memory import InMemorySaver

    model = ResearchScript(ambiguous=True).model()
    config = make_config(model=use_scripted_model(model), max_iterations=1)
    graph = compile_pipeline("standard", InMemorySaver(), True)
    thread: Any = {"configurable": {"thread_id": "typed"}}
    async with open_services(config):
        await graph.ainvoke({"messages": [("user", "python")]}, thread, context=config)
        await graph.ainvoke({"messages": [("user", typed)]}, thread, context=config)
        state = await graph.aget_state(thread)
    assert state.next == () and state.values["user_clarification"] == typed.strip()


@pytest.mark.parametrize("pipeline", names())
def test_studio_offers_every_setting_but_no_api_key(pipeline: str) -> None:
    """A key typed in Studio would be stored with the run: the context schema has none."""
    schema = compile_pipeline(pipeline, None, False).get_context_jsonschema()
    assert schema is not None
    properties = schema["properties"]
    assert SECRET_FIELDS and not SECRET_FIELDS & set(properties)
    # Nor an endpoint, a command to launch (MCP servers) or a folder: the server's to choose.
    assert set(properties) == set(Configuration.model_fields) - WIDENING
    iterations = properties["max_iterations"]
    assert (iterations["minimum"], iterations["maximum"]) == (1, 20)
    assert iterations["description"] == "Research loop iterations."


@pytest.mark.parametrize("secret", sorted(WIDENING))
async def test_an_api_key_in_a_run_context_is_refused_in_one_line(secret: str) -> None:
    graph = compile_pipeline("standard", None, False)
    with pytest.raises(ResearchStudioError) as raised:
        await graph.ainvoke({"query": "coral reef recovery"}, context={secret: "sk-typed"})
    message = str(raised.value)
    assert message.startswith(f"invalid configuration: {secret} (context): not taken from a run")
    assert "\n" not in message and "sk-typed" not in message


async def test_a_server_run_takes_its_key_from_the_environment(
    web: FakeWeb, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As `langgraph dev` runs a graph: a context of knobs only, the key from the environment."""
    monkeypatch.chdir(tmp_path)  # no research-studio.toml
    monkeypatch.delenv("RESEARCH_STUDIO_CONFIG", raising=False)
    for name, value in {
        "OPENAI_API_KEY": "sk-from-env",
        "OPENAI_BASE_URL": web.url("/v1"),
        "SEARXNG_URL": web.base_url,
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "RESEARCH_STUDIO_CACHE_DIR": str(tmp_path / "cache"),
        "RESEARCH_STUDIO_RUNS_DIR": str(tmp_path / "runs"),
    }.items():
        monkeypatch.setenv(name, value)
    web.chat.responder = ResearchScript().chat_responder()
    graph = compile_pipeline("standard", None, False)
    context = {"model": "openai:fake-model", "search": "searxng", "max_iterations": 1}
    output = await graph.ainvoke({"query": "coral reef recovery"}, context=context)
    assert output["report"]
    calls = web.requests_to("/v1/chat")
    assert calls and all(r.headers["authorization"] == "Bearer sk-from-env" for r in calls)


EDITED = ["How hot must water get for corals to bleach?", "Do bleached reefs recover?"]


def _plan_of(pipeline: str, values: dict[str, Any]) -> list[str]:
    if pipeline == "standard":
        return list(values["research_questions"])
    return [node["question"] for node in values["plan"]["primary"]]


@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
@pytest.mark.parametrize("reply", ["approve", "\n".join(f"- {q}" for q in EDITED)])
async def test_a_chat_message_to_a_thread_showing_its_plan_is_the_reply_to_it(
    pipeline: str, reply: str, make_config: Callable[..., Configuration]
) -> None:
    """Studio's chat at plan review: the reply approves or edits the plan, as `plan_feedback`
    written to the thread does, and the thread does not start over."""
    from langgraph.checkpoint.memory import InMemorySaver

    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1, review_plan=True)
    graph = compile_pipeline(pipeline, InMemorySaver(), True)
    thread: Any = {"configurable": {"thread_id": "chat"}}
    question = "coral bleaching heat stress"
    async with open_services(config):
        await graph.ainvoke(
            {"messages": [{"role": "user", "content": question}]}, thread, context=config
        )
        paused = await graph.aget_state(thread)
        assert paused.next == ("review_plan",) and not paused.values.get("report")
        planned = _plan_of(pipeline, paused.values)
        await graph.ainvoke(
            {"messages": [{"role": "user", "content": reply}]}, thread, context=config
        )
        state = await graph.aget_state(thread)
    values = state.values
    assert state.next == () and values["report"] and not values.get("plan_feedback")
    assert values["query"] == question
    assert _plan_of(pipeline, values) == (planned if reply == "approve" else EDITED)
    _, _, _, plans, understands = ASKING[pipeline]
    assert len(model.calls_for(understands)) == len(model.calls_for(plans)) == 1, "no new start"
    assert [m.text for m in values["messages"] if m.type == "human"].count(reply) == 1


async def test_chat_messages_answer_the_supervisors_reviews(
    make_config: Callable[..., Configuration],
) -> None:
    """Studio's chat at the supervisor's review pauses (review_mode=full): the brief approved,
    the report sent back with feedback, then approved, each a chat message on the thread."""
    from langgraph.checkpoint.memory import InMemorySaver

    model = SupervisorScript().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1, review_mode="full")
    graph = compile_pipeline("supervisor", InMemorySaver(), True)
    thread: Any = {"configurable": {"thread_id": "chat"}}
    feedback = "Say more about how reefs recover."
    waits = []
    async with open_services(config):
        for text in ("coral bleaching heat stress", "approve", feedback, "ok"):
            await graph.ainvoke(
                {"messages": [{"role": "user", "content": text}]}, thread, context=config
            )
            paused = await graph.aget_state(thread)
            waits.append([i.value["kind"] for task in paused.tasks for i in task.interrupts])
    values = paused.values
    assert waits == [["brief_review"], ["report_review"], ["report_review"], []]
    assert paused.next == () and values["report"]
    assert values["query"] == "coral bleaching heat stress"
    assert values["human_report_feedback"] == feedback and values["report_revisions"] == 1
    assert values["metadata"]["human_review"] == "approved"
    assert len(model.calls_for("ResearchQuestion")) == 1, "the brief was written once"


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(typed=st.text(min_size=1, max_size=200).filter(str.strip))
async def test_any_text_typed_as_the_plan_reply_is_taken_as_the_reply(
    typed: str, make_config: Callable[..., Configuration]
) -> None:
    """Whatever a person types at plan review is applied as the reply, never a new start."""
    from langgraph.checkpoint.memory import InMemorySaver

    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model), max_iterations=1, review_plan=True)
    graph = compile_pipeline("standard", InMemorySaver(), True)
    thread: Any = {"configurable": {"thread_id": "typed"}}
    async with open_services(config):
        await graph.ainvoke({"messages": [("user", "coral bleaching")]}, thread, context=config)
        await graph.ainvoke({"messages": [("user", typed)]}, thread, context=config)
        state = await graph.aget_state(thread)
    assert state.next == () and state.values["report"] and not state.values["plan_feedback"]
    assert state.values["query"] == "coral bleaching"
    assert len(model.calls_for("ResearchPlan")) == 1

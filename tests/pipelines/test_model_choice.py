"""One way to pick a node's model (a table per pipeline) and one helper for a call that may fail."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError, ModelError, ResearchStudioError
from research_studio.core.records import ErrorRecord
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.standard.models import STANDARD_MODELS
from research_studio.pipelines.supervisor.models import SUPERVISOR_MODELS
from research_studio.services.clients import Services
from tests.conftest import full_state
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

QUERY = "coral bleaching heat stress"


def scripted(name: str) -> str:
    return use_scripted_model(ResearchScript().model(), name=name)


def services(make_config: Callable[..., Configuration], **settings: object) -> Services:
    smart = use_scripted_model(ResearchScript().model(), name="smart")
    fast = use_scripted_model(ResearchScript().model(), name="fast")
    return Services(make_config(model=smart, fast_model=fast, **settings))


def test_a_table_entry_picks_the_tier_and_an_override_wins(
    make_config: Callable[..., Configuration],
) -> None:
    plain = services(make_config)
    assert model_for(plain, STANDARD_MODELS, "plan").spec == plain.config.model
    assert model_for(plain, ADVANCED_MODELS, "subagent").spec == plain.config.fast_model
    other = scripted("other")
    sent = services(make_config, model_overrides={"plan": other})
    assert model_for(sent, STANDARD_MODELS, "plan").spec == other


def test_a_role_uses_its_setting_then_its_tier_and_a_node_override_wins(
    make_config: Callable[..., Configuration],
) -> None:
    plain = services(make_config)
    brief = model_for(plain, SUPERVISOR_MODELS, "write_research_brief", role="summarization")
    assert brief.spec == plain.config.fast_model
    summaries, own = scripted("summaries"), scripted("brief")
    named = services(make_config, summarization_model=summaries)
    brief = model_for(named, SUPERVISOR_MODELS, "write_research_brief", role="summarization")
    assert brief.spec == summaries
    both = services(
        make_config,
        summarization_model=summaries,
        model_overrides={"write_research_brief": own},
    )
    assert (
        model_for(both, SUPERVISOR_MODELS, "write_research_brief", role="summarization").spec == own
    )


def test_a_node_missing_from_its_table_is_a_programming_error(
    make_config: Callable[..., Configuration],
) -> None:
    with pytest.raises(KeyError):
        model_for(services(make_config), STANDARD_MODELS, "no_such_node")


async def fails(exc: ResearchStudioError) -> str:
    raise exc


async def test_a_failed_call_is_kept_as_an_error_record() -> None:
    errors: list[ErrorRecord] = []
    answer = await attempt(
        fails(ModelError("server said 500", kind="server_error")), "plan", errors, target="q"
    )
    assert answer is None
    assert errors == [
        ErrorRecord(node="plan", kind="server_error", message="server said 500", target="q")
    ]
    assert await attempt(fails_not(), "plan", errors) == "fine" and len(errors) == 1


async def fails_not() -> str:
    return "fine"


async def test_a_first_call_fails_fast_on_a_permanent_error_and_keeps_only_provider_failures() -> (
    None
):
    errors: list[ErrorRecord] = []
    with pytest.raises(ModelError):
        await attempt(fails(ModelError("bad key", kind="auth")), "understand", errors, first=True)
    with pytest.raises(ConfigError):
        await attempt(fails(ConfigError("no model")), "understand", errors, first=True)
    assert (
        await attempt(
            fails(ModelError("busy", kind="rate_limited")), "understand", errors, first=True
        )
        is None
    )
    with pytest.raises(ModelError):
        await attempt(fails(ModelError("gone", kind="not_found")), "brief", errors, fail_fast=True)
    assert [error["kind"] for error in errors] == ["rate_limited"]


@pytest.mark.e2e
async def test_a_standard_node_override_reaches_its_calls(
    make_config: Callable[..., Configuration],
) -> None:
    smart = ResearchScript(coverage=[0.9], ready=[True]).model()
    fast = ResearchScript(coverage=[0.9], ready=[True]).model()
    smart_spec = use_scripted_model(smart, name="smart")
    fast_spec = use_scripted_model(fast, name="fast")
    config = make_config(
        model=smart_spec, fast_model=fast_spec, model_overrides={"plan": fast_spec}
    )
    state = await full_state("standard", {"query": QUERY}, config)
    by_node = {call["node"]: call["model"] for call in state["llm_calls"]}
    assert by_node["plan"] == fast_spec and by_node["understand"] == smart_spec

"""Which model a node calls, and a model call that may fail: one way for every pipeline.

Each pipeline keeps a table (node -> tier, or a role whose model a setting names) beside its
nodes; `model_for` reads it, honouring `model_overrides` by node name. `attempt` runs one
model call and turns a failure into an error record, so a node goes on with what it has.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ProviderError, ResearchStudioError
from research_studio.core.records import ErrorRecord, ModelCallRecord
from research_studio.llm.attempts import attempt_call
from research_studio.llm.models import ModelTier
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.kit.node_kit import call_records, error_record, services_of
from research_studio.services.clients import Services

T = TypeVar("T")
S = TypeVar("S", bound=BaseModel)


@dataclass(frozen=True)
class RoleModel:
    """A role's model: the one its setting names (e.g. `research_model`), else its tier's."""

    tier: ModelTier
    setting: str


ModelTable = Mapping[str, "ModelTier | RoleModel"]


def model_for(
    source: Runtime[Configuration] | Services,
    table: ModelTable,
    node: str,
    *,
    role: str | None = None,
) -> ModelCaller:
    """A recording caller for the node: `model_overrides[node]`, else its table entry's model.

    `role` names the entry when one node plays several roles (the supervisor's brief writer).
    """
    services = source if isinstance(source, Services) else services_of(source)
    pick = table[role or node]
    if isinstance(pick, RoleModel):
        config = services.config
        spec = config.model_overrides.get(node) or getattr(config, pick.setting)
        return services.caller(node, pick.tier, spec=spec)
    return services.caller(node, pick)  # Services applies model_overrides by node name


async def attempt(
    call: Awaitable[T],
    node: str,
    errors: list[ErrorRecord],
    *,
    target: str = "",
    fail_fast: bool = False,
    first: bool = False,
) -> T | None:
    """The call's answer; on failure None, with the failure appended to `errors` as data.

    `fail_fast` raises a permanent model error (a bad key, an unknown model) instead, as no
    later call would work either. `first` marks a run's first model call: it fails fast and
    keeps only provider failures as data.
    """
    return await attempt_call(
        call,
        lambda exc: errors.append(error_record(node, exc, target)),
        caught=ProviderError if first else ResearchStudioError,
        fail_fast=fail_fast or first,
    )


async def ask(
    source: Runtime[Configuration] | Services,
    table: ModelTable,
    node: str,
    schema: type[S],
    system: str,
    user: str,
) -> tuple[S | None, list[ModelCallRecord], list[ErrorRecord]]:
    """One structured call of a node: its answer (None on failure), records and errors."""
    caller = model_for(source, table, node)
    errors: list[ErrorRecord] = []
    messages = [SystemMessage(content=system), HumanMessage(content=user)]
    answer = await attempt(caller.structured(schema, messages), node, errors)
    return answer, call_records(caller), errors

"""Which model tier each advanced node uses: analysis, extraction, verification fast; planning, writing smart.

`model_overrides` in the configuration names another model for any node (by node name).
"""

from __future__ import annotations

from typing import TypeVar

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.records import ErrorRecord, ModelCallRecord
from research_studio.llm.models import ModelTier
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.kit.node_kit import call_records, error_record, services_of

T = TypeVar("T", bound=BaseModel)

NODE_TIERS: dict[str, ModelTier] = {
    # analysis
    "query_analyzer": "fast",
    "analyzer": "fast",
    "discovery": "fast",
    "auto_refine": "fast",
    "clarify": "fast",
    "gap_detector": "fast",
    # extraction
    "subagent": "fast",
    "claim_extractor": "fast",
    "batched_cred_claims": "fast",
    # verification
    "credibility_scorer": "fast",
    "ranker": "fast",
    "cite": "fast",
    "span_verify": "fast",
    "cross_validate": "fast",
    "batched_verify": "fast",
    "trust_engine": "fast",
    # planning and writing
    "planner": "smart",
    "writer": "smart",
}


def tier_of(node: str) -> ModelTier:
    """A node's default tier (smart for a node the table does not name)."""
    return NODE_TIERS.get(node, "smart")


def caller_for(runtime: Runtime[Configuration], node: str) -> ModelCaller:
    """A recording caller for the node, on its tier's model unless `model_overrides` names one."""
    return services_of(runtime).caller(node, tier_of(node))


async def ask(
    runtime: Runtime[Configuration], node: str, schema: type[T], system: str, user: str
) -> tuple[T | None, list[ModelCallRecord], list[ErrorRecord]]:
    """One structured call of a node: its answer (None on failure), records and errors."""
    caller = caller_for(runtime, node)
    try:
        answer = await caller.structured(
            schema, [SystemMessage(content=system), HumanMessage(content=user)]
        )
    except ResearchStudioError as exc:
        return None, call_records(caller), [error_record(node, exc)]
    return answer, call_records(caller), []

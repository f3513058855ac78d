"""The records every pipeline shares (TypedDicts, checkpoint-safe): one definition of each."""

from __future__ import annotations

import operator
from typing import Annotated, NotRequired

# LangGraph's MessagesState is a typing_extensions TypedDict; state bases must share its metaclass.
from typing_extensions import TypedDict


class SourceRecord(TypedDict):
    """A fetched document that evidence came from; `sid` is what reports cite."""

    sid: str
    url: str
    title: str
    snippet: str
    provider: str
    published: str | None
    credibility: NotRequired[float]


class PageRecord(TypedDict):
    """A page a worker read, before it has a source id."""

    url: str
    title: str
    snippet: str
    provider: str
    published: str | None


class FindingRecord(TypedDict):
    """A fact extracted from a page, before consolidation gives it ids."""

    url: str
    text: str
    quote: str
    quote_verified: bool
    question: str


class EvidenceRecord(TypedDict):
    """A fact with its quote, its source, and whether code found the quote in the page."""

    eid: str
    sid: str
    url: str
    title: str
    text: str
    quote: str
    quote_verified: bool
    question: str


class QuoteRef(TypedDict):
    """A passage copied from a source's page, which code found there."""

    sid: str
    quote: str


class StatementRecord(TypedDict):
    """One printed sentence of a report: what it cites and the passages that back it."""

    section: str
    text: str
    ids: list[str]
    sids: list[str]
    quotes: list[QuoteRef]
    indicator: str
    kind: str  # "cited" (a writer's statement), "passage" (verbatim page text), "connective"
    # The support check's decision ("supported", "replaced by its cited quote") and its reasons
    # (citations removed, why the writer's sentence was replaced).
    check: NotRequired[str]
    reasons: NotRequired[list[str]]


class ErrorRecord(TypedDict):
    """A failure kept as data: what failed, where, and why."""

    node: str
    kind: str
    message: str
    target: str


class ModelCallRecord(TypedDict):
    """One model call: which node and model, how, how long, what it cost, what went wrong."""

    node: str
    tier: str
    model: str
    method: str
    started: float
    ended: float
    prompt_tokens: int | None
    completion_tokens: int | None
    ok: bool
    # What went wrong; on an ok call, what was repaired (a cut-off reply whose complete part
    # was used is ok with error_kind "truncated").
    error: str | None
    error_kind: str | None
    cost_usd: NotRequired[float | None]  # None when the model's price is unknown


class DeadEnd(TypedDict):
    """A path that led nowhere, and why: no_results, irrelevant, paywall, low_credibility,
    fetch_error, or search_error (the search itself failed)."""

    subagent_id: str
    query: str
    url: str
    reason: str
    detail: str


class SourceCredibility(TypedDict):
    """A source's credibility and its parts."""

    sid: str
    domain_trust: float
    freshness: float
    authority: float
    content_quality: float
    overall: float


class ClaimRecord(TypedDict):
    """An atomic claim with its support, verification and confidence."""

    cid: str
    text: str
    section: str
    supporting_eids: list[str]
    supporting_sids: list[str]
    evidence_span: str
    span_match: float
    verified: bool
    cross_validated: bool
    confidence: float
    indicator: str
    reason: NotRequired[str]  # why a verdict was given, where a model gave one


class Accounting(TypedDict, total=False):
    """What every graph keeps as data: model calls, failures, fetches (merged across workers)."""

    llm_calls: Annotated[list[ModelCallRecord], operator.add]
    errors: Annotated[list[ErrorRecord], operator.add]
    fetch_count: Annotated[int, operator.add]


class RunSummary(TypedDict):
    """What a pipeline's last node says of its run; metadata is built from it and the accounting."""

    iterations: int
    coverage: float
    confidence: float
    cited_sources: list[str]
    grounding: dict[str, object]
    figures: dict[str, object]  # the pipeline's own figures (hallucination score, claims, ...)

"""subagent: search, read, extract in one batch, assess, refine when unsure; dead ends as data."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.queries import dedupe_queries, is_bare_address
from research_studio.core.records import DeadEnd, ErrorRecord, FindingRecord, PageRecord
from research_studio.core.urls import normalize_url
from research_studio.evidence.gathering import Gathered, GatherRequest, PageText, read_pages
from research_studio.evidence.passages import standalone_findings
from research_studio.grounding.credibility import domain_trust
from research_studio.grounding.quotes import verbatim_quote
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.nodes.planner import name_anchor
from research_studio.pipelines.advanced.prompts import (
    SUBAGENT_SYSTEM,
    SUBAGENT_USER,
    brief_line,
    page_block,
)
from research_studio.pipelines.advanced.schemas import SubagentExtraction
from research_studio.pipelines.advanced.state import (
    SubagentAssignment,
    SubagentFindings,
    SubagentState,
)
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import call_records, emitter, services_of
from research_studio.services.clients import Services
from research_studio.services.extraction import extract_sentences, query_terms, select_chunks

CONFIDENT = 0.8  # 001 §2.2: a subagent stops searching once its confidence reaches 0.8
# The words that aim a search at a planned source type (the plan's target_sources).
TARGET_TERMS = {
    "news": "news",
    "official": "official",
    "academic": "study",
    "legal": "court ruling",
    "analysis": "analysis",
    "reference": "overview",
    "advocacy": "advocacy",
}


def low_credibility(url: str, config: Configuration) -> bool:
    """A page whose domain trust (code's, before any model sees it) is below the credibility
    the run asks of its sources; with credibility scoring off no page is."""
    return config.enable_credibility_scoring and domain_trust(url) < config.min_source_credibility


def targeted_queries(queries: list[str], targets: list[str], config: Configuration) -> list[str]:
    """The assignment's searches and, when there is room, one aimed at its first source type."""
    aimed = [f"{queries[0]} {TARGET_TERMS[t]}" for t in targets if t in TARGET_TERMS][:1]
    if not queries or not aimed or len(queries) >= config.searches_per_worker:
        return queries
    fresh = dedupe_queries(aimed, queries, config.query_similarity_threshold)
    return [*queries, *fresh][: config.searches_per_worker]


def _page_dead_end(
    assignment: SubagentAssignment, page: PageText, reason: str, detail: str
) -> DeadEnd:
    """A page read and set aside (the backtracker may try an alternative for it)."""
    return DeadEnd(
        subagent_id=assignment["subagent_id"],
        query=page.query,
        url=page.result.url,
        reason=reason,
        detail=detail,
    )


def _dead_ends(subagent_id: str, gathered: Gathered) -> list[DeadEnd]:
    ends = [
        DeadEnd(
            subagent_id=subagent_id,
            query=query,
            url="",
            reason="no_results",
            detail="the search found nothing",
        )
        for query in gathered.empty_queries
    ]
    for error in gathered.errors:
        page = error["target"].startswith(("http", "file"))
        # A failed search (rate limit, server error) is not an empty one: it may work later.
        reason = (
            "paywall" if error["kind"] == "paywall" else "fetch_error" if page else "search_error"
        )
        ends.append(
            DeadEnd(
                subagent_id=subagent_id,
                query="" if page else error["target"],
                url=error["target"] if page else "",
                reason=reason,
                detail=error["message"],
            )
        )
    return ends


KEY_FINDINGS = 5


def key_findings(evidence: list[FindingRecord]) -> list[str]:
    """The first verified facts, each once: what the subagent found, in the page's support."""
    facts = [item["text"] for item in evidence if item["quote_verified"]]
    return list(dict.fromkeys(facts))[:KEY_FINDINGS]


def left_open(question: str, evidence: list[FindingRecord], unrun: list[str]) -> list[str]:
    """An unsure subagent's gaps: its question when nothing verified answers it, and the
    searches it proposed but had no round left to run."""
    unanswered = [] if any(item["quote_verified"] for item in evidence) else [question]
    return [*unanswered, *unrun]


# (page, fact, quote) items, confidence, summary, refined queries
Extraction = tuple[list[tuple[PageText, str, str]], float, str, list[str]]


def _page_block(number: int, page: PageText, terms: Any, config: Configuration) -> str:
    size = max(400, config.chunk_size // max(1, config.chunks_per_page))
    excerpt = "\n[...]\n".join(select_chunks(page.text, terms, size, config.chunks_per_page))
    return page_block(number, page.title, page.result.url, excerpt)


async def _batch_extract(
    caller: ModelCaller,
    config: Configuration,
    state: SubagentState,
    pages: list[PageText],
    errors: list[ErrorRecord],
) -> Extraction | None:
    """One model call for every page: (page, fact, quote) items, confidence, summary, refinements;
    None when the call failed (the failure recorded in `errors`)."""
    assignment = state["assignment"]
    terms = query_terms(state["context"], assignment["question"])
    call = caller.structured(
        SubagentExtraction,
        [
            SystemMessage(
                content=SUBAGENT_SYSTEM.format(
                    anchor=state.get("anchor", ""), facts_per_page=config.facts_per_page
                )
            ),
            HumanMessage(
                content=SUBAGENT_USER.format(
                    context=brief_line(state["context"]),
                    question=assignment["question"],
                    section=assignment["section"],
                    pages="\n\n".join(
                        _page_block(i, page, terms, config) for i, page in enumerate(pages, 1)
                    ),
                )
            ),
        ],
    )
    result = await attempt(call, "subagent", errors, target=assignment["question"])
    if result is None:
        return None
    per_page: dict[int, int] = {}
    items = []
    for item in result.evidence:
        if (
            1 <= item.page <= len(pages)
            and item.text.strip()
            and per_page.get(item.page, 0) < config.facts_per_page
        ):
            per_page[item.page] = per_page.get(item.page, 0) + 1
            items.append((pages[item.page - 1], item.text.strip(), item.quote.strip()))
    return items, result.confidence, result.summary, result.refined_queries


def _extractive(config: Configuration, state: SubagentState, pages: list[PageText]) -> Extraction:
    """The same outputs without a model: verbatim sentences, confidence from how many were found."""
    items = []
    for page in pages:
        for finding in extract_sentences(
            config,
            request=state["context"],
            questions=[state["assignment"]["question"]],
            url=page.result.url,
            text=page.text,
        )[: config.facts_per_page]:
            items.append((page, finding["text"], finding["quote"]))
    summary = " ".join(text for _page, text, _quote in items[:2])
    return items, min(1.0, len(items) / 4), summary, []


async def subagent(state: SubagentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Research one assignment in up to subagent_max_iterations rounds."""
    config = runtime.context
    services: Services = services_of(runtime)
    assignment = state["assignment"]
    emit = emitter(runtime, "subagent")
    caller = model_for(services, ADVANCED_MODELS, "subagent")
    known = set(state.get("known_urls", []))
    queries = targeted_queries(list(assignment["queries"]), assignment["target_sources"], config)
    tried: list[str] = list(state.get("searches_done", []))
    sources: list[PageRecord] = []
    evidence: list[FindingRecord] = []
    dead_ends: list[DeadEnd] = []
    errors: list[ErrorRecord] = []
    searches: list[str] = []
    confidence, summary, fetches, rounds = 0.0, "", 0, 0
    worker, fanout = state.get("worker_index", 0), ""
    try:
        for round_number in range(1, config.subagent_max_iterations + 1):
            rounds = round_number
            # Each round is a fan-out of its own, shared out once every subagent still searching
            # posted: later rounds too depend on the inputs, not on which subagent was faster.
            previous, fanout = fanout, f"subagent:{state.get('iteration', 0)}:{round_number}"
            if previous:
                services.page_shares.follow(fanout, after=previous)
            task = GatherRequest(
                node="subagent",
                queries=queries,
                request=state["context"],
                questions=[assignment["question"]],
                known_urls=known,
                fanout=fanout,
                worker=worker,
            )
            pages, gathered = await read_pages(services, task, emit=emit, parallel_searches=True)
            searches += gathered.searches
            tried += gathered.searches
            fetches += gathered.fetches
            errors += gathered.errors
            dead_ends += _dead_ends(assignment["subagent_id"], gathered)
            trusted = []
            for page in pages:
                if low_credibility(page.result.url, config):
                    dead_ends.append(
                        _page_dead_end(assignment, page, "low_credibility", "low-trust domain")
                    )
                else:
                    trusted.append(page)
            if not trusted:
                refined: list[str] = []
            else:
                extracted: Extraction | None
                if services.extraction.verbatim:
                    extracted = _extractive(config, state, trusted)
                else:
                    extracted = await _batch_extract(caller, config, state, trusted, errors)
                if extracted is not None:
                    items, confidence, summary, refined = extracted
                else:  # the failure is recorded: go on without this round's evidence
                    items, refined = [], []
                used = set()
                found: list[FindingRecord] = []
                for page, text, quote in items:
                    used.add(page.result.url)
                    verbatim = verbatim_quote(quote, page.text)  # the page's own characters
                    found.append(
                        FindingRecord(
                            url=normalize_url(page.result.url),
                            text=text,
                            quote=verbatim or quote,
                            quote_verified=verbatim is not None,
                            # Advanced evidence is grouped by the outline section it serves.
                            question=assignment["section"],
                        )
                    )
                # As on every pipeline: no page furniture, and a quote opening with a pronoun led
                # by the sentence that gives it its referent.
                texts = {normalize_url(page.result.url): page.text for page in trusted}
                evidence += standalone_findings(found, texts)
                for page in trusted:
                    sources.append(
                        PageRecord(
                            url=normalize_url(page.result.url),
                            title=page.title or page.result.url,
                            snippet=page.result.snippet[:300],
                            provider=page.result.provider,
                            published=page.published,
                        )
                    )
                    if page.result.url not in used:
                        dead_ends.append(
                            _page_dead_end(
                                assignment, page, "irrelevant", "no evidence for the question"
                            )
                        )
            anchored = [
                name_anchor(query, state.get("anchor", ""))
                for query in refined
                if not is_bare_address(query)
            ]
            queries = dedupe_queries(anchored, tried, config.query_similarity_threshold)[
                : config.searches_per_worker
            ]
            if confidence >= CONFIDENT or not queries:
                break
    finally:
        if fanout:  # no later round of this subagent will post: nobody waits for one
            services.page_shares.retire(fanout, worker)
    emit(
        f"{assignment['subagent_id']} done: {len(evidence)} evidence, confidence {confidence:.2f}",
        evidence=len(evidence),
    )
    findings = SubagentFindings(
        subagent_id=assignment["subagent_id"],
        iteration=state.get("iteration", 0),
        question=assignment["question"],
        section=assignment["section"],
        findings=summary,
        key_findings=key_findings(evidence),
        confidence=confidence,
        gaps=[]
        if confidence >= CONFIDENT
        else left_open(assignment["question"], evidence, queries),
        iterations_used=rounds,
        queries_run=searches,
        dead_ends=dead_ends,
    )
    return {
        "subagent_findings": [findings],
        "pages": sources,
        "findings": evidence,
        "searches_done": searches,
        "done_workers": 1,
        "llm_calls": call_records(caller),
        "errors": errors,
        "fetch_count": fetches,
    }

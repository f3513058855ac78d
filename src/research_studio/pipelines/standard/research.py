"""Research nodes: the single agent's search loop, and the multi-agent orchestrate/worker/collect."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Send

from research_studio.core.config import Configuration
from research_studio.core.prompt_blocks import numbered, request_block
from research_studio.core.queries import dedupe_queries
from research_studio.core.records import ErrorRecord, FindingRecord, PageRecord
from research_studio.core.words import content_keys
from research_studio.evidence.gathering import GatherRequest, gather
from research_studio.pipelines.kit.consolidate import consolidate
from research_studio.pipelines.kit.models import attempt, model_for
from research_studio.pipelines.kit.node_kit import call_records, emitter, node_tools, services_of
from research_studio.pipelines.kit.referents import kept_apart
from research_studio.pipelines.kit.stopping import cap_reached
from research_studio.pipelines.standard.models import STANDARD_MODELS
from research_studio.pipelines.standard.prompts import (
    ORCHESTRATE_LOOP_HINT,
    ORCHESTRATE_SYSTEM,
    ORCHESTRATE_USER,
)
from research_studio.pipelines.standard.schemas import WorkPlan
from research_studio.pipelines.standard.state import (
    ResearchState,
    SubQuestion,
    WorkerResult,
    WorkerState,
)


def _request(state: ResearchState | WorkerState) -> str:
    return request_block(state.get("query", ""), state.get("user_clarification", ""))


def _merge_progress(
    state: ResearchState,
    pages: list[PageRecord],
    findings: list[FindingRecord],
    searches: list[str],
    config: Configuration,
) -> dict[str, Any]:
    """Sources, new evidence, and the run's searched/fetched lists after a round of reading;
    `last_round` when the iteration cap allows no other (its claims are then verified while
    the round is judged: nothing the judgement decides can add evidence).

    Where a reading was taken without asking, code keeps out the new sources that name only
    another reading's marks (and their evidence): namesakes are never merged."""
    known = state.get("sources", [])
    sources, new_evidence = consolidate(
        known,
        state.get("evidence", []),
        pages,
        findings,
        max_sources=config.max_sources,
    )
    referents = state.get("referents", [])
    if referents:
        old = {source["sid"] for source in known}
        fresh, new_evidence, _ = kept_apart(
            [source for source in sources if source["sid"] not in old],
            new_evidence,
            referents[0],
            referents,
        )
        sources = [*known, *fresh]
    return {
        "sources": sources,
        "evidence": new_evidence,
        "searches_done": [*state.get("searches_done", []), *searches],
        "fetched_urls": [*state.get("fetched_urls", []), *(page["url"] for page in pages)],
        "last_round": cap_reached(state.get("iteration", 0) + 1, config.max_iterations),
    }


async def search_and_extract(
    state: ResearchState, runtime: Runtime[Configuration]
) -> dict[str, Any]:
    """Run the pending searches one after another, reading and extracting each one's pages."""
    config, services, emit = node_tools(runtime, "search_and_extract")
    queries = dedupe_queries(
        state.get("pending_searches", []),
        state.get("searches_done", []),
        config.query_similarity_threshold,
    )
    task = GatherRequest(
        node="search_and_extract",
        queries=queries,
        request=_request(state),
        questions=state.get("research_questions", []),
        known_urls=set(state.get("fetched_urls", [])),
    )
    if len(state.get("sources", [])) >= config.max_sources:
        task.queries = []
    gathered = await gather(services, task, emit=emit, parallel_searches=False)
    update = _merge_progress(state, gathered.pages, gathered.findings, gathered.searches, config)
    emit(
        f"{len(update['evidence'])} new evidence items from {len(gathered.pages)} pages",
        searches=len(update["searches_done"]),
        sources=len(update["sources"]),
        evidence=len(state.get("evidence", [])) + len(update["evidence"]),
    )
    return {
        **update,
        "pending_searches": [],
        "llm_calls": gathered.calls,
        "errors": gathered.errors,
        "fetch_count": gathered.fetches,
    }


async def orchestrate(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Split the work into independent sub-questions, each with its own searches."""
    config = runtime.context
    emitter(runtime, "orchestrate")("assigning sub-questions to workers")
    done = state.get("searches_done", [])
    if not done:
        # The first round's work is the plan itself: its questions and searches, no model call.
        # One worker per research question: the plan's breadth, bounded by its setting.
        questions = state.get("research_questions", [])[: config.max_research_questions]
        planned = plan_split(questions, state.get("pending_searches", []))
        pending = state.get("pending_searches", [])
        assigned = assign_work(planned, pending, done, config, workers=len(planned))
        return {"sub_questions": assigned, "total_workers": len(assigned)}
    caller = model_for(runtime, STANDARD_MODELS, "orchestrate")
    synthesis = state.get("synthesis")
    gaps = (synthesis or {}).get("gaps", []) if synthesis else state.get("gaps", [])
    messages = [
        SystemMessage(
            content=ORCHESTRATE_SYSTEM.format(
                workers=config.max_subagents,
                searches=config.searches_per_worker,
                loop_hint=ORCHESTRATE_LOOP_HINT if done else "",
                today=state["today"],
            )
        ),
        HumanMessage(
            content=ORCHESTRATE_USER.format(
                request=_request(state),
                questions=numbered(state.get("research_questions", [])),
                gaps=numbered(gaps),
                suggested=numbered(state.get("pending_searches", [])),
                done=numbered(done),
            )
        ),
    ]
    errors: list[ErrorRecord] = []
    work = await attempt(caller.structured(WorkPlan, messages), "orchestrate", errors)
    if work is not None:
        planned = [(item.question, item.searches) for item in work.sub_questions]
    else:
        planned = [(question, [question]) for question in state.get("research_questions", [])]
        if done:
            planned = [(search, [search]) for search in state.get("pending_searches", [])]
    assigned = assign_work(planned, state.get("pending_searches", []), done, config)
    return {
        "sub_questions": assigned,
        "total_workers": len(assigned),
        "llm_calls": call_records(caller),
        "errors": errors,
    }


def plan_split(questions: list[str], searches: list[str]) -> list[tuple[str, list[str]]]:
    """Each planned search under the question it shares most words with (a question with none
    is searched as asked)."""
    words = {question: set(content_keys(question)) for question in questions}
    split: dict[str, list[str]] = {question: [] for question in questions}
    for search in searches:
        terms = set(content_keys(search))
        if questions:
            best = max(questions, key=lambda question: len(words[question] & terms))
            split[best].append(search)
    return [(question, found or [question]) for question, found in split.items()]


def assign_work(
    planned: list[tuple[str, list[str]]],
    pending: list[str],
    done: list[str],
    config: Configuration,
    *,
    workers: int | None = None,
) -> list[SubQuestion]:
    """Workers' assignments (at most `workers`, else `max_subagents`): the split, plus every
    pending search it left out.

    The plan's (or the synthesis's) searches are always run, even when the model's split is
    weak, so the user's own words are searched whatever the model does.
    """
    threshold = config.query_similarity_threshold
    workers = max(1, workers or config.max_subagents)
    assigned: list[SubQuestion] = []
    taken = list(done)
    for question, searches in planned[:workers]:
        fresh = dedupe_queries(searches, taken, threshold)[: config.searches_per_worker]
        if fresh and question.strip():
            taken.extend(fresh)
            assigned.append(SubQuestion(question=question.strip(), searches=fresh))
    for search in dedupe_queries(pending, taken, threshold):
        open_slots = [
            item for item in assigned if len(item["searches"]) < config.searches_per_worker
        ]
        if len(assigned) < workers:
            assigned.append(SubQuestion(question=search, searches=[search]))
        elif open_slots:
            min(open_slots, key=lambda item: len(item["searches"]))["searches"].append(search)
        else:
            break
        taken.append(search)
    return assigned


def fanout_workers(state: ResearchState) -> list[Send] | str:
    """One Send per sub-question; straight to collect when nothing is left to search."""
    assigned = state.get("sub_questions", [])
    if not assigned:
        return "collect"
    iteration = state.get("iteration", 0)
    return [
        Send(
            "search_worker",
            WorkerState(
                worker_id=f"W{iteration + 1}.{index}",
                worker_index=index,
                iteration=iteration,
                sub_question=sub_question,
                query=state["query"],
                user_clarification=state.get("user_clarification", ""),
                searches_done=state.get("searches_done", []),
                fetched_urls=state.get("fetched_urls", []),
            ),
        )
        for index, sub_question in enumerate(assigned, 1)
    ]


async def search_worker(state: WorkerState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Research one sub-question: its searches in parallel, pages read, evidence summarized."""
    services = services_of(runtime)
    sub_question = state["sub_question"]
    emit = emitter(runtime, "search_worker")
    task = GatherRequest(
        node="search_worker",
        queries=sub_question["searches"],
        request=_request(state),
        questions=[sub_question["question"]],
        known_urls=set(state.get("fetched_urls", [])),
        fanout=f"search_worker:{state.get('iteration', 0)}",
        worker=state.get("worker_index", 0),
    )
    # One extraction call read all the worker's pages and answered its question: no summary call.
    gathered = await gather(services, task, emit=emit, parallel_searches=True)
    emit(
        f"worker {state['worker_id']} done: {len(gathered.findings)} findings",
        evidence=len(gathered.findings),
    )
    result = WorkerResult(
        worker_id=state["worker_id"],
        iteration=state.get("iteration", 0),
        question=sub_question["question"],
        answer=gathered.answer or "No usable evidence was found.",
        key_findings=[finding["text"] for finding in gathered.findings[:3]],
        confidence=gathered.confidence if gathered.findings else 0.0,
        gaps=gathered.gaps if gathered.findings else [sub_question["question"]],
        searches=gathered.searches,
        pages=gathered.pages,
        findings=gathered.findings,
    )
    return {
        "worker_results": [result],
        "done_workers": 1,
        "llm_calls": gathered.calls,
        "errors": gathered.errors,
        "fetch_count": gathered.fetches,
    }


def collect(state: ResearchState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Fan-in: merge the new workers' pages and findings, one source per URL."""
    results = state.get("worker_results", [])
    fresh = results[state.get("collected_results", 0) :]
    pages = [page for result in fresh for page in result["pages"]]
    findings = [finding for result in fresh for finding in result["findings"]]
    searches = [search for result in fresh for search in result["searches"]]
    update = _merge_progress(state, pages, findings, searches, runtime.context)
    emitter(runtime, "collect")(
        f"collected {len(fresh)} worker result(s): {len(update['evidence'])} new evidence items",
        sources=len(update["sources"]),
        evidence=len(state.get("evidence", [])) + len(update["evidence"]),
    )
    return {**update, "collected_results": len(results)}

"""Discovery: which entity the query means, how sure we are, and what to do about it.

discovery (search the anchors, the model clusters the results into candidates, code
auto-selects a clear one) → confidence_check (code routes: planner, clarify, auto_refine) →
auto_refine (targeted searches, the model re-assesses) or clarify (the person's answer:
an option number, yes/no, or free text naming the entity and its context).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.errors import ProviderError
from research_studio.core.prompt_blocks import NONE
from research_studio.core.records import ErrorRecord, ModelCallRecord
from research_studio.pipelines.advanced.discovery.prompts import (
    CONFIRM_SYSTEM,
    CONFIRM_USER,
    DISCOVERY_SYSTEM,
    DISCOVERY_USER,
    result_listing,
)
from research_studio.pipelines.advanced.discovery.schemas import (
    EntityClustering,
    EntityConfirmation,
)
from research_studio.pipelines.advanced.models import ADVANCED_MODELS
from research_studio.pipelines.advanced.state import (
    AgentState,
    DiscoveryResult,
    EntityCandidate,
)
from research_studio.pipelines.kit.models import S, ask
from research_studio.pipelines.kit.node_kit import (
    clip,
    emitter,
    error_record,
    services_of,
)
from research_studio.pipelines.kit.referents import assumed_notice
from research_studio.sources.search import SearchResult

DISCOVERY_RESULTS = 10
AUTO_SELECT = 0.8  # a single clear candidate at this confidence is selected
SIMILAR_MARGIN = 0.2  # candidates this close to the best one are "similar"
PROCEED = 0.85  # confidence_check: go straight to planning
REFINE_BELOW = 0.7  # confidence_check: one candidate below this is refined automatically
UNAMBIGUOUS_TYPES = ("concept", "technical", "comparison")  # rarely about a particular entity
NAMESAKE_KINDS = ("person", "organization", "place")  # kinds that share names
ASKS_WHO = re.compile(r"^\s*(?:who|whom|whose)\b", re.IGNORECASE)
Route = Literal["planner", "clarify", "auto_refine"]
_YES = {"yes", "y", "yeah", "yep", "correct", "right", "that one", "ok", "sure"}
_NO = {"no", "n", "nope", "neither", "none", "wrong"}


def _candidate(
    name: str, description: str, identifiers: list[str], confidence: float
) -> EntityCandidate:
    return EntityCandidate(
        name=name.strip(),
        description=description.strip(),
        identifiers=clip(identifiers, 6),
        confidence=round(confidence, 3),
    )


def similar_candidates(candidates: list[EntityCandidate]) -> bool:
    """Two or more candidates the results support about equally."""
    if len(candidates) < 2:
        return False
    best = max(c["confidence"] for c in candidates)
    return sum(1 for c in candidates if c["confidence"] >= best - SIMILAR_MARGIN) >= 2


def auto_selected(candidates: list[EntityCandidate]) -> EntityCandidate | None:
    """The best candidate when it is confident and clear of the others."""
    if not candidates or similar_candidates(candidates):
        return None
    best = max(candidates, key=lambda c: c["confidence"])
    return best if best["confidence"] >= AUTO_SELECT else None


def _selection(entity: EntityCandidate) -> dict[str, Any]:
    """The state of a selected entity: its name anchors every query, its identifiers qualify."""
    return {
        "selected_entity": entity,
        "primary_anchor": entity["name"],
        "anchor_terms": [
            term for term in entity["identifiers"] if term.lower() != entity["name"].lower()
        ],
    }


async def _search(
    runtime: Runtime[Configuration], queries: list[str]
) -> tuple[list[SearchResult], list[str], list[Any]]:
    """Results of the queries (each URL once), the searches run, and failures as records."""
    services = services_of(runtime)
    errors: list[Any] = []

    async def one(query: str) -> list[SearchResult]:
        try:
            async with services.search_limiter:
                return await services.search.search(query, DISCOVERY_RESULTS)
        except ProviderError as exc:
            errors.append(error_record("discovery", exc, query))
            return []

    found = await asyncio.gather(*(one(query) for query in queries))
    seen: set[str] = set()
    results = []
    for result in (r for batch in found for r in batch):
        if result.url not in seen:
            seen.add(result.url)
            results.append(result)
    return results[:DISCOVERY_RESULTS], list(queries), errors


async def _judged(
    runtime: Runtime[Configuration],
    node: str,
    schema: type[S],
    prompt: tuple[str, str],
    queries: list[str],
    **fields: str,
) -> tuple[S | None, list[str], list[ModelCallRecord], list[ErrorRecord]]:
    """Search `queries`; when anything came back, the model judges the results (`prompt`: the
    system text and the user template, filled with `fields` and the results).

    Its answer (None without results or on failure), the searches, model calls and errors.
    """
    results, searches, errors = await _search(runtime, queries)
    if not results:
        return None, searches, [], errors
    system, user = prompt
    listing = result_listing(results)
    answer, calls, failed = await ask(
        runtime, ADVANCED_MODELS, node, schema, system, user.format(results=listing, **fields)
    )
    return answer, searches, calls, errors + failed


async def discovery(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Search the anchors; the model clusters the results into entity candidates."""
    found = state["discovery_result"]
    emit = emitter(runtime, "discovery")
    # "Who is ...?" asks about someone, whatever type the model gave it: namesakes are looked for.
    if found["query_type"] in UNAMBIGUOUS_TYPES and not ASKS_WHO.match(state["query"]):
        emit(f"{found['query_type']} query: no entity to disambiguate")
        return {}
    anchors = found["anchor_terms"] or [state["primary_anchor"]]
    clusters, searches, calls, errors = await _judged(
        runtime,
        "discovery",
        EntityClustering,
        (DISCOVERY_SYSTEM, DISCOVERY_USER),
        [" ".join(anchors)],
        query=state["query"],
        query_type=found["query_type"],
        anchors=", ".join(anchors),
    )
    candidates: list[EntityCandidate] = []
    needs = found["needs_clarification"]
    if clusters is not None:
        candidates = [
            _candidate(c.name, c.description, c.identifiers, c.confidence)
            for c in clusters.candidates
            if c.name.strip()
        ]
        needs = needs or clusters.needs_clarification
    candidates.sort(key=lambda c: -c["confidence"])
    selected = auto_selected(candidates)
    confidence = candidates[0]["confidence"] if candidates else found["confidence"]
    emit(
        f"{len(candidates)} candidate(s), confidence {confidence:.2f}"
        + (f"; selected {selected['name']}" if selected else "")
    )
    update: dict[str, Any] = {
        "discovery_result": DiscoveryResult(
            query_type=found["query_type"],
            entity_candidates=candidates,
            confidence=confidence,
            needs_clarification=needs,
            anchor_terms=found["anchor_terms"],
        ),
        "searches_done": searches,
        "llm_calls": calls,
        "errors": errors,
    }
    if selected:
        update.update(_selection(selected))
    return update


def namesakes(state: AgentState) -> bool:
    """Two similar candidates, whatever the subject was typed as, or a person, organization or
    place with more than one: never skip disambiguation."""
    found = state["discovery_result"]
    candidates = found["entity_candidates"]
    if similar_candidates(candidates):
        return True
    kinds = {found["query_type"], state["query_analysis"]["subject_type"].strip().lower()}
    return bool(kinds & set(NAMESAKE_KINDS)) and len(candidates) > 1


def confidence_route(state: AgentState) -> Route:
    """Planner when sure (or the query names no particular entity), clarify when torn, refine when unsure."""
    found = state["discovery_result"]
    candidates = found["entity_candidates"]
    if found["query_type"] in ("concept", "technical") and not similar_candidates(candidates):
        return "planner"
    if state.get("selected_entity") and found["confidence"] >= PROCEED:
        return "planner"
    if similar_candidates(candidates) or found["needs_clarification"]:
        return "clarify"
    if len(candidates) == 1 and found["confidence"] < REFINE_BELOW and not state.get("refined"):
        return "auto_refine"
    return "planner"


def _option(candidate: EntityCandidate) -> str:
    described = f"{candidate['name']} — {candidate['description']}".strip(" —")
    return (
        f"{described} ({', '.join(candidate['identifiers'])})"
        if candidate["identifiers"]
        else described
    )


def refinement_queries(candidate: EntityCandidate) -> list[str]:
    """Targeted searches for one candidate: its identifiers, its profiles."""
    name = f'"{candidate["name"]}"'
    first = candidate["identifiers"][0] if candidate["identifiers"] else "profile"
    return [f"{name} {first}", f"{name} profile", f"{name} linkedin github"]


def _question(state: AgentState, candidates: list[EntityCandidate]) -> dict[str, Any]:
    """The candidates as options; without candidates, the analyzer's own question and options."""
    subject = state["primary_anchor"]
    options = [_option(c) for c in candidates[:5]]
    if len(options) > 1:
        question = f"Several matches for {subject}: which one do you mean?"
    elif options:
        question = f"Is this the {subject} you mean?"
    else:
        analysis = state["query_analysis"]
        options = list(analysis["clarification_options"])
        question = analysis["clarification_question"] or (
            f"Which {subject} do you mean? Name what sets it apart (field, place, organization)."
        )
    return {"clarification_question": question, "clarification_options": options}


def confidence_check(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Decide the route by code; prepare the question or the targeted searches it needs."""
    route = confidence_route(state)
    candidates = state["discovery_result"]["entity_candidates"]
    emitter(runtime, "confidence_check")(
        f"confidence {state['discovery_result']['confidence']:.2f}: {route}"
    )
    update: dict[str, Any] = {"discovery_route": route}
    if route == "clarify":
        update.update(needs_clarification=True, **_question(state, candidates))
    elif route == "planner" and candidates and not state.get("selected_entity"):
        # Proceed with the best reading there is, and say so when there were others.
        update.update(_selection(candidates[0]), **_assumed(state, candidates[0], candidates))
    return update


async def auto_refine(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Targeted searches for the one candidate, then the model re-assesses it."""
    found = state["discovery_result"]
    candidate = found["entity_candidates"][0]
    confidence, identifiers = candidate["confidence"], list(candidate["identifiers"])
    checked, searches, calls, errors = await _judged(
        runtime,
        "auto_refine",
        EntityConfirmation,
        (CONFIRM_SYSTEM, CONFIRM_USER),
        refinement_queries(candidate),
        query=state["query"],
        name=candidate["name"],
        description=candidate["description"] or NONE,
        identifiers=", ".join(identifiers) or NONE,
    )
    if checked is not None:
        confidence = (
            checked.confidence if checked.confirmed else min(confidence, checked.confidence)
        )
        identifiers += checked.new_identifiers
    refined = _candidate(candidate["name"], candidate["description"], identifiers, confidence)
    emitter(runtime, "auto_refine")(f"{refined['name']}: confidence {confidence:.2f}")
    update: dict[str, Any] = {
        "discovery_result": DiscoveryResult(
            **{**found, "entity_candidates": [refined], "confidence": refined["confidence"]}
        ),
        "refined": True,
        "searches_done": searches,
        "llm_calls": calls,
        "errors": errors,
    }
    if refined["confidence"] >= REFINE_BELOW:
        update.update(_selection(refined), discovery_route="planner")
    else:
        update.update(
            discovery_route="clarify",
            needs_clarification=True,
            clarification_question=f"Is this the {state['primary_anchor']} you mean?",
            clarification_options=[_option(refined)],
        )
    return update


def route_after_refine(state: AgentState) -> Literal["planner", "clarify"]:
    """auto_refine's decision."""
    return "clarify" if state.get("discovery_route") == "clarify" else "planner"


def parse_answer(
    answer: str, candidates: list[EntityCandidate], options: list[str], subject: str
) -> EntityCandidate | None:
    """The entity an answer means: an option number, yes/no, an option's text, or free text."""
    text = " ".join(answer.split())
    lowered = text.lower().strip(" .!")
    if not text:
        return candidates[0] if candidates else None
    if lowered.isdigit():
        index = int(lowered) - 1
        return candidates[index] if 0 <= index < len(candidates) else None
    if lowered in _YES:
        return candidates[0] if candidates else None
    if lowered in _NO:
        return candidates[1] if len(candidates) == 2 else None
    for index, option in enumerate(options):
        if lowered == option.lower() and index < len(candidates):
            return candidates[index]
    for candidate in candidates:  # free text naming a candidate's identifier
        marks = [candidate["name"], *candidate["identifiers"]]
        if any(mark.lower() in lowered for mark in marks[1:]):
            return candidate
    # A new description: the subject, qualified by the answer's phrases.
    parts = [p.strip(" .") for p in re.split(r",|;|\bat\b|\bfrom\b|\bin\b", text) if p.strip(" .")]
    context = [p for p in parts if not subject or subject.lower() not in p.lower()]
    return _candidate(subject or (parts[0] if parts else text), text, context, 1.0)


def _assumed(
    state: AgentState, entity: EntityCandidate, candidates: list[EntityCandidate]
) -> dict[str, Any]:
    """The notice the report opens with when code chose among namesakes on its own."""
    notice = assumed_notice(state["primary_anchor"], entity, candidates)
    return {"referent_notice": notice} if notice else {}


def clarify(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The person's answer (after the pause) selects or describes the entity; no model needed."""
    answer = state.get("user_clarification", "").strip()
    found = state["discovery_result"]
    entity = parse_answer(
        answer,
        found["entity_candidates"],
        state.get("clarification_options", []),
        state["primary_anchor"],
    )
    emitter(runtime, "clarify")(
        f"answer {answer!r}: " + (entity["name"] if entity else "no particular entity")
    )
    update: dict[str, Any] = {
        "needs_clarification": False,
        "discovery_result": DiscoveryResult(**{**found, "needs_clarification": False}),
    }
    if not answer and entity is not None:
        # No one could be asked (no terminal, no pause): the most likely referent, said so.
        update.update(_assumed(state, entity, found["entity_candidates"]))
    if entity is None:
        update["enriched_context"] = f"{state['query']} (clarified by the user: {answer})"
        return update
    context = "; ".join(entity["identifiers"])
    update.update(
        _selection(entity),
        enriched_context=f"{state['query']} — {entity['name']}"
        + (f": {entity['description']}" if entity["description"] else "")
        + (f" ({context})" if context else ""),
    )
    if answer:
        update["messages"] = [
            HumanMessage(content=f"Clarification: {answer}"),
            AIMessage(
                content=f"Researching {entity['name']}" + (f" ({context})" if context else "")
            ),
        ]
    return update

"""backtrack_handler: dead ends not yet handled become alternative searches, by failure type.

no_results → broaden; irrelevant → add context terms; paywall or fetch_error → other
domains; low_credibility → authoritative domains; search_error → the search reworded, for
a later round. The orchestrator runs them as the next round's refinement queries.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from langgraph.runtime import Runtime

from research_studio.core.config import Configuration
from research_studio.core.queries import content_words, dedupe_queries
from research_studio.core.records import DeadEnd
from research_studio.core.words import printed, words
from research_studio.pipelines.advanced.nodes.query_analyzer import brief
from research_studio.pipelines.advanced.state import AgentState, PlanQuery, TrajectoryStep
from research_studio.pipelines.kit.node_kit import emitter

BACKTRACK_PRIORITY = 0.7
MAX_ALTERNATIVES = 6
BASE_WORDS = 5  # words kept from a failed search before an operator is added
HANDLED_REASONS = (
    "no_results",
    "irrelevant",
    "paywall",
    "fetch_error",
    "low_credibility",
    "search_error",
)
ALTERNATIVE_DOMAINS = ("site:wikipedia.org",)
AUTHORITATIVE_DOMAINS = ("site:.edu", "site:.gov")


def dead_end_key(end: DeadEnd) -> str:
    """One dead end's identity, to mark it handled."""
    return f"{end['reason']}|{end['query']}|{end['url']}"


def unhandled(state: AgentState) -> list[DeadEnd]:
    """Dead ends of a kind backtracking handles that it has not handled yet."""
    done = set(state.get("handled_dead_ends", []))
    return [
        end
        for end in state.get("dead_ends", [])
        if end["reason"] in HANDLED_REASONS and dead_end_key(end) not in done
    ]


def _with_anchor(words: list[str], anchor: str) -> list[str]:
    """The words, led by the anchor's when the search does not name it."""
    anchor_words = content_words(anchor)[:3]
    present = {word.lower().strip('"') for word in words}
    if anchor_words and not any(word in present for word in anchor_words):
        return [*anchor_words, *words]
    return words


def _path_words(url: str) -> list[str]:
    """What a page was about, from its address (a failed page has no text)."""
    path = urlsplit(url).path.rsplit(".", 1)[0]
    found = [printed(word) for word in words(unquote(path).replace("_", " "))]
    return [word for word in found if word not in {"pages", "docs", "text", "html"}]


def alternatives(end: DeadEnd, anchor: str, context_terms: list[str]) -> list[str]:
    """Alternative searches for one dead end, by its failure type."""
    query = end["query"].replace('"', " ")
    words = query.split() or _path_words(end["url"])
    base = _with_anchor(words[:BASE_WORDS], anchor)
    reason = end["reason"]
    if reason == "no_results":
        broader = _with_anchor(words[: max(2, len(words) - 2)], anchor)
        return [" ".join(broader), " ".join([*broader[:3], "overview"])]
    if reason == "irrelevant":
        present = {word.lower() for word in query.split()}
        extra = [t for t in context_terms if not set(t.lower().split()) <= present][:2]
        return [" ".join([*base, *extra])] if extra else []
    if reason in ("paywall", "fetch_error"):
        host = urlsplit(end["url"]).hostname or ""
        excluded = [f"-site:{host}"] if host else []
        return [" ".join([*base, *ALTERNATIVE_DOMAINS]), " ".join([*base, *excluded])]
    if reason == "low_credibility":
        return [" ".join([*base, domain]) for domain in AUTHORITATIVE_DOMAINS]
    if reason == "search_error":
        return [" ".join([*base, "overview"])]
    return []


def _context_terms(state: AgentState, end: DeadEnd) -> list[str]:
    """Terms that pin the subject down, for a search that found only irrelevant pages:
    discovery's anchor terms, then the words of the dead end's section and question, the
    analysis's focus and domain, and last the brief's words (terms already in the failed
    search are skipped by `alternatives`)."""
    finding = next(
        (f for f in state.get("subagent_findings", []) if f["subagent_id"] == end["subagent_id"]),
        None,
    )
    analysis = state.get("query_analysis")
    texts = [
        finding["section"] if finding else "",
        finding["question"] if finding else "",
        analysis["topic_focus"] if analysis else "",
        analysis["domain"] if analysis else "",
        brief(state),
    ]
    terms = [*state.get("anchor_terms", []), *(w for text in texts for w in content_words(text))]
    return list(dict.fromkeys(term for term in terms if term.strip()))


def route_after_backtrack(state: AgentState, trust: str) -> str:
    """To the orchestrator with the alternatives; to the trust engine when none reopened the loop."""
    return trust if state.get("stop_reason") else "orchestrator"


def backtrack_handler(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Alternative searches for the unhandled dead ends; they join the next round's queries."""
    config = runtime.context
    iteration = state.get("research_iteration", 0)
    anchor = state.get("primary_anchor") or state.get("query", "")
    sections = {f["subagent_id"]: f["section"] for f in state.get("subagent_findings", [])}
    ends = unhandled(state)
    done = list(state.get("searches_done", []))
    refinements = list(state.get("refinement_queries", []))
    added: list[PlanQuery] = []
    # Backtracking off: the dead ends are marked handled and retried by nothing.
    for end in ends if config.enable_backtracking else []:
        fresh = dedupe_queries(
            alternatives(end, anchor, _context_terms(state, end)),
            done + [item["query"] for item in refinements + added],
            config.query_similarity_threshold,
        )
        for query in fresh[: MAX_ALTERNATIVES - len(added)]:
            added.append(
                PlanQuery(
                    qid=f"B{iteration + 1}.{len(added) + 1}",
                    query=query,
                    section=sections.get(end["subagent_id"]) or state["plan"]["outline"][0],
                    priority=BACKTRACK_PRIORITY,
                )
            )
    by_reason: dict[str, int] = {}
    for end in ends:
        by_reason[end["reason"]] = by_reason.get(end["reason"], 0) + 1
    summary = f"{len(ends)} dead end(s) {by_reason} → {len(added)} alternative search(es)"
    if not config.enable_backtracking:
        summary += " (backtracking off)"
    emitter(runtime, "backtrack_handler")(summary, iteration=iteration + 1)
    return {
        "handled_dead_ends": [
            *state.get("handled_dead_ends", []),
            *(dead_end_key(end) for end in ends),
        ],
        "refinement_queries": refinements + added,
        # A round follows when alternatives were added or the loop was going on anyway;
        # a backtrack that reopens nothing is not an iteration.
        "research_iteration": iteration + 1 if added or not state.get("stop_reason") else iteration,
        # Alternatives reopen a loop that stopped for want of searches; nothing else does.
        "stop_reason": "" if added else state.get("stop_reason", ""),
        "research_trajectory": [
            TrajectoryStep(iteration=iteration, action="backtrack", summary=summary)
        ],
    }

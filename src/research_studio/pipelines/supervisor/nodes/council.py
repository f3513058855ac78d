"""Councils of models: the brief's review (with revisions and human review) and the findings check."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ResearchStudioError
from research_studio.core.prompt_blocks import request_block
from research_studio.core.records import ErrorRecord, ModelCallRecord, RunSummary
from research_studio.llm.structured import ModelCaller
from research_studio.pipelines.kit.models import attempt
from research_studio.pipelines.kit.node_kit import (
    call_records,
    emitter,
    error_record,
    report_update,
    services_of,
)
from research_studio.pipelines.supervisor.nodes.common import today
from research_studio.pipelines.supervisor.prompts import (
    COUNCIL_SYSTEM,
    COUNCIL_USER,
    FINDINGS_SYSTEM,
    FINDINGS_USER,
)
from research_studio.pipelines.supervisor.schemas import CouncilReview, FindingsReview
from research_studio.pipelines.supervisor.state import AgentState, CouncilVote
from research_studio.services.clients import Services

ReviewT = TypeVar("ReviewT", bound=BaseModel)
REJECT_SHARE = 0.5  # this share of the council's confidence rejecting ends the run
SYNTHESIS_SYSTEM = """You merge a review council's feedback on a research brief into one instruction.
Keep every concrete point, drop repetition, resolve overlaps, and write one or two imperative sentences."""
SYNTHESIS_USER = """Feedback from the council members:
{feedback}"""
REJECTED_REPORT = (
    "The review council rejected the research brief, so no research was done.\n\n"
    "Brief: {brief}\n\nWhy: {reason}"
)


class FeedbackSynthesis(BaseModel):
    """The council's feedback as one instruction for the brief's writer."""

    instruction: str


APPROVALS = frozenset({"", "approve", "approved", "yes", "y", "ok", "accept"})
MAX_NOTES_CHARS = 12_000
_YEAR = re.compile(r"\b(1[89]\d\d|2\d\d\d)\b")


def council_members(services: Services, config: Configuration, node: str) -> list[str]:
    """`council_models`, else two: the run's model and the fast model (one when they are the same)."""
    if config.council_models:
        return list(dict.fromkeys(config.council_models))
    run_model = config.model_overrides.get(node) or config.research_model
    members = [
        services.caller(node, "smart", spec=run_model).spec,
        services.caller(node, "fast", spec=config.fast_model).spec,
    ]
    return list(dict.fromkeys(members))


async def convene(
    services: Services,
    config: Configuration,
    node: str,
    schema: type[ReviewT],
    messages: Sequence[BaseMessage],
) -> tuple[list[tuple[str, ReviewT | None]], list[ModelCallRecord], list[ErrorRecord]]:
    """Every council member's answer, asked in parallel; a member that fails answers None."""
    members = council_members(services, config, node)
    callers: list[ModelCaller] = []

    async def ask(member: str) -> ReviewT:
        caller = services.caller(node, "smart", spec=member)  # may be misconfigured
        callers.append(caller)
        return await caller.structured(schema, messages)

    answers = await asyncio.gather(*(ask(member) for member in members), return_exceptions=True)
    results: list[tuple[str, ReviewT | None]] = []
    errors: list[ErrorRecord] = []
    for name, answer in zip(members, answers, strict=True):
        if isinstance(answer, BaseException):
            if not isinstance(answer, ResearchStudioError):
                raise answer
            errors.append(error_record(node, answer, name))
            results.append((name, None))
        else:
            results.append((name, answer))
    return results, call_records(*callers), errors


def _share(votes: Sequence[CouncilVote], decision: str) -> float | None:
    """The confidence-weighted share of one decision among the members that answered."""
    answered = [vote for vote in votes if vote["decision"] != "failed"]
    if not answered:
        return None
    weights = [max(vote["confidence"], 0.05) for vote in answered]  # a shrug still counts a little
    chosen = sum(
        w for w, vote in zip(weights, answered, strict=True) if vote["decision"] == decision
    )
    return round(chosen / sum(weights), 3)


def consensus(votes: Sequence[CouncilVote]) -> float | None:
    """The confidence-weighted share of approvals among the members that answered."""
    return _share(votes, "approve")


def rejection(votes: Sequence[CouncilVote]) -> float:
    """The confidence-weighted share of rejections among the members that answered."""
    return _share(votes, "reject") or 0.0


def council_outcome(
    agreement: float | None, minimum: float, revision: int, cap: int, rejected: float = 0.0
) -> str:
    """approved, rejected (final), revise, revision_cap (accepted as it is), or no_council.

    A brief that half the council (by confidence) rejects researches the wrong thing: no
    revision count lets it through.
    """
    if agreement is None:
        return "no_council"
    if rejected >= REJECT_SHARE:
        return "rejected"
    if agreement >= minimum:
        return "approved"
    return "revise" if revision < cap else "revision_cap"


async def synthesised_feedback(
    services: Services, feedback: list[str]
) -> tuple[str, list[ModelCallRecord], list[ErrorRecord]]:
    """The members' feedback as one instruction: the fast model merges several, code dedupes."""
    unique = list(dict.fromkeys(item.strip() for item in feedback if item.strip()))
    if len(unique) < 2:
        return (unique[0] if unique else ""), [], []
    caller = services.caller("validate_brief", "fast")
    listing = "\n".join(f"- {item}" for item in unique)
    messages = [
        SystemMessage(content=SYNTHESIS_SYSTEM),
        HumanMessage(content=SYNTHESIS_USER.format(feedback=listing)),
    ]
    errors: list[ErrorRecord] = []
    merged = await attempt(caller.structured(FeedbackSynthesis, messages), "validate_brief", errors)
    # Without the merge every point is still one instruction, in the council's order.
    instruction = merged.instruction.strip() if merged is not None else ""
    return instruction or "; ".join(unique), call_records(caller), errors


async def validate_brief(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The council's votes on the brief; below the consensus minimum it goes back for revision."""
    config = runtime.context
    if not config.use_council:
        return {"council_outcome": "skipped"}
    emit = emitter(runtime, "validate_brief")
    revision = state.get("council_revision_count", 0)
    emit(f"council reviews the brief (revision {revision})")
    messages = [
        SystemMessage(content=COUNCIL_SYSTEM),
        HumanMessage(
            content=COUNCIL_USER.format(
                request=request_block(state["query"], state.get("user_clarification", "")),
                brief=state.get("research_brief", ""),
            )
        ),
    ]
    answers, calls, errors = await convene(
        services_of(runtime), config, "validate_brief", CouncilReview, messages
    )
    votes = [
        CouncilVote(
            model=spec,
            decision=review.decision if review else "failed",
            confidence=review.confidence if review else 0.0,
            feedback=review.feedback.strip() if review else "",
        )
        for spec, review in answers
    ]
    agreement = consensus(votes)
    outcome = council_outcome(
        agreement,
        config.council_min_consensus,
        revision,
        config.council_max_revisions,
        rejection(votes),
    )
    feedback = [
        vote["feedback"]
        for vote in votes
        if vote["decision"] in ("revise", "reject") and vote["feedback"]
    ]
    instruction = ""
    if outcome in ("revise", "rejected"):
        instruction, merge_calls, merge_errors = await synthesised_feedback(
            services_of(runtime), feedback
        )
        calls, errors = [*calls, *merge_calls], [*errors, *merge_errors]
    emit(f"council: {outcome} (consensus {agreement})")
    update: dict[str, Any] = {
        "council_votes": [*state.get("council_votes", []), *votes],
        "council_consensus": agreement if agreement is not None else 0.0,
        "council_outcome": outcome,
        "council_brief_feedback": instruction,
        "llm_calls": calls,
        "errors": errors,
    }
    if outcome == "revise":
        update["council_revision_count"] = revision + 1
        update["feedback_on_brief"] = [
            instruction or "Make the brief more specific to the request."
        ]
    return update


def brief_rejected(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """The council rejected the brief: no research on the wrong thing; the report says why."""
    reason = state.get("council_brief_feedback", "") or "it researches the wrong thing"
    emitter(runtime, "brief_rejected")(f"the council rejected the brief: {reason}")
    report = f"# {state['query']}\n\n{REJECTED_REPORT.format(brief=state.get('research_brief', ''), reason=reason)}\n"
    summary = RunSummary(
        iterations=0,
        coverage=0.0,
        confidence=0.0,
        cited_sources=[],
        grounding={},
        figures={
            "council_outcome": "rejected",
            "council_consensus": state.get("council_consensus", 0.0),
            "council_revisions": state.get("council_revision_count", 0),
            "council_votes": state.get("council_votes", []),
            "council_feedback": reason,
        },
    )
    return {
        **report_update(
            runtime, state, report=report, statements=[], summary=summary, calls=[], errors=[]
        ),
        "sources": [],
        "evidence": [],
        "claims": [],
    }


def make_review_brief(
    ask_human: bool,
) -> Callable[[AgentState, Runtime[Configuration]], dict[str, Any]]:
    """The human review of the brief: approve it as it is, or reply with an edited brief."""

    def review_brief(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
        brief = state.get("research_brief", "")
        if not ask_human or runtime.context.review_mode == "none":
            return {"human_approved_brief": brief}
        reply = state.get("review_reply") or interrupt(
            {
                "kind": "brief_review",
                "question": "Approve the research brief (reply approve) or reply with an edited brief.",
                "brief": brief,
                "council": state.get("council_outcome", ""),
                "consensus": state.get("council_consensus", 0.0),
            }
        )
        edited = reply.get("brief", "") if isinstance(reply, dict) else str(reply or "")
        if edited.strip().lower() in APPROVALS:
            return {"human_approved_brief": brief, "review_reply": ""}
        edit = edited.strip()
        return {"human_approved_brief": edit, "research_brief": edit, "review_reply": ""}

    return review_brief


def impossible_dates(notes: str, sources: str, year: int) -> list[str]:
    """Years after this one that the notes state but no source contains (checked by code)."""
    later = sorted({y for y in _YEAR.findall(notes) if int(y) > year and y not in sources})
    return [f"impossible_date: {y} is in the future and in no source" for y in later]


async def validate_findings(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Advisory fact-check of the notes: code flags future dates, the council the rest."""
    config = runtime.context
    services = services_of(runtime)
    notes = "\n\n".join(state.get("notes", []))[:MAX_NOTES_CHARS]
    sources = state.get("source_store", [])
    contents = "\n".join(source["content"] for source in sources)
    flagged = impossible_dates(notes, contents, int(today()[:4]))
    calls: list[ModelCallRecord] = []
    errors: list[ErrorRecord] = []
    if config.use_findings_council and notes.strip() and not services.extraction.verbatim:
        emitter(runtime, "validate_findings")("council fact-checks the research notes")
        listing = "\n".join(f"- {source['title']} — {source['url']}" for source in sources)
        messages = [
            SystemMessage(content=FINDINGS_SYSTEM.format(today=today())),
            HumanMessage(
                content=FINDINGS_USER.format(
                    brief=state.get("research_brief", ""), sources=listing or "(none)", notes=notes
                )
            ),
        ]
        answers, calls, errors = await convene(
            services, config, "validate_findings", FindingsReview, messages
        )
        for _spec, review in answers:
            for issue in review.issues if review else []:
                line = f"{issue.kind}: {issue.detail.strip()}"
                if line not in flagged:
                    flagged.append(line)
    return {"flagged_issues": flagged, "llm_calls": calls, "errors": errors}

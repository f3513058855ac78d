"""Plan review: the plan as a person reads it, and their reply (approve, edit, cancel) as an edit.

A graph with `review_plan` set pauses before its `review_plan` node; the runner (or a LangGraph
client) puts the reply in the state's `plan_feedback`, and the node applies it to the plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import get_runtime

from research_studio.core.config import Configuration
from research_studio.core.queries import content_words

REVIEW_NODE = "review_plan"
# The name of the message that shows the plan in the thread: a chat message after it replies.
PLAN_MESSAGE = "plan"
APPROVALS = frozenset({"", "y", "yes", "ok", "okay", "approve", "approved", "go", "continue"})
CANCELS = frozenset({"n", "no", "cancel", "stop", "abort", "quit", "q"})
# A free-text edit this short is also worth searching and answering as a question.
MAX_NOTE_WORDS = 25
_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(?P<text>.+?)\s*$")
_HEADER = re.compile(r"^\s*(?P<name>questions|searches|outline)\s*:\s*$", re.IGNORECASE)

EditKind = Literal["approve", "cancel", "list", "text"]


@dataclass(frozen=True)
class PlanEdit:
    """What a reply asks for: keep the plan, cancel, replace its lists, or add a note."""

    kind: EditKind
    questions: list[str] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)
    outline: list[str] = field(default_factory=list)
    note: str = ""


def parse_reply(reply: str) -> PlanEdit:
    """An edited list (lines starting with '-' or '1.', optionally under 'Searches:' or
    'Outline:' headers), approval words, cancel words, or free text."""
    text = reply.strip()
    if text.lower().rstrip(".!") in APPROVALS:
        return PlanEdit("approve")
    if text.lower().rstrip(".!") in CANCELS:
        return PlanEdit("cancel")
    lists: dict[str, list[str]] = {"questions": [], "searches": [], "outline": []}
    current = "questions"
    for line in text.splitlines():
        if header := _HEADER.match(line):
            current = header["name"].lower()
        elif item := _ITEM.match(line):
            lists[current].append(item["text"])
    if any(lists.values()):
        return PlanEdit("list", lists["questions"], lists["searches"], lists["outline"])
    return PlanEdit("text", note=" ".join(text.split()))


def plan_text(questions: Sequence[str], searches: Sequence[str], outline: Sequence[str]) -> str:
    """The plan as shown for review; editing these lists and sending them back edits the plan."""
    parts = ["Questions:", *(f"{n}. {q}" for n, q in enumerate(questions, 1))]
    if searches:
        parts += ["", "Searches:", *(f"- {s}" for s in searches)]
    if outline:
        parts += ["", "Outline:", *(f"- {o}" for o in outline)]
    return "\n".join(parts)


def short_note(note: str) -> bool:
    """A note short enough to be a research question and a search."""
    return 0 < len(note.split()) <= MAX_NOTE_WORDS


def with_note(clarification: str, note: str) -> str:
    """The user's clarification with the plan-review note added (every later prompt shows it)."""
    return f"{clarification}\n{note}".strip() if clarification else note


def best_section(text: str, outline: Sequence[str]) -> str:
    """The outline entry sharing most content words with `text` (the first on ties)."""
    if not outline:
        return text
    words = set(content_words(text))
    return max(outline, key=lambda entry: len(words & set(content_words(entry))))


def review_requested(state: Mapping[str, Any]) -> bool:
    """Whether the plan goes to review: the run's `review_plan` setting, or a reply is waiting.

    A reply given while paused is written to the state outside a run (no runtime): the waiting
    reply alone must then route the plan to `review_plan`.
    """
    if state.get("plan_feedback"):
        return True
    try:
        runtime = get_runtime(Configuration)
    except RuntimeError:  # outside a graph run
        return False
    return bool(getattr(getattr(runtime, "context", None), "review_plan", False))


def review_or(
    next_step: str | Callable[[Any], str],
) -> Callable[[Mapping[str, Any]], str]:
    """A router after planning: to `review_plan` (a pause) when the plan goes to review, else to
    `next_step` (a node, or a router choosing one)."""

    def route_after_plan(state: Mapping[str, Any]) -> str:
        if review_requested(state):
            return REVIEW_NODE
        return next_step if isinstance(next_step, str) else next_step(state)

    return route_after_plan


def plan_message(text: str) -> AIMessage:
    """The plan as the thread's messages show it (Studio's chat), marked as the plan."""
    return AIMessage(content=text, name=PLAN_MESSAGE)


def chat_reply(state: Mapping[str, Any]) -> str:
    """A chat message sent to a thread paused at plan review: the reply to the plan.

    Studio's chat sends a reply as a new human message, which starts the graph over; this is
    that message's text when it follows the plan's own message (`plan_message`) in a run that
    reviews its plan, no reply waits and no report is written; "" otherwise."""
    if state.get("report") or state.get("plan_feedback"):
        return ""
    messages = state.get("messages") or []
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return ""
    shown = messages[-2]
    if not isinstance(shown, AIMessage) or shown.name != PLAN_MESSAGE:
        return ""
    return messages[-1].text.strip() if review_requested(state) else ""

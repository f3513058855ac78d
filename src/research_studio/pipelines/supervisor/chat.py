"""The supervisor's review pauses answered in Studio's chat: which pause a typed message answers.

`review_brief` and `review_report` pause inside themselves (`interrupt`); Studio's chat sends a
reply as a new human message instead, which would start the run over. These tell, from the
thread's state, that it waits at one of them, so the entry routes the message there
(`wiring.ChatPause`), the node reading it from `review_reply`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import get_runtime

from research_studio.core.config import Configuration
from research_studio.pipelines.kit.wiring import ChatPause
from research_studio.pipelines.supervisor.prompts import BRIEF_LABEL

REPLY_KEY = "review_reply"


def _review_mode() -> str:
    try:
        return str(get_runtime(Configuration).context.review_mode)
    except RuntimeError:  # outside a graph run: nothing to review
        return "none"


def _typed(state: Mapping[str, Any]) -> tuple[str, Any]:
    """The last message's text when a person sent it, and the message before it."""
    messages = state.get("messages") or []
    if len(messages) < 2 or not isinstance(messages[-1], HumanMessage):
        return "", None
    return messages[-1].text.strip(), messages[-2]


def brief_reply(state: Mapping[str, Any]) -> str:
    """A chat message right after the brief, while no brief is approved: the reply to it."""
    if state.get("report") or state.get("human_approved_brief") or _review_mode() == "none":
        return ""
    text, shown = _typed(state)
    brief = isinstance(shown, AIMessage) and shown.text.startswith(BRIEF_LABEL)
    return text if brief else ""


def report_reply(state: Mapping[str, Any]) -> str:
    """A chat message while the drafted report waits for its review (review_mode=full): a
    report the council did not reject, not yet reviewed or rewritten on feedback since."""
    if not state.get("report") or state.get("council_outcome") == "rejected":
        return ""
    reviewed = state.get("metadata", {}).get("human_review")
    if (reviewed and not state.get("revise_report")) or _review_mode() != "full":
        return ""
    return _typed(state)[0]


# In the order the run meets them.
REVIEW_PAUSES = (
    ChatPause("review_brief", REPLY_KEY, brief_reply),
    ChatPause("review_report", REPLY_KEY, report_reply),
)

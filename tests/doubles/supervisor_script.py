"""A prompt-driven stand-in model for the supervisor pipeline: every role, tool calls included.

Replies are computed from the prompts (the brief, the topic, the page text, the passages), so
runs behave like real ones; knobs make it disagree, fabricate, or rewrite what it must not.
`SupervisorChatModel` answers tool-calling requests (several tools bound) with tool calls, and
`chat_responder` does the same for the OpenAI-compatible endpoint of the local web.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from research_studio.core.chunking import split_sentences
from research_studio.core.prompt_blocks import REQUEST_LABEL
from research_studio.pipelines.supervisor import prompts as P
from tests.doubles.fake_chat import ChatToolCall
from tests.doubles.prompt_reader import after_label, readings
from tests.doubles.scripted_model import (
    RecordedCall,
    ScriptedChatModel,
    ScriptedRequest,
)

TOOLS_KEY = "tools:"  # schema name of a tool-calling request: "tools:" + the tools' names
_SCHEMA_IN_PROMPT = re.compile(r"conform to this JSON schema:\n")
_SOURCE_URL = re.compile(r"^URL: (\S+)$", re.MULTILINE)
_SUMMARY = re.compile(r"^SUMMARY:\n(.+)$", re.MULTILINE)
_PAGE = re.compile(re.escape(P.PAGE_TEXT_LABEL) + r"\n<<<\n(.*?)\n>>>", re.DOTALL)


def tool_key(names: list[str]) -> str:
    return TOOLS_KEY + ",".join(names)


def _short(text: str, words: int = 6) -> str:
    return " ".join(re.sub(r"[?.!:;,]", "", text).split()[:words])


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


class SupervisorChatModel(ScriptedChatModel):
    """A scripted model that also answers tool-calling requests with (parallel) tool calls.

    With two or more tools bound the request's schema name is `tool_key(names)` and a reply is
    a list of {"name", "args"} dicts (the calls) or a str (plain text, no calls).
    """

    def _respond(
        self, messages: list[BaseMessage], tools: Any
    ) -> tuple[AIMessage, RecordedCall, float]:
        if not tools or len(tools) < 2:
            return super()._respond(messages, tools)
        request = ScriptedRequest(tool_key([t["function"]["name"] for t in tools]), messages)
        started = time.monotonic()
        reply = self._reply_for(request)
        calls = reply if isinstance(reply, list) else []
        text = reply if isinstance(reply, str) else json.dumps(calls)
        message = AIMessage(
            content=reply if isinstance(reply, str) else "",
            tool_calls=[
                {"name": c["name"], "args": c["args"], "id": f"call_{uuid.uuid4().hex[:8]}"}
                for c in calls
            ],
        )
        tokens = max(1, len(request.prompt) // 4), max(1, len(text) // 4)
        message.usage_metadata = {
            "input_tokens": tokens[0],
            "output_tokens": tokens[1],
            "total_tokens": sum(tokens),
        }
        call = RecordedCall(request.schema_name, request.prompt, text, started, started)
        return message, call, self.latency_s


@dataclass
class SupervisorScript:
    """Knobs: ambiguity, delegation, council votes, fabrications, a writer that rewrites."""

    ambiguous: bool = False
    # with `ambiguous`: the options offered (default: two readings of the subject)
    clarification_options: list[str] | None = None
    topics: int = 2  # ConductResearch calls per delegation round
    rounds: int = 1  # delegation rounds before ResearchComplete
    council: list[str] = field(default_factory=lambda: ["approve"])  # decisions, in turn
    council_confidence: float = 0.9
    council_feedback: str = "Name the time period to cover."
    fabricated_quote: str | None = None  # the compressor claims a page says this
    selector_fabricates: bool = False  # the selector alters a passage and offers the fabrication
    writer_rewrites_block: bool = False
    writer_unsupported_claim: str | None = None  # bound to the first evidence id
    findings_issues: list[str] = field(default_factory=list)
    _turns: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _count(self, name: str) -> int:
        with self._lock:
            self._turns[name] = self._turns.get(name, 0) + 1
            return self._turns[name] - 1

    @staticmethod
    def subject(prompt: str) -> str:
        return after_label(REQUEST_LABEL, prompt) or _short(prompt)

    # --- intake and councils -----------------------------------------------------------------

    def clarify(self, prompt: str) -> dict[str, Any]:
        subject = self.subject(prompt)
        if self.ambiguous:
            return {
                "need_clarification": True,
                "question": f"Which {subject} do you mean?",
                "options": self.clarification_options or ["The programming language", "The snake"],
            }
        return {"need_clarification": False, "verification": f"I will research {subject}."}

    def brief_context(self, prompt: str) -> dict[str, Any]:
        titles = re.findall(r"^- (.+?): ", prompt, re.MULTILINE)
        return {"key_entities": titles[:3], "recent_events": [], "metrics": []}

    def brief(self, prompt: str) -> dict[str, Any]:
        subject = self.subject(prompt)
        clarification = after_label("User clarification:", prompt)
        if clarification:
            subject = f"{subject} ({clarification})"
        revision = self._count("brief")
        suffix = f" (revision {revision})" if P.FEEDBACK_LABEL in prompt else ""
        return {
            "research_brief": f"I want to understand {subject}: its causes, the latest evidence "
            f"and what is being done about it{suffix}."
        }

    def council_review(self, prompt: str) -> dict[str, Any]:
        decision = self.council[min(self._count("council"), len(self.council) - 1)]
        return {
            "decision": decision,
            "confidence": self.council_confidence,
            "feedback": "" if decision == "approve" else self.council_feedback,
        }

    def feedback_synthesis(self, prompt: str) -> dict[str, Any]:
        points = [line[2:].strip(" .") for line in prompt.splitlines() if line.startswith("- ")]
        return {"instruction": "Revise the brief: " + "; ".join(points) + "."}

    def findings_review(self, prompt: str) -> dict[str, Any]:
        return {"issues": [{"kind": "uncited_claim", "detail": d} for d in self.findings_issues]}

    # --- tool-calling roles ------------------------------------------------------------------

    def supervisor_turn(self, prompt: str) -> list[dict[str, Any]]:
        done = prompt.count(P.FINDINGS_LABEL)
        if done >= self.rounds * self.topics:
            return [_call("ResearchComplete")]
        subject = _short(after_label(P.BRIEF_LABEL, prompt).replace("I want to understand", ""), 5)
        angles = ["causes and mechanisms", "latest evidence", "responses and outlook", "history"]
        round_number = done // max(self.topics, 1)
        topics = [
            f"{subject} {angles[(round_number + i) % len(angles)]}" for i in range(self.topics)
        ]
        return [
            _call("think_tool", reflection=f"Split the brief into {len(topics)} topics."),
            *(_call("ConductResearch", research_topic=topic) for topic in topics),
        ]

    def researcher_turn(self, prompt: str) -> list[dict[str, Any]]:
        if P.SEARCH_RESULTS_LABEL in prompt or "No new sources" in prompt:
            return [_call("think_tool", reflection="Enough found."), _call("ResearchComplete")]
        return [_call("search", queries=[_short(after_label(P.TOPIC_LABEL, prompt), 6)])]

    def tools(self, names: list[str], prompt: str) -> list[dict[str, Any]]:
        return (
            self.supervisor_turn(prompt)
            if "ConductResearch" in names
            else self.researcher_turn(prompt)
        )

    def tool_choice(self, prompt: str) -> dict[str, Any]:
        """The JSON fallback: the same decisions, as {"calls": [{"tool", "arguments"}]}."""
        names = ["ConductResearch"] if "- ConductResearch:" in prompt else ["search"]
        return {
            "calls": [
                {"tool": c["name"], "arguments": c["args"]} for c in self.tools(names, prompt)
            ]
        }

    # --- reading, compressing, selecting, writing --------------------------------------------

    def page_summary(self, prompt: str) -> dict[str, Any]:
        page = _PAGE.search(prompt)
        sentences = (
            [s for s in split_sentences(page.group(1)) if 8 <= len(s.split()) <= 60] if page else []
        )
        return {
            "summary": " ".join(sentences[:2]) or "Nothing relevant.",
            "key_excerpts": sentences[:1],
        }

    def compress(self, prompt: str) -> dict[str, Any]:
        urls = _SOURCE_URL.findall(prompt)
        summaries = _SUMMARY.findall(prompt)
        quotes = [
            {"url": url, "quote": split_sentences(summary)[0]}
            for url, summary in zip(urls, summaries, strict=False)
            if summary.strip() and summary != "Nothing relevant."
        ]
        if self.fabricated_quote and urls:
            quotes.append({"url": urls[0], "quote": self.fabricated_quote})
        findings = " ".join(
            f"{summary} ({url})" for url, summary in zip(urls, summaries, strict=False)
        )
        return {"findings": findings or "Nothing was found.", "quotes": quotes[:5]}

    def selection(self, prompt: str) -> dict[str, Any]:
        found = readings(P.CANDIDATE_LINE, prompt, id=r"E\d+", sid=r"S\d+")
        picks = [{"id": item["id"], "quote": item["quote"]} for item in found[:4]]
        if self.selector_fabricates and picks:
            picks[0]["quote"] = picks[0]["quote"].replace(" ", "  ", 1)  # not byte-identical
            picks.append({"id": "E99", "quote": self.fabricated_quote or "An invented passage."})
        return {"selected": picks}

    def report(self, prompt: str) -> dict[str, Any]:
        evidence = readings(P.EVIDENCE_LINE, prompt, eid=r"E\d+", sid=r"S\d+")
        paragraphs = [
            {"statements": [{"text": item["quote"], "ids": [item["eid"]]}]} for item in evidence[:8]
        ] or [{"statements": [{"text": "Nothing was found.", "ids": []}]}]
        sections = [{"heading": "Key findings", "paragraphs": paragraphs}]
        if self.writer_unsupported_claim and evidence:
            claim = {"text": self.writer_unsupported_claim, "ids": [evidence[0]["eid"]]}
            paragraphs.append({"statements": [claim]})
        if self.writer_rewrites_block and evidence:
            first = evidence[0]
            sections.insert(
                0,
                {
                    "heading": "Verified Findings",
                    "paragraphs": [
                        {
                            "statements": [
                                {"text": f"Reportedly, {first['quote']}", "ids": [first["eid"]]}
                            ]
                        }
                    ],
                },
            )
        return {
            "title": "Research report",
            "summary": [{"text": "This report brings the evidence together.", "ids": []}],
            "sections": sections,
            "conclusion": [],
        }

    # --- dispatch ----------------------------------------------------------------------------

    def responders(self) -> dict[str, Callable[[str], Any]]:
        return {
            "ClarifyWithUser": self.clarify,
            "BriefContext": self.brief_context,
            "ResearchQuestion": self.brief,
            "CouncilReview": self.council_review,
            "FeedbackSynthesis": self.feedback_synthesis,
            "FindingsReview": self.findings_review,
            "ToolChoice": self.tool_choice,
            "PageSummary": self.page_summary,
            "CompressedResearch": self.compress,
            "FindingsSelection": self.selection,
            "ReportDraft": self.report,
        }

    def respond(self, name: str | None, prompt: str) -> Any:
        if name is None:
            return "OK"
        if name.startswith(TOOLS_KEY):
            return self.tools(name[len(TOOLS_KEY) :].split(","), prompt)
        return self.responders()[name](prompt)

    def __call__(self, request: ScriptedRequest) -> Any:
        return self.respond(request.schema_name, request.prompt)

    def model(self, **kwargs: Any) -> SupervisorChatModel:
        """A scripted model answering every role of the supervisor pipeline from this script."""
        return SupervisorChatModel(fallback=self, **kwargs)

    def chat_responder(self) -> Callable[[dict[str, Any]], Any]:
        """A responder for the local OpenAI-compatible endpoint (tools, JSON schema, JSON mode)."""

        def respond(request: dict[str, Any]) -> Any:
            tools = request.get("tools") or []
            names = [tool["function"]["name"] for tool in tools]
            prompt = "\n\n".join(str(m.get("content") or "") for m in request.get("messages", []))
            if len(names) >= 2:
                reply = self.tools(names, prompt)
                return [ChatToolCall(call["name"], call["args"]) for call in reply]
            name = names[0] if names else None
            response_format = request.get("response_format") or {}
            name = name or (response_format.get("json_schema") or {}).get("name")
            if name is None and (marker := _SCHEMA_IN_PROMPT.search(prompt)):
                name = json.JSONDecoder().raw_decode(prompt, marker.end())[0].get("title")
            return self.respond(name, prompt)

        return respond

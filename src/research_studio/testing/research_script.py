"""A prompt-driven stand-in for a capable model: plays every role of the research pipelines.

Replies are computed from the prompt (the request, the research questions, the page text),
so runs behave like real ones: extraction copies real sentences from the page shown, the
writer cites the sources it was given. Knobs steer the loop for tests and benchmarks.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from research_studio.chunking import split_sentences
from research_studio.queries import STOP_WORDS
from research_studio.testing.scripted_model import ScriptedChatModel, ScriptedRequest

_REQUEST = re.compile(r"^Research request: (.+)$", re.MULTILINE)
_CLARIFICATION = re.compile(r"^User clarification: (.+)$", re.MULTILINE)
_PAGE = re.compile(r"Page text:\n<<<\n(.*?)\n>>>", re.DOTALL)
_SECTION = re.compile(r"^{label}:\n((?:\d+\. .*\n?)+)", re.MULTILINE)
_EVIDENCE_GROUP = re.compile(r"^Question: (.+)\n((?:\[E\d+\] .*\n    quote: .*\n?)+)", re.MULTILINE)
_EVIDENCE_ITEM = re.compile(r"^\[(E\d+)\] \(source (S\d+)\) (.*)$", re.MULTILINE)
_CLAIM = re.compile(r"^(\d+)\. Claim: ", re.MULTILINE)
_SCHEMA_IN_PROMPT = re.compile(r"conform to this JSON schema:\n")
_WORD = re.compile(r"[a-z0-9]+")


def _found(pattern: str, text: str) -> str:
    """The first group of a pattern the pipeline's own prompt is known to contain ("" otherwise)."""
    match = re.search(pattern, text)
    return match.group(1) if match else ""


def _numbered(prompt: str, label: str) -> list[str]:
    match = re.search(_SECTION.pattern.format(label=re.escape(label)), prompt, re.MULTILINE)
    if not match:
        return []
    return [
        re.sub(r"^\d+\. ", "", line).strip() for line in match.group(1).splitlines() if line.strip()
    ]


def _terms(text: str) -> set[str]:
    return {
        word for word in _WORD.findall(text.lower()) if word not in STOP_WORDS and len(word) > 2
    }


def _short(text: str, words: int = 6) -> str:
    return " ".join(re.sub(r"[?.!]", "", text).split()[:words])


@dataclass
class ResearchScript:
    """Knobs: ambiguity, per-round coverage and readiness, verification verdicts, a bogus citation."""

    ambiguous: bool = False
    coverage: list[float] = field(default_factory=lambda: [0.9])
    ready: list[bool] = field(default_factory=lambda: [True])
    follow_up_searches: bool = True
    facts_per_page: int = 2
    unsupported_claims: set[int] = field(default_factory=set)
    bogus_citation: str | None = None
    query_class: str = "comprehensive_overview"
    subagent_confidence: list[float] = field(default_factory=lambda: [0.8])
    cross_validate: bool = True
    fabricated_spans: set[int] = field(default_factory=set)
    writer_cites_nothing: bool = False
    invented_number: bool = False
    invented_prose: bool = False
    nonexistent_evidence: bool = False
    _round: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _next(self, name: str, values: list[Any]) -> Any:
        with self._lock:
            index = self._round.get(name, 0)
            self._round[name] = index + 1
        return values[min(index, len(values) - 1)]

    def request(self, prompt: str) -> str:
        match = _REQUEST.search(prompt)
        return match.group(1).strip() if match else prompt.strip().splitlines()[-1]

    # --- roles -------------------------------------------------------------------------------

    def understanding(self, prompt: str) -> dict[str, Any]:
        query = self.request(prompt)
        if self.ambiguous:
            return {
                "understanding": f"The user asks about {query}, which has several meanings.",
                "is_clear": False,
                "ambiguity_kinds": ["polysemy"],
                "clarification_question": f"Which {query} do you mean?",
                "clarification_options": [
                    "The programming language",
                    "The snake",
                    "Something else",
                ],
            }
        return {
            "understanding": f"The user wants a researched overview of {query}.",
            "is_clear": True,
        }

    def plan(self, prompt: str) -> dict[str, Any]:
        query = self.request(prompt)
        clarification = _CLARIFICATION.search(prompt)
        subject = f"{query} {clarification.group(1)}" if clarification else query
        topic = _short(subject, 5)
        return {
            "research_questions": [
                f"What is {topic} and how does it work?",
                f"What are the latest developments in {topic}?",
                f"What are the main challenges of {topic}?",
            ],
            "aspects_to_cover": ["definitions", "recent developments", "challenges"],
            "searches": [
                topic,
                f"{topic} latest developments",
                f"{topic} challenges",
                f"{topic} data 2024",
            ],
        }

    def work_plan(self, prompt: str) -> dict[str, Any]:
        suggested = _numbered(prompt, "Suggested follow-up searches")
        questions = suggested or _numbered(prompt, "Research questions")
        return {
            "sub_questions": [
                {"question": question, "searches": [_short(question)]} for question in questions
            ]
        }

    def extraction(self, prompt: str) -> dict[str, Any]:
        page = _PAGE.search(prompt)
        if not page:
            return {"facts": []}
        wanted = _terms(
            self.request(prompt) + " " + " ".join(_numbered(prompt, "Research questions"))
        )
        sentences = [
            s
            for s in split_sentences(page.group(1))
            if 8 <= len(s.split()) <= 60 and not s.startswith("#")
        ]
        ranked = sorted(sentences, key=lambda s: -len(_terms(s) & wanted))
        questions = _numbered(prompt, "Research questions") or [""]
        return {
            "facts": [
                {"fact": sentence, "quote": sentence, "question": questions[index % len(questions)]}
                for index, sentence in enumerate(ranked[: self.facts_per_page])
                if _terms(sentence) & wanted
            ]
        }

    def worker_summary(self, prompt: str) -> dict[str, Any]:
        findings = re.findall(r"^- (.*?) \(quote:", prompt, re.MULTILINE)
        return {
            "answer": " ".join(findings[:2]) or "Nothing found.",
            "key_findings": findings[:3],
            "confidence": 0.8 if findings else 0.1,
            "gaps": [],
        }

    def gaps(self, prompt: str) -> dict[str, Any]:
        coverage = self._next("gaps", self.coverage)
        ready = self._next("ready", self.ready)
        questions = _numbered(prompt, "Research questions")
        round_number = self._round["gaps"]
        searches = (
            [f"{_short(q, 4)} evidence round {round_number}" for q in questions[:2]]
            if self.follow_up_searches
            else []
        )
        return {
            "coverage": coverage,
            "gaps": [] if ready else [f"More detail on {q}" for q in questions[:1]],
            "new_searches": searches,
            "ready_to_write": ready,
        }

    def synthesis(self, prompt: str) -> dict[str, Any]:
        coverage = self._next("gaps", self.coverage)
        ready = self._next("ready", self.ready)
        round_number = self._round["gaps"]
        questions = _numbered(prompt, "Research questions")
        searches = (
            [f"{_short(q, 4)} evidence round {round_number}" for q in questions[:2]]
            if self.follow_up_searches
            else []
        )
        return {
            "summary": "Workers agree on the main points.",
            "key_findings": re.findall(r"^  - (.*)$", prompt, re.MULTILINE)[:4],
            "conflicts": [],
            "gaps": [] if ready else ["Some questions need more evidence"],
            "confidence": coverage,
            "needs_more_research": not ready,
            "additional_searches": searches,
        }

    def verification(self, prompt: str) -> dict[str, Any]:
        indices = [int(number) for number in _CLAIM.findall(prompt)]
        return {
            "claims": [
                {"index": i, "supported": i not in self.unsupported_claims, "reason": "checked"}
                for i in indices
            ]
        }

    def report(self, prompt: str) -> dict[str, Any]:
        if "<<<CLAIMS" in prompt:
            return self.advanced_report(prompt)
        sections = []
        for question, block in _EVIDENCE_GROUP.findall(prompt):
            paragraphs = [
                {"statements": [self._statement(text, [eid])]}
                for eid, _sid, text in _EVIDENCE_ITEM.findall(block)
            ]
            if paragraphs:
                sections.append({"heading": question.strip()[:80], "paragraphs": paragraphs})
        if not sections:
            sections = [
                {"heading": "Findings", "paragraphs": [{"statements": [{"text": "Nothing."}]}]}
            ]
        return self._draft(f"Research report: {_short(self.request(prompt), 8)}", sections)

    def _statement(self, text: str, ids: list[str]) -> dict[str, Any]:
        """A statement as this script's writer words it (the adversarial knobs apply here)."""
        if self.writer_cites_nothing:
            return {"text": f"{text} [S1]", "ids": []}
        return {"text": text, "ids": ids}

    def _draft(self, title: str, sections: list[dict[str, Any]]) -> dict[str, Any]:
        first = sections[0]["paragraphs"][0]["statements"]
        summary = [{"text": "This report brings the evidence together.", "ids": []}]
        if first and first[0].get("ids"):
            summary.append(first[0])
        if self.bogus_citation:
            summary.append(
                {"text": f"An unsupported aside {self.bogus_citation}.", "ids": ["E999"]}
            )
        if self.invented_number and first and first[0].get("ids"):
            sections[0]["paragraphs"].append(
                {
                    "statements": [
                        {"text": "The effect reached 97.3 percent by 2031.", "ids": first[0]["ids"]}
                    ]
                }
            )
        if self.invented_prose:
            sections.insert(
                0,
                {
                    "heading": "#/#/#",
                    "paragraphs": [
                        {
                            "statements": [
                                {
                                    "text": "VACUUM is a function that protects data from corruption.",
                                    "ids": [],
                                }
                            ]
                        }
                    ],
                },
            )
        return {
            "title": title,
            "summary": summary,
            "sections": sections,
            "conclusion": [
                {"text": "The sources above support these findings.", "ids": []},
                *sections[-1]["paragraphs"][-1]["statements"][-1:],
            ],
        }

    # --- advanced pipeline roles ----------------------------------------------------------------

    def query_analysis(self, prompt: str) -> dict[str, Any]:
        query = prompt.rsplit("Query: ", 1)[-1].strip()
        topic = _short(query, 5)
        analysis = {
            "intent": f"Understand {query}",
            "query_class": self.query_class,
            "primary_subject": topic,
            "subject_type": "topic",
            "temporal_scope": "recent" if self.query_class == "current_events" else "timeless",
            "domain": "general",
            "complexity": "complex",
            "ambiguity_level": "none",
            "needs_clarification": False,
            "suggested_questions": [f"What is {topic}?", f"What are the effects of {topic}?"],
            "suggested_outline": ["Background", "Evidence", "Outlook"],
            "analysis_confidence": 0.9,
        }
        if self.ambiguous:
            analysis.update(
                query_class="person_profile",
                ambiguity_level="high",
                needs_clarification=True,
                analysis_confidence=0.3,
                clarification_question=f"There are many matches for {query}. Which one do you mean?",
                clarification_options=[
                    "Specify the university",
                    "Specify the field",
                    "Provide other context",
                ],
            )
        return analysis

    def clarification(self, prompt: str) -> dict[str, Any]:
        query = re.search(r"Original query: (.+)", prompt)
        answer = re.search(r"User's clarification: (.+)", prompt)
        subject = f"{query.group(1) if query else ''} ({answer.group(1) if answer else ''})".strip()
        return {
            "enriched_context": f"Research {subject}.",
            "updated_intent": f"Learn about {subject}",
            "updated_subject": subject,
            "updated_class": "person_profile",
            "suggested_questions": [f"What is known about {subject}?"],
            "confidence_boost": 0.35,
        }

    def advanced_plan(self, prompt: str) -> dict[str, Any]:
        brief = re.search(r"Research brief: (.+)", prompt)
        anchor = re.search(r"primary subject: (.+)", prompt)
        topic = _short(anchor.group(1) if anchor else (brief.group(1) if brief else "topic"), 5)
        outline = ["Background", "Evidence", "Outlook"]
        angles = [
            ("how it works", 1.0),
            ("latest data", 0.9),
            ("main challenges", 0.8),
            ("future outlook", 0.6),
        ]
        tree = [
            {
                "question": f"What about {topic}: {angle}?",
                "section": outline[min(i, 2)],
                "queries": [f"{topic} {angle}"],
                "target_sources": ["news"],
                "priority": priority,
            }
            for i, (angle, priority) in enumerate(angles)
        ]
        return {
            "topic": f"Research on {topic}",
            "outline": outline,
            "research_tree": {"primary": tree[:3], "secondary": tree[3:]},
            "search_strategy": "broad first",
        }

    def subagent_extraction(self, prompt: str) -> dict[str, Any]:
        wanted = _terms(
            _found(r"Your question: (.+)", prompt) if "Your question:" in prompt else prompt[:200]
        )
        items = []
        for number, text in re.findall(
            r"^PAGE (\d+): .*?\n<<<\n(.*?)\n>>>", prompt, re.MULTILINE | re.DOTALL
        ):
            sentences = [
                s
                for s in split_sentences(text.replace("[...]", ""))
                if 8 <= len(s.split()) <= 60 and not s.startswith("#") and _terms(s) & wanted
            ]
            items += [
                {"page": int(number), "text": s, "quote": s}
                for s in sentences[: self.facts_per_page]
            ]
        confidence = self._next("subagent", self.subagent_confidence)
        return {
            "evidence": items,
            "confidence": confidence,
            "summary": " ".join(str(i["text"]) for i in items[:2]) or "Nothing relevant.",
            "refined_queries": []
            if confidence >= 0.7
            else [f"{' '.join(sorted(wanted)[:3])} refined"],
        }

    def gap_analysis(self, prompt: str) -> dict[str, Any]:
        confidence = self._next("gaps", self.coverage)
        ready = self._next("ready", self.ready)
        outline = _found(r"Outline: (.+)", prompt).split("; ")
        round_number = self._round["gaps"]
        gaps = (
            []
            if ready
            else [
                {
                    "section": outline[-1],
                    "severity": "high",
                    "description": f"Thin coverage of {outline[-1]}",
                    "suggested_queries": [
                        f"{outline[-1]} evidence round {round_number}",
                        f"{outline[0]} data round {round_number}",
                    ],
                }
            ]
        )
        return {
            "section_analysis": [{"section": s, "confidence": confidence} for s in outline],
            "overall_confidence": confidence,
            "gaps": gaps,
            "recommendation": "sufficient" if ready else "continue",
        }

    def credibility_and_claims(self, prompt: str) -> dict[str, Any]:
        sections = _found(r"SECTIONS: (.+)", prompt).split("; ")
        sids = re.findall(r"^\[(S\d+)\] ", prompt, re.MULTILINE)
        evidence = re.findall(r"^\[(E\d+)\] \(from (S\d+)\) (.*?) — ", prompt, re.MULTILINE)
        claims = []
        for index, (eid, sid, text) in enumerate(evidence[:10]):
            support = ["E999"] if self.nonexistent_evidence and index == 0 else [eid]
            if self.cross_validate:
                support += [other for other, other_sid, _ in evidence if other_sid != sid][:1]
            claims.append(
                {
                    "text": text,
                    "section": sections[index % len(sections)],
                    "supporting_eids": support,
                }
            )
        return {
            "source_assessments": [
                {"sid": sid, "authority": 0.8, "content_quality": 0.8} for sid in sids
            ],
            "claims": claims,
        }

    def claim_verification(self, prompt: str) -> dict[str, Any]:
        checks = []
        for cid, text, eids in re.findall(
            r"^\[(C\d+)\] \(.*?\) (.*) — evidence: (.+)$", prompt, re.MULTILINE
        ):
            fabricated = int(cid[1:]) in self.fabricated_spans
            span = (
                "the moon is made of green cheese according to every expert"
                if fabricated
                else " ".join(text.split()[:10])
            )
            checks.append(
                {
                    "cid": cid,
                    "verified": True,
                    "evidence_span": span,
                    "source_eid": eids.split(", ")[0],
                    "match_confidence": 0.9,
                    "cross_validated": True,
                }
            )
        return {"checks": checks}

    def advanced_report(self, prompt: str) -> dict[str, Any]:
        outline = _found(r"OUTLINE: (.+)", prompt).split("; ")
        claims = re.findall(r"^\[(C\d+)\] \((.*?);.*?\) (.*)$", prompt, re.MULTILINE)
        sections = []
        for heading in outline:
            members = [(cid, text) for cid, section, text in claims if section == heading]
            if members:
                paragraphs = [
                    {"statements": [self._statement(text, [cid])]} for cid, text in members
                ]
                sections.append({"heading": heading, "paragraphs": paragraphs})
        if not sections:
            sections = [
                {"heading": outline[0], "paragraphs": [{"statements": [{"text": "Nothing."}]}]}
            ]
        return self._draft(_found(r"TITLE: (.+)", prompt), sections)

    # --- dispatch ----------------------------------------------------------------------------

    def responders(self) -> dict[str, Callable[[str], Any]]:
        return {
            "Understanding": self.understanding,
            "ResearchPlan": self.plan,
            "WorkPlan": self.work_plan,
            "PageExtraction": self.extraction,
            "WorkerSummary": self.worker_summary,
            "GapAssessment": self.gaps,
            "SynthesisOutput": self.synthesis,
            "Verification": self.verification,
            "ReportDraft": self.report,
            "QueryAnalysisOutput": self.query_analysis,
            "ClarificationOutput": self.clarification,
            "PlanOutput": self.advanced_plan,
            "SubagentExtraction": self.subagent_extraction,
            "GapAnalysis": self.gap_analysis,
            "CredibilityAndClaims": self.credibility_and_claims,
            "ClaimVerification": self.claim_verification,
        }

    def respond(self, schema_name: str | None, prompt: str) -> Any:
        """The reply for a schema (None: a free-text call)."""
        if schema_name is None:
            return "OK"
        return self.responders()[schema_name](prompt)

    def __call__(self, request: ScriptedRequest) -> Any:
        return self.respond(request.schema_name, request.prompt)

    def model(self, **kwargs: Any) -> ScriptedChatModel:
        """A scripted model answering every role from this script."""
        return ScriptedChatModel(fallback=self, **kwargs)

    def chat_responder(self) -> Callable[[dict[str, Any]], Any]:
        """A responder for the fake OpenAI-compatible endpoint, dispatching on the tool/schema name."""

        def respond(request: dict[str, Any]) -> Any:
            tools = request.get("tools") or []
            name = tools[0]["function"]["name"] if tools else None
            response_format = request.get("response_format") or {}
            name = name or (response_format.get("json_schema") or {}).get("name")
            prompt = "\n\n".join(str(m.get("content") or "") for m in request.get("messages", []))
            if name is None and (marker := _SCHEMA_IN_PROMPT.search(prompt)):
                # JSON mode carries no schema name: read the schema from the prompt, as a model would.
                name = json.JSONDecoder().raw_decode(prompt, marker.end())[0].get("title")
            return self.respond(name, prompt)

        return respond

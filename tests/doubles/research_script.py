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

from pydantic import BaseModel

from research_studio.core.chunking import split_sentences
from research_studio.core.prompt_blocks import (
    CLARIFICATION_LABEL,
    LIST_SEPARATOR,
    PAGE_TEXT_CLOSE,
    PAGE_TEXT_OPEN,
    QUESTIONS_LABEL,
    REQUEST_LABEL,
)
from research_studio.core.words import stop_words
from research_studio.grounding.statements import ReportDraft
from research_studio.llm.model_prompts import SCHEMA_LABEL
from research_studio.pipelines.advanced import prompts as advanced
from research_studio.pipelines.advanced.schemas import (
    ClaimVerification,
    ClarificationOutput,
    CredibilityAndClaims,
    GapAnalysis,
    PlanOutput,
    QueryAnalysisOutput,
    SubagentExtraction,
)
from research_studio.pipelines.kit import writer
from research_studio.pipelines.standard import prompts as standard
from research_studio.pipelines.standard.schemas import (
    GapAssessment,
    ResearchPlan,
    SynthesisOutput,
    Understanding,
    Verification,
    WorkPlan,
)
from research_studio.services.extraction import PAGE_HEADER, PageExtraction
from tests.doubles.advanced_script import FamilyKnobs, family_responders
from tests.doubles.prompt_reader import (
    ANY,
    after_label,
    first_line_after,
    numbered_under,
    reader,
    readings,
)
from tests.doubles.scripted_model import ScriptedChatModel, ScriptedRequest

_WORD = re.compile(r"[a-z0-9]+")


def _terms(text: str) -> set[str]:
    return {
        word for word in _WORD.findall(text.lower()) if word not in stop_words() and len(word) > 2
    }


def _short(text: str, words: int = 6) -> str:
    return " ".join(re.sub(r"[?.!]", "", text).split()[:words])


# One page of a batch extraction prompt: its header, then its fenced text.
EXTRACT_PAGE = f"{PAGE_HEADER}\n{PAGE_TEXT_OPEN}\n{{body}}\n{PAGE_TEXT_CLOSE}"
# A quote no page of the local web holds (quotes_off_the_page).
OFF_THE_PAGE = "The committee endorsed every finding of the survey without any reservation."


@dataclass
class ResearchScript:
    """Knobs: ambiguity, per-round coverage and readiness, verification verdicts, a bogus citation."""

    ambiguous: bool = False
    # with `ambiguous`: the options offered (default: readings for the standard pipeline,
    # prompts for details for the advanced analyzer)
    clarification_options: list[str] | None = None
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
    # A model that does not number pages: every fact says it comes from page 1 of its batch.
    unnumbered_pages: bool = False
    # advanced subagents: at most this many verifiable evidence items per report section (the
    # rest quote words no page holds)
    evidence_per_section: int | None = None
    # advanced subagents: quotes that are on no page (the evidence cannot be verified)
    quotes_off_the_page: bool = False
    # advanced trust engine (batched): claims drafted, one per evidence item, at most this many
    claims_drafted: int = 10
    # --- the advanced family's variants (roles in testing/advanced_script.py) ---
    family: FamilyKnobs = field(default_factory=FamilyKnobs)
    _round: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _next(self, name: str, values: list[Any]) -> Any:
        with self._lock:
            index = self._round.get(name, 0)
            self._round[name] = index + 1
        return values[min(index, len(values) - 1)]

    def request(self, prompt: str) -> str:
        found = first_line_after(REQUEST_LABEL, prompt)
        return found.strip() if found is not None else prompt.strip().splitlines()[-1]

    # --- roles -------------------------------------------------------------------------------

    def understanding(self, prompt: str) -> dict[str, Any]:
        query = self.request(prompt)
        if self.ambiguous:
            return {
                "understanding": f"The user asks about {query}, which has several meanings.",
                "is_clear": False,
                "ambiguity_kinds": ["polysemy"],
                "clarification_question": f"Which {query} do you mean?",
                "clarification_options": self.clarification_options
                or ["The programming language", "The snake", "Something else"],
            }
        return {
            "understanding": f"The user wants a researched overview of {query}.",
            "is_clear": True,
        }

    def plan(self, prompt: str) -> dict[str, Any]:
        query = self.request(prompt)
        clarification = first_line_after(CLARIFICATION_LABEL, prompt)
        subject = f"{query} {clarification}" if clarification is not None else query
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
        suggested = numbered_under(standard.SUGGESTED_SEARCHES_LABEL, prompt)
        questions = suggested or numbered_under(QUESTIONS_LABEL, prompt)
        return {
            "sub_questions": [
                {"question": question, "searches": [_short(question)]} for question in questions
            ]
        }

    def extraction(self, prompt: str) -> dict[str, Any]:
        wanted = _terms(
            self.request(prompt) + " " + " ".join(numbered_under(QUESTIONS_LABEL, prompt))
        )
        questions = numbered_under(QUESTIONS_LABEL, prompt) or [""]
        facts: list[dict[str, Any]] = []
        for page in readings(EXTRACT_PAGE, prompt, body=ANY):
            sentences = [
                s
                for s in split_sentences(page["body"])
                if 8 <= len(s.split()) <= 60 and not s.startswith("#")
            ]
            ranked = sorted(sentences, key=lambda s: -len(_terms(s) & wanted))
            facts += [
                {
                    "page": 1 if self.unnumbered_pages else int(page["number"]),
                    "fact": sentence,
                    "quote": sentence,
                    "question": questions[index % len(questions)],
                }
                for index, sentence in enumerate(ranked[: self.facts_per_page])
                if _terms(sentence) & wanted
            ]
        texts = [fact["fact"] for fact in facts]
        return {
            "facts": facts,
            "answer": " ".join(texts[:2]) or "Nothing found.",
            "confidence": 0.8 if facts else 0.1,
            "gaps": [],
        }

    def gaps(self, prompt: str) -> dict[str, Any]:
        coverage = self._next("gaps", self.coverage)
        ready = self._next("ready", self.ready)
        questions = numbered_under(QUESTIONS_LABEL, prompt)
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
        questions = numbered_under(QUESTIONS_LABEL, prompt)
        searches = (
            [f"{_short(q, 4)} evidence round {round_number}" for q in questions[:2]]
            if self.follow_up_searches
            else []
        )
        return {
            "summary": "Workers agree on the main points.",
            "gaps": [] if ready else ["Some questions need more evidence"],
            "confidence": coverage,
            "needs_more_research": not ready,
            "additional_searches": searches,
        }

    def verification(self, prompt: str) -> dict[str, Any]:
        claims = readings(standard.VERIFY_CLAIM, prompt, number=r"\d+", claim=ANY, quote=ANY)
        indices = [int(claim["number"]) for claim in claims]
        return {
            "claims": [
                {"index": i, "supported": i not in self.unsupported_claims, "reason": "checked"}
                for i in indices
            ]
        }

    def report(self, prompt: str) -> dict[str, Any]:
        if advanced.CLAIMS_OPEN in prompt:
            return self.advanced_report(prompt)
        sections = []
        item = reader(writer.WRITE_EVIDENCE_ITEM, eid=r"E\d+", sid=r"S\d+")
        group = re.compile(
            rf"^{reader(writer.EVIDENCE_GROUP)}\n(?P<items>(?:{item}\n?)+)", re.MULTILINE
        )
        for match in group.finditer(prompt):
            question = match["question"]
            paragraphs = [
                {"statements": [self._statement(found["text"], [found["eid"]])]}
                for found in readings(
                    writer.WRITE_EVIDENCE_ITEM, match["items"], eid=r"E\d+", sid=r"S\d+"
                )
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
        query = prompt.rsplit(f"{advanced.QUERY_LABEL} ", 1)[-1].strip()
        topic = self.family.subject or _short(query, 5)
        analysis = {
            "intent": f"Understand {query}",
            "query_class": self.query_class,
            "primary_subject": topic,
            "subject_type": "topic",
            "temporal_scope": "recent" if self.query_class == "current_events" else "timeless",
            "domain": "general",
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
                clarification_options=self.clarification_options
                or ["Specify the university", "Specify the field", "Provide other context"],
            )
        return analysis

    def clarification(self, prompt: str) -> dict[str, Any]:
        query = after_label(advanced.ORIGINAL_QUERY_LABEL, prompt)
        answer = after_label(advanced.ANSWER_LABEL, prompt)
        subject = f"{query} ({answer})".strip()
        return {
            "enriched_context": f"Research {subject}.",
            "updated_intent": f"Learn about {subject}",
            "updated_subject": subject,
            "updated_class": "person_profile",
            "suggested_questions": [f"What is known about {subject}?"],
            "confidence_boost": 0.35,
        }

    def advanced_plan(self, prompt: str) -> dict[str, Any]:
        brief = after_label(advanced.BRIEF_LABEL, prompt)
        anchor = after_label(advanced.SUBJECT_LABEL, prompt)
        topic = _short(anchor or brief or "topic", 5)
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
                "target_sources": [],  # the templates exercise source targeting
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
        question = after_label(advanced.SUBAGENT_QUESTION_LABEL, prompt)
        wanted = _terms(question if advanced.SUBAGENT_QUESTION_LABEL in prompt else prompt[:200])
        items = []
        for page in readings(advanced.SUBAGENT_PAGE, prompt, number=r"\d+", excerpt=ANY):
            number, text = page["number"], page["excerpt"]
            sentences = [
                s
                for s in split_sentences(text.replace("[...]", ""))
                if 8 <= len(s.split()) <= 60 and not s.startswith("#") and _terms(s) & wanted
            ]
            items += [
                {"page": int(number), "text": s, "quote": s}
                for s in sentences[: self.facts_per_page]
            ]
        items = self._within_section_quota(
            after_label(advanced.SUBAGENT_SECTION_LABEL, prompt), items
        )
        if self.quotes_off_the_page:
            items = [{**item, "quote": OFF_THE_PAGE} for item in items]
        confidence = self._next("subagent", self.subagent_confidence)
        return {
            "evidence": items,
            "confidence": confidence,
            "summary": " ".join(str(i["text"]) for i in items[:2]) or "Nothing relevant.",
            "refined_queries": []
            if confidence >= 0.8
            else [f"{' '.join(sorted(wanted)[:3])} refined"],
        }

    def _within_section_quota(
        self, section: str, items: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Items past the section's quota (evidence_per_section verifiable items over the run)
        quote words no page holds: the page is still used, its evidence cannot be verified."""
        if self.evidence_per_section is None:
            return items
        with self._lock:
            given = self._round.get(f"section:{section}", 0)
            room = max(0, self.evidence_per_section - given)
            self._round[f"section:{section}"] = given + min(room, len(items))
        return [
            item if i < room else {**item, "quote": OFF_THE_PAGE} for i, item in enumerate(items)
        ]

    def gap_analysis(self, prompt: str) -> dict[str, Any]:
        confidence = self._next("gaps", self.coverage)
        ready = self._next("ready", self.ready)
        outline = after_label(advanced.OUTLINE_LABEL, prompt).split(LIST_SEPARATOR)
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
        sections = after_label(advanced.SECTIONS_LABEL, prompt).split(LIST_SEPARATOR)
        sids = [
            item["sid"]
            for item in readings(advanced.TRUST_SOURCE_ITEM, prompt, sid=r"S\d+", snippet=ANY)
        ]
        evidence = [
            (item["eid"], item["sid"], item["text"])
            for item in readings(advanced.TRUST_EVIDENCE_ITEM, prompt, eid=r"E\d+", sid=r"S\d+")
        ]
        claims = []
        for index, (eid, sid, text) in enumerate(evidence[: self.claims_drafted]):
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
        for claim in readings(advanced.TRUST_CLAIM_ITEM, prompt, cid=r"C\d+"):
            cid, text, eids = claim["cid"], claim["text"], claim["eids"]
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
                    "source_eid": eids.split(advanced.ID_SEPARATOR)[0],
                    "match_confidence": 0.9,
                }
            )
        return {"checks": checks}

    def advanced_report(self, prompt: str) -> dict[str, Any]:
        outline = after_label(advanced.WRITER_OUTLINE_LABEL, prompt).split(LIST_SEPARATOR)
        claims = [
            (item["cid"], item["section"], item["text"])
            for item in readings(advanced.WRITER_CLAIM_ITEM, prompt, cid=r"C\d+")
        ]
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
        return self._draft(after_label(advanced.TITLE_LABEL, prompt), sections)

    # --- dispatch ----------------------------------------------------------------------------

    def responders(self) -> dict[str, Callable[[str], Any]]:
        """The role answering each schema, keyed by the schema's name as the model sees it."""
        roles: dict[type[BaseModel], Callable[[str], Any]] = {
            Understanding: self.understanding,
            ResearchPlan: self.plan,
            WorkPlan: self.work_plan,
            PageExtraction: self.extraction,
            GapAssessment: self.gaps,
            SynthesisOutput: self.synthesis,
            Verification: self.verification,
            ReportDraft: self.report,
            QueryAnalysisOutput: self.query_analysis,
            ClarificationOutput: self.clarification,
            PlanOutput: self.advanced_plan,
            SubagentExtraction: self.subagent_extraction,
            GapAnalysis: self.gap_analysis,
            CredibilityAndClaims: self.credibility_and_claims,
            ClaimVerification: self.claim_verification,
        }
        roles.update(family_responders(self))  # the advanced family's variants
        return {schema.__name__: respond for schema, respond in roles.items()}

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
            marker = prompt.find(f"{SCHEMA_LABEL}\n")
            if name is None and marker >= 0:
                # JSON mode carries no schema name: read the schema from the prompt, as a model would.
                start = marker + len(SCHEMA_LABEL) + 1
                name = json.JSONDecoder().raw_decode(prompt, start)[0].get("title")
            return self.respond(name, prompt)

        return respond

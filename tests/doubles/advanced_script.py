"""The scripted roles of the advanced family's variants: discovery, the full trust engine, the ranker.

Every reply is computed from the prompt through the templates that wrote it. The full trust
engine's roles answer as the batched roles of `ResearchScript` do, split by step, so both
engines get the same answers. Knobs live in `FamilyKnobs` (the script's `family` field).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from research_studio.core.prompt_blocks import LIST_SEPARATOR, NONE
from research_studio.core.words import stop_words
from research_studio.pipelines.advanced import prompts as advanced
from research_studio.pipelines.advanced.discovery import prompts as discovery
from research_studio.pipelines.advanced.discovery.schemas import (
    EntityClustering,
    EntityConfirmation,
    EraCotAnalysis,
    RoutedEraCotAnalysis,
)
from research_studio.pipelines.advanced.schemas import DraftClaims
from research_studio.pipelines.advanced.trust_engine import prompts as trust
from research_studio.pipelines.advanced.trust_engine.schemas import (
    AtomicClaims,
    ClaimCitations,
    CrossChecks,
    SourceAssessments,
    SourceRelevance,
    SpanChecks,
)
from tests.doubles.prompt_reader import ANY, after_label, readings

if TYPE_CHECKING:
    from tests.doubles.research_script import ResearchScript

Role = Callable[[str], Any]
CLASS_TYPE = {
    "person_profile": "person",
    "organization_profile": "organization",
    "concept_explanation": "concept",
    "technical_deep_dive": "technical",
    "comparison": "comparison",
}
MAX_SCRIPTED_CLAIMS = 10


@dataclass
class FamilyKnobs:
    """Knobs of the family's roles."""

    # ranker: a source naming none of the target's identifiers is about someone else
    filter_same_name: bool = True
    # analyzer: the query type (default: from the script's query class)
    query_type: str | None = None
    # discovery: the entity candidates (default: one, the first anchor, confidence 0.9)
    candidates: list[dict[str, Any]] | None = None
    # auto_refine: the confidence after the targeted searches
    refine_confidence: float = 0.9
    # analyzer: the subject it names (default: the pattern's first anchor, else the script's)
    subject: str | None = None
    # analyzer: the kind of entity the subject is (default: the query type)
    subject_kind: str | None = None
    # analyzer: how complex it reads the query ("moderate" leaves the heuristic alone)
    complexity: str = "moderate"


def _words(text: str) -> set[str]:
    """Content words (lower case, no stop words, longer than three letters)."""
    return {
        word
        for word in re.findall(r"[a-z0-9]+", text.lower())
        if len(word) > 3 and word not in stop_words() and word != "research"
    }


def _evidence(prompt: str) -> list[tuple[str, str, str]]:
    return [
        (item["eid"], item["sid"], item["text"])
        for item in readings(advanced.TRUST_EVIDENCE_ITEM, prompt, eid=r"E\d+", sid=r"S\d+")
    ]


def _own_evidence(index: int, text: str, evidence: list[tuple[str, str, str]]) -> int:
    """The position of the evidence a claim was drawn from (claims follow the evidence order)."""
    if index < len(evidence) and evidence[index][2] == text:
        return index
    return next((i for i, (_e, _s, other) in enumerate(evidence) if other == text), -1)


class FamilyRoles:
    """The roles, bound to a script (its batched roles and knobs)."""

    def __init__(self, script: ResearchScript) -> None:
        self.script = script
        self.knobs: FamilyKnobs = script.family

    def source_assessments(self, prompt: str) -> dict[str, Any]:
        sids = [
            item["sid"]
            for item in readings(advanced.TRUST_SOURCE_ITEM, prompt, sid=r"S\d+", snippet=ANY)
        ]
        return {
            "assessments": [{"sid": sid, "authority": 0.8, "content_quality": 0.8} for sid in sids]
        }

    def atomic_claims(self, prompt: str) -> dict[str, Any]:
        sections = after_label(advanced.SECTIONS_LABEL, prompt).split(LIST_SEPARATOR)
        evidence = _evidence(prompt)[:MAX_SCRIPTED_CLAIMS]
        return {
            "claims": [
                {"text": text, "section": sections[index % len(sections)]}
                for index, (_eid, _sid, text) in enumerate(evidence)
            ]
        }

    def claim_citations(self, prompt: str) -> dict[str, Any]:
        evidence = _evidence(prompt)
        citations = []
        for claim in readings(trust.FULL_CLAIM_ITEM, prompt, cid=r"C\d+"):
            index = int(claim["cid"][1:]) - 1
            own = _own_evidence(index, claim["text"], evidence)
            eids = [evidence[own][0]] if own >= 0 else []
            if self.script.nonexistent_evidence and index == 0:
                eids = ["E999"]
            citations.append({"cid": claim["cid"], "eids": eids})
        return {"citations": citations}

    def span_checks(self, prompt: str) -> dict[str, Any]:
        return self.script.claim_verification(prompt)

    def cross_checks(self, prompt: str) -> dict[str, Any]:
        evidence = _evidence(prompt)
        checks = []
        for claim in readings(trust.CROSS_CLAIM_ITEM, prompt, cid=r"C\d+"):
            own = _own_evidence(int(claim["cid"][1:]) - 1, claim["text"], evidence)
            own_sid = evidence[own][1] if own >= 0 else ""
            others = [eid for eid, sid, _text in evidence if sid != own_sid][:1]
            checks.append(
                {
                    "cid": claim["cid"],
                    "supporting_eids": others if self.script.cross_validate else [],
                    "reason": "another source states it" if others else "one source only",
                }
            )
        return {"checks": checks}

    def source_relevance(self, prompt: str) -> dict[str, Any]:
        """Sources naming none of the target's distinguishing words are about someone else."""
        name = _words(after_label(trust.TARGET_LABEL, prompt))
        known = after_label(trust.DESCRIPTION_LABEL, prompt) + " "
        known += after_label(trust.IDENTIFIERS_LABEL, prompt)
        distinguishing = _words(known.replace(NONE, " ")) - name
        relevant, excluded = [], []
        for item in readings(advanced.TRUST_SOURCE_ITEM, prompt, sid=r"S\d+", snippet=ANY):
            seen = _words(f"{item['title']} {item['snippet']}")
            if self.knobs.filter_same_name and distinguishing and not seen & distinguishing:
                excluded.append({"sid": item["sid"], "reason": "a different person"})
            else:
                relevant.append(item["sid"])
        return {"relevant_sids": relevant, "excluded": excluded}

    def era_cot_analysis(self, prompt: str) -> dict[str, Any]:
        """Confirms the fast pattern's reading shown in the prompt (its anchors), else the script's."""
        analysis = self.script.query_analysis(prompt)
        reading = after_label(discovery.PATTERN_LABEL, prompt)
        _type, _, shown = reading.partition(discovery.PATTERN_ANCHORS)
        anchors = shown.split(", ") if shown else []
        subject = self.knobs.subject or (anchors[0] if anchors else analysis["primary_subject"])
        query_type = self.knobs.query_type or CLASS_TYPE.get(analysis["query_class"], "other")
        return {
            **analysis,
            "primary_subject": subject,
            "query_type": query_type,
            "entities": [{"name": subject, "kind": self.knobs.subject_kind or query_type}],
            "anchor_terms": anchors or [subject],
        }

    def routed_era_cot_analysis(self, prompt: str) -> dict[str, Any]:
        """The optimized variant's analysis: the ERA-CoT reading and the knobs' complexity."""
        return {**self.era_cot_analysis(prompt), "complexity": self.knobs.complexity}

    def entity_clustering(self, prompt: str) -> dict[str, Any]:
        if self.knobs.candidates is not None:
            return {"candidates": self.knobs.candidates, "needs_clarification": False}
        anchors = after_label(discovery.ANCHORS_LABEL, prompt).split(", ")
        titles = [item["title"] for item in readings(discovery.RESULT_ITEM, prompt, number=r"\d+")]
        return {
            "candidates": [
                {
                    "name": anchors[0],
                    "description": titles[0] if titles else "",
                    "identifiers": anchors[1:],
                    "confidence": 0.9,
                }
            ],
            "needs_clarification": False,
        }

    def entity_confirmation(self, prompt: str) -> dict[str, Any]:
        return {
            "confirmed": True,
            "new_identifiers": [],
            "confidence": self.knobs.refine_confidence,
        }

    def responders(self) -> dict[type[BaseModel], Role]:
        return {
            EraCotAnalysis: self.era_cot_analysis,
            RoutedEraCotAnalysis: self.routed_era_cot_analysis,
            EntityClustering: self.entity_clustering,
            EntityConfirmation: self.entity_confirmation,
            SourceAssessments: self.source_assessments,
            AtomicClaims: self.atomic_claims,
            ClaimCitations: self.claim_citations,
            SpanChecks: self.span_checks,
            CrossChecks: self.cross_checks,
            SourceRelevance: self.source_relevance,
            # Credibility scoring off: call 1 without sources, answered as call 1 is.
            DraftClaims: self.script.credibility_and_claims,
        }


def family_responders(script: ResearchScript) -> dict[type[BaseModel], Role]:
    """The family's roles for a script, keyed by schema class."""
    return FamilyRoles(script).responders()

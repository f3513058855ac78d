"""The advanced report's own parts: claims as cited, indicated bullets; gaps; research quality."""

from __future__ import annotations

from typing import Any

from research_studio.core.languages import heading as localized
from research_studio.core.records import ClaimRecord, EvidenceRecord, QuoteRef
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.statements import (
    GroundedReport,
    Statement,
    Support,
    ground_statement,
)
from research_studio.pipelines.kit.report import AnswerCoverage, unanswered_section

LEGEND = "Indicators: ✓✓ cross-validated by two or more sources and confidence ≥ 0.8 · ✓ confidence ≥ 0.6 · ⚠ lower confidence."


def claim_support(claims: list[ClaimRecord], evidence: list[EvidenceRecord]) -> dict[str, Support]:
    """What citing a claim means: its verifying sources, their verified quotes, its indicator."""
    by_eid = {item["eid"]: item for item in evidence}
    return {
        claim["cid"]: Support(
            sids=tuple(claim["supporting_sids"]),
            quotes=tuple(
                QuoteRef(sid=by_eid[eid]["sid"], quote=by_eid[eid]["quote"])
                for eid in claim["supporting_eids"]
                if eid in by_eid
            ),
            indicator=claim["indicator"],
        )
        for claim in claims
    }


def _section_of(claim: ClaimRecord, outline: list[str]) -> str:
    return claim["section"] if claim["section"] in outline else "Other findings"


def add_claim_lists(
    report: GroundedReport,
    claims: list[ClaimRecord],
    outline: list[str],
    support: dict[str, Support],
    allowed_urls: list[str],
) -> None:
    """Every verified claim, listed with its indicator and sources under its section."""
    by_heading = {section.heading.lower(): section for section in report.sections}
    for heading in [*outline, "Other findings"]:
        members = [claim for claim in claims if _section_of(claim, outline) == heading]
        records = [
            record
            for claim in members
            if (
                record := ground_statement(
                    Statement(text=claim["text"], ids=[claim["cid"]]),
                    support,
                    section=heading,
                    tally=report.tally,
                    allowed_urls=allowed_urls,
                )
            )
        ]
        if not records:
            continue
        section = by_heading.get(heading.lower())
        if section is None:
            section = GroundedSection(heading=heading)
            report.sections.append(section)
            by_heading[heading.lower()] = section
        section.bullets.extend(records)


def appendix(
    coverage: AnswerCoverage | None, quality: dict[str, Any], language: str = "en"
) -> list[str]:
    """Remaining gaps (the research questions no cited statement answers) and research quality.

    Both are written by code: the gaps from the question coverage, never the model's gap prose.
    """
    blocks = []
    gaps = (
        unanswered_section(coverage, localized("Remaining gaps", language), language)
        if coverage
        else ""
    )
    if gaps:
        blocks.append(gaps)
    rows = "\n".join(
        f"| {localized(name, language)} | {value} |" for name, value in quality.items()
    )
    title, metric, value = (
        localized(key, language) for key in ("Research Quality", "Metric", "Value")
    )
    blocks.append(
        f"## {title}\n\n| {metric} | {value} |\n|---|---|\n{rows}\n\n{localized(LEGEND, language)}"
    )
    return blocks

"""The full trust engine's prompts (one per node) and the ranker's, beside their listings.

Source and evidence listings are the batched engine's (`advanced/prompts.py`), so both engines
show the model the same data; line templates the scripted test model reads back are constants.
"""

from __future__ import annotations

from collections.abc import Mapping

from research_studio.core.prompt_blocks import NONE
from research_studio.core.records import ClaimRecord
from research_studio.pipelines.advanced.prompts import (
    ID_SEPARATOR,
    SECTIONS_LABEL,
    TRUST_CLAIM_ITEM,
)

CREDIBILITY_SYSTEM = """You assess the sources of a research report.
For each source, rate authority (0-1: official, expert, well-sourced?) and content quality (0-1: specific, detailed, well-structured?). Judge from the title, address and snippet; do not guess beyond them."""

CREDIBILITY_USER = """SOURCES:
{sources}"""

CLAIMS_SYSTEM = """You extract atomic factual claims from research evidence.
Write 8-24 claims, each one self-contained sentence that the evidence states directly, each assigned to one of the sections. Use only what the evidence says; never add facts."""

CLAIMS_USER = f"""{SECTIONS_LABEL} {{sections}}

EVIDENCE:
{{evidence}}"""

CITE_SYSTEM = """For each claim, list the ids (E...) of the evidence items that support it. Cite only evidence that states the claim; list none rather than a guess."""

CITE_USER = """CLAIMS:
{claims}

EVIDENCE:
{evidence}"""

FULL_CLAIM_ITEM = "[{cid}] ({section}) {text}"

SPAN_SYSTEM = """Verify each claim against the evidence cited for it.
For each claim: copy the exact words of one cited evidence item that support it (evidence_span, character for character), give that item's id (source_eid), say whether the span verifies the claim, and how well it matches (match_confidence 0-1)."""

SPAN_USER = """CLAIMS (with the evidence cited for each):
{claims}

EVIDENCE:
{evidence}"""

CROSS_SYSTEM = """Check whether other sources confirm each claim.
For each claim, list the ids of evidence items from sources OTHER than the claim's own sources that state the same fact (supporting_eids), or none, with a short reason."""

CROSS_USER = """CLAIMS (with their own sources):
{claims}

EVIDENCE:
{evidence}"""

CROSS_CLAIM_ITEM = "[{cid}] ({section}; own sources {sids}) {text}"

RANKER_SYSTEM = """You check that research sources are about the right person.
Several people can share a name. For each source, decide whether it is about the EXACT target person described below or about a different person with a similar name. List the relevant source ids, and the excluded ones with a reason."""

TARGET_LABEL = "TARGET PERSON:"
DESCRIPTION_LABEL = "Description:"
IDENTIFIERS_LABEL = "Known identifiers:"
RANKER_USER = f"""{TARGET_LABEL} {{name}}
{DESCRIPTION_LABEL} {{description}}
{IDENTIFIERS_LABEL} {{identifiers}}

SOURCES:
{{sources}}"""


def full_claim_listing(claims: list[ClaimRecord]) -> str:
    """The drafted claims, one line each."""
    return "\n".join(
        FULL_CLAIM_ITEM.format(cid=c["cid"], section=c["section"], text=c["text"]) for c in claims
    )


def cited_claim_listing(claims: list[ClaimRecord], citations: Mapping[str, list[str]]) -> str:
    """The claims with the evidence cited for each (the batched engine's claim line)."""
    return "\n".join(
        TRUST_CLAIM_ITEM.format(
            cid=c["cid"],
            section=c["section"],
            text=c["text"],
            eids=ID_SEPARATOR.join(citations.get(c["cid"], [])) or NONE,
        )
        for c in claims
    )


def cross_claim_listing(claims: list[ClaimRecord]) -> str:
    """The claims with the sources that verified them so far."""
    return "\n".join(
        CROSS_CLAIM_ITEM.format(
            cid=c["cid"],
            section=c["section"],
            sids=ID_SEPARATOR.join(c["supporting_sids"]) or NONE,
            text=c["text"],
        )
        for c in claims
    )

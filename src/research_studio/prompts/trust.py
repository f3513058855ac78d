"""The batched trust engine: (1) credibility and claims, (2) verification."""

TRUST_CLAIMS_SYSTEM = """You are the trust engine of a research team.
TASK 1: for each source, rate authority (0-1: official, expert, well-sourced?) and content quality (0-1: specific, detailed, well-structured?).
TASK 2: extract 8-15 atomic factual claims from the evidence, each one sentence, each assigned to an outline section, each listing the evidence ids (E...) that support it. Use only what the evidence says."""

TRUST_CLAIMS_USER = """SECTIONS: {sections}

SOURCES:
{sources}

EVIDENCE:
{evidence}"""

TRUST_VERIFY_SYSTEM = """Verify each claim against its evidence. For each claim:
1. find the exact words of one evidence item that support it (evidence_span, copied exactly) and that item's id (source_eid),
2. say whether the claim is verified by that span, and how well it matches (match_confidence 0-1),
3. say whether two or more independent sources support it (cross_validated)."""

TRUST_VERIFY_USER = """CLAIMS:
{claims}

EVIDENCE:
{evidence}"""

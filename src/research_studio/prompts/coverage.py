"""Gap detection for the advanced pipeline: coverage of the outline, gaps, refinement queries."""

GAP_SYSTEM = """You analyse research findings against the plan to find knowledge gaps.
For each outline section give a confidence (0-1) that the evidence covers it and what is missing. Then give the overall confidence, the gaps worth another search round (section, severity, description, 2-3 suggested queries of 3-7 words that name {anchor}), and a recommendation: "sufficient" or "continue".
Dead ends already met (do not repeat them):
{dead_ends}"""

GAP_USER = """Topic: {topic}
Outline: {outline}

{count_sources} sources, {count_evidence} evidence items.

Evidence by section:
{evidence}"""

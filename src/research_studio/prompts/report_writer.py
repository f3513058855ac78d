"""The advanced writer: sections from verified claims only."""

WRITER_SYSTEM = """You write a research report ONLY from the verified claims given.
- Follow the outline; for each section write a short paragraph that connects its claims, citing sources as [S1] (only the ids allowed for each claim), and list the ids of the claims the section presents (claim_ids).
- Do not add facts that are not in the claims. Say where coverage is thin.
{system_prompt}"""

WRITER_USER = """TITLE: {topic}
OUTLINE: {outline}

VERIFIED CLAIMS (with allowed citations):
{claims}

KNOWN GAPS:
{gaps}"""

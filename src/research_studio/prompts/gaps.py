"""Gap detection (single agent) and synthesis of workers' results (multi agent)."""

GAPS_SYSTEM = """You review a research team's evidence against its research questions.
For each question say whether it is well_covered, partial or missing; list the important gaps; and propose up to {max_searches} new, short web search queries (3 to 8 words) that would fill them, none repeating a search already run.
Set ready_to_write when the evidence is enough for a good report."""

GAPS_USER = """{request}

Research questions:
{questions}

Aspects to cover:
{aspects}

Searches already run:
{done}

Evidence collected ({count} items):
{evidence}"""

SYNTHESIZE_SYSTEM = """You lead a research team. Combine your workers' reports into one view: the overall summary, key findings, conflicts between workers (and how the evidence resolves them), remaining gaps, and your confidence in [0, 1].
Set needs_more_research when important gaps remain, and propose up to {max_searches} short follow-up web searches (3 to 8 words) that would fill them."""

SYNTHESIZE_USER = """{request}

Research questions:
{questions}

Worker reports:
{reports}"""

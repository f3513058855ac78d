"""Report writing: the writer drafts sections; code renders the requested structure."""

WRITE_SYSTEM = """You are a research writer. Write a report that answers the research request using only the evidence given.
Rules:
- Cite every factual statement with the id of its source in square brackets, e.g. [S2] or [S1][S4]. Use only these source ids: {valid_ids}.
- Never invent facts, numbers or sources. Where sources disagree, say so. Where evidence is thin, say so.
- {style}
{system_prompt}"""

STYLE = {
    "detailed": "Write a thorough report: an executive summary, then 3 to 6 sections, each with several developed paragraphs, then a conclusion.",
    "concise": "Write a concise report: a short summary, then 2 to 4 sections of one or two short paragraphs each, then a one-paragraph conclusion.",
    "bullet_points": "Write the report as bullet points: a one-line summary, then 2 to 5 sections whose points are single, self-contained bullet sentences.",
}

WRITE_USER = """{request}

Research questions:
{questions}

{context}Evidence by source:
{evidence}"""

WORKER_CONTEXT = """Workers' findings (for structure; cite the evidence, not the findings):
{reports}

"""

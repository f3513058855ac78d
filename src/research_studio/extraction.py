"""Turning a page into evidence: pick the relevant chunks, extract facts, verify quotes in code."""

from __future__ import annotations

from collections import Counter

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from research_studio.chunking import chunk_text
from research_studio.config import Configuration
from research_studio.grounding import quote_in_text, tokens
from research_studio.prompts.context import numbered
from research_studio.prompts.extract import EXTRACT_SYSTEM, EXTRACT_USER
from research_studio.state import FindingRecord
from research_studio.structured import ModelCaller

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "does",
        "do",
        "did",
        "than",
        "then",
        "there",
        "their",
        "about",
        "into",
    ]
)


class ExtractedFact(BaseModel):
    """One fact and the passage it rests on."""

    fact: str
    quote: str = Field(description="Copied exactly from the page text.")
    question: str = ""


class PageExtraction(BaseModel):
    """The facts a page offers for the research questions."""

    facts: list[ExtractedFact] = Field(default_factory=list)


def query_terms(*texts: str) -> Counter[str]:
    """Content-word counts of the texts (stop words dropped)."""
    return Counter(token for text in texts for token in tokens(text) if token not in STOP_WORDS)


def select_chunks(text: str, terms: Counter[str], size: int, count: int) -> list[str]:
    """The `count` chunks sharing most terms with the request, kept in page order."""
    chunks = chunk_text(text, size)
    if len(chunks) <= count:
        return chunks
    scores = [sum(1 for token in set(tokens(chunk)) if token in terms) for chunk in chunks]
    best = sorted(range(len(chunks)), key=lambda index: (-scores[index], index))[:count]
    return [chunks[index] for index in sorted(best)]


async def extract_findings(
    caller: ModelCaller,
    config: Configuration,
    *,
    request: str,
    questions: list[str],
    url: str,
    title: str,
    text: str,
) -> list[FindingRecord]:
    """Facts from one page, each marked quote_verified only if code finds its quote in the text."""
    terms = query_terms(request, *questions)
    excerpt = "\n\n[...]\n\n".join(
        select_chunks(text, terms, config.chunk_size, config.chunks_per_page)
    )
    messages = [
        SystemMessage(content=EXTRACT_SYSTEM.format(limit=config.facts_per_page)),
        HumanMessage(
            content=EXTRACT_USER.format(
                request=request, questions=numbered(questions), title=title, url=url, text=excerpt
            )
        ),
    ]
    extraction = await caller.structured(PageExtraction, messages)
    findings: list[FindingRecord] = []
    for fact in extraction.facts[: config.facts_per_page]:
        if not fact.fact.strip():
            continue
        findings.append(
            FindingRecord(
                url=url,
                text=fact.fact.strip(),
                quote=fact.quote.strip(),
                quote_verified=quote_in_text(fact.quote, text, config.quote_match_threshold),
                question=fact.question.strip(),
            )
        )
    return findings

"""The deterministic tail's first half: candidate passages from stored sources, checked by code.

No model is called here: extraction cuts sources into passages of their own characters,
verification looks for each candidate in its source as one contiguous span after folding
(`grounding.quotes.locate_quote`) and keeps the source's characters for what it prints.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.runtime import Runtime

from research_studio.core.chunking import split_sentences
from research_studio.core.config import Configuration
from research_studio.core.urls import normalize_url
from research_studio.evidence.passages import with_referent
from research_studio.grounding.quotes import (
    page_blocks,
    tokens,
    unescape_markdown,
    verbatim_quote,
)
from research_studio.pipelines.kit.node_kit import emitter
from research_studio.pipelines.kit.referents import names_only_others
from research_studio.pipelines.supervisor.nodes.intake import store_scope
from research_studio.pipelines.supervisor.state import (
    AgentState,
    EvidenceSnippet,
    QuoteCandidate,
    StoredSource,
)
from research_studio.services.extraction import query_terms

MIN_WORDS, MAX_WORDS = 15, 60
MAX_PASSAGES_PER_SOURCE = 40
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_BARE_URL = re.compile(r"https?://\S+")


def sanitize(text: str) -> str:
    """Page text without leftover markup (tags, Markdown links and escapes, bare URLs), its
    own characters otherwise ("C#", "snake_case", "<30 °C" stay), spaces collapsed per line."""
    text = _HTML_TAG.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _BARE_URL.sub(" ", text)
    return "\n".join(" ".join(line.split()) for line in unescape_markdown(text).splitlines())


def split_passages(content: str) -> list[str]:
    """Passages of 15–60 words: consecutive sentences of one page block (a paragraph, a list
    item), never across blocks."""
    passages: list[str] = []
    for _, block in page_blocks(sanitize(content)):
        current: list[str] = []
        for sentence in split_sentences(block):
            words = len(sentence.split())
            if words > MAX_WORDS:  # a run-on block (a table, a list) is no quotable passage
                current = []
                continue
            if sum(len(s.split()) for s in current) + words > MAX_WORDS:
                current = []
            current.append(sentence)
            if sum(len(s.split()) for s in current) >= MIN_WORDS:
                passages.append(" ".join(current))
                current = []
    return passages


def is_passage(quote: str) -> bool:
    """A quotable passage: 15–60 words of prose, not a heading."""
    return MIN_WORDS <= len(quote.split()) <= MAX_WORDS and not quote.lstrip().startswith("#")


def unique_sources(*groups: Iterable[StoredSource]) -> list[StoredSource]:
    """Sources in order of first appearance, one per normalized URL."""
    seen: dict[str, StoredSource] = {}
    for group in groups:
        for source in group:
            seen.setdefault(normalize_url(source["url"]), source)
    return list(seen.values())


def candidate_snippets(
    sources: Sequence[StoredSource], quotes: Sequence[QuoteCandidate]
) -> list[EvidenceSnippet]:
    """Every source's passages and every quote a model offered, all PENDING."""
    titles = {normalize_url(source["url"]): source["title"] for source in sources}
    raw: list[tuple[str, str, str]] = []
    for source in sources:
        raw += [
            (source["url"], passage, "source")
            for passage in split_passages(source["content"])[:MAX_PASSAGES_PER_SOURCE]
        ]
    raw += [(normalize_url(quote["url"]), quote["quote"].strip(), "notes") for quote in quotes]
    snippets: list[EvidenceSnippet] = []
    seen: set[tuple[str, str]] = set()
    for url, quote, origin in raw:
        if not quote or (url, quote) in seen:
            continue
        seen.add((url, quote))
        snippets.append(
            EvidenceSnippet(
                snippet_id=f"V{len(snippets) + 1}",
                url=url,
                title=titles.get(url, url),
                quote=quote,
                origin="source" if origin == "source" else "notes",
                status="PENDING",
                match="",
                score=0.0,
            )
        )
    return snippets


async def stored_sources(state: AgentState, runtime: Runtime[Configuration]) -> list[StoredSource]:
    """The run's sources: from state, completed from the store when the run has one.

    Where a reading was taken without asking, code leaves out the sources that name only
    another reading's marks: namesakes are never merged."""
    kept = list(state.get("source_store", []))
    scope = store_scope(runtime)
    if scope is not None and runtime.store is not None:
        items = await runtime.store.asearch(scope, limit=10_000)
        kept += [StoredSource(**item.value) for item in items]  # type: ignore[typeddict-item]
    sources = unique_sources(kept)
    referents = state.get("referents", [])
    if not referents:
        return sources
    chosen = referents[0]
    return [
        source
        for source in sources
        if not names_only_others(f"{source['title']} {source['content']}", chosen, referents)
    ]


async def extract_evidence(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Candidate passages (15–60 words) of every stored source, and the models' quotes: PENDING."""
    sources = await stored_sources(state, runtime)
    snippets = candidate_snippets(sources, state.get("quote_candidates", []))
    emitter(runtime, "extract_evidence")(
        f"{len(snippets)} candidate passages from {len(sources)} sources", sources=len(sources)
    )
    return {"evidence_snippets": snippets}


def verify_snippet(snippet: EvidenceSnippet, content: str | None) -> EvidenceSnippet:
    """PASS when the quote is one contiguous span of its source after folding; the snippet then
    carries the source's own characters. Never a bag-of-words match."""
    if content is None:
        return EvidenceSnippet(**{**snippet, "status": "FAIL", "match": "no such source"})
    if len(tokens(snippet["quote"])) < 3:
        return EvidenceSnippet(**{**snippet, "status": "FAIL", "match": "too short"})
    found = verbatim_quote(snippet["quote"], content)
    if found is None:
        return EvidenceSnippet(**{**snippet, "status": "FAIL", "match": "not in source"})
    # "They cool …" led by the sentence that says what "they" are, while still a passage.
    extended = with_referent(found, content)
    found = extended if is_passage(extended) else found
    return EvidenceSnippet(
        **{**snippet, "quote": found, "status": "PASS", "match": "exact", "score": 1.0}
    )


async def verify_evidence(state: AgentState, runtime: Runtime[Configuration]) -> dict[str, Any]:
    """Each candidate PASS or FAIL against the text of its own source."""
    contents = {
        normalize_url(source["url"]): sanitize(source["content"])
        for source in await stored_sources(state, runtime)
    }
    checked = [
        verify_snippet(snippet, contents.get(snippet["url"]))
        for snippet in state.get("evidence_snippets", [])
    ]
    passed = sum(1 for snippet in checked if snippet["status"] == "PASS")
    emitter(runtime, "verify_evidence")(f"{passed}/{len(checked)} passages verified")
    return {"evidence_snippets": checked}


def rank_snippets(snippets: Sequence[EvidenceSnippet], brief: str) -> list[EvidenceSnippet]:
    """PASS passages, most relevant to the brief first (term overlap, damped by length)."""
    terms = query_terms(brief)
    scored = []
    for index, snippet in enumerate(snippets):
        if snippet["status"] != "PASS" or not is_passage(snippet["quote"]):
            continue
        words = set(tokens(snippet["quote"]))
        relevance = sum(1 for word in words if word in terms) / math.sqrt(max(len(words), 1))
        scored.append((-relevance, index, snippet))
    return [snippet for _, _, snippet in sorted(scored, key=lambda item: item[:2])]

"""Searching documents in their own language: a German question finds English documents.

Local search is lexical (BM25), so a query in another language than the documents matches
nothing. Code decides when a query needs the documents' language (the query's language differs
from theirs, or it found nothing for a question asked in another language); the fast model only
proposes the translation, and code checks it before it is searched.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from research_studio.core.errors import ResearchStudioError, UnreadableDocument
from research_studio.core.languages import detect_language, language_name
from research_studio.core.records import ModelCallRecord
from research_studio.llm.attempts import attempt_call
from research_studio.llm.structured import call_records
from research_studio.services.clients import Services
from research_studio.sources.docfiles import document_files, read_document

# Enough documents and text to tell a language by its function words, cheaply.
SAMPLE_DOCUMENTS = 8
SAMPLE_BYTES = 32_768
SAMPLE_CHARS = 4_000
MAX_QUERY_CHARS = 300

TRANSLATE_PROMPT = """You translate search queries for a search over documents written in {language}.
Translate the query into {language}. Keep names, numbers, units and technical terms as they are.
Reply with the translated query only: one line, no quotes, no explanation."""


class QueryTranslation(BaseModel):
    """A search query in the documents' language."""

    query: str = Field(description="The query translated into the documents' language.")


def _sample_text(path: Path) -> str:
    try:
        with path.open("rb") as stream:
            data = stream.read(SAMPLE_BYTES)
        _kind, _title, text = read_document(path, data)
    except (OSError, UnreadableDocument):
        return ""
    return text[:SAMPLE_CHARS]


@functools.lru_cache(maxsize=32)
def _language_of(roots: tuple[Path, ...]) -> str | None:
    samples: list[str] = []
    for root in roots:
        skipped: list[tuple[str, str]] = []
        try:
            for path in document_files(root, skipped):
                text = _sample_text(path)
                if text.strip():
                    samples.append(text)
                if len(samples) >= SAMPLE_DOCUMENTS:
                    break
        except OSError:
            continue
        if len(samples) >= SAMPLE_DOCUMENTS:
            break
    if not samples:
        return None
    # Each document votes; the documents' language is the most common vote.
    votes = [detect_language(text) for text in samples]
    return max(sorted(set(votes)), key=votes.count)


async def documents_language(roots: Sequence[Path]) -> str | None:
    """The language most of the documents under `roots` are written in (None: no documents)."""
    if not roots:
        return None
    resolved = tuple(sorted(Path(root).resolve() for root in roots))
    return await asyncio.to_thread(_language_of, resolved)


def needs_translation(query: str, question: str, target: str, *, found_any: bool) -> bool:
    """Whether a query should also be searched in the documents' language `target`."""
    if detect_language(query) != target:
        return True
    # Keyword queries carry no function words: when one finds nothing, the question decides.
    return not found_any and detect_language(question) != target


def checked_translation(proposed: str, query: str) -> str | None:
    """The model's translation if it can be searched: one short line that differs from the query."""
    line = " ".join(proposed.split()).strip().strip("\"'«»“”„")
    if not line or len(line) > MAX_QUERY_CHARS or "\n" in proposed.strip():
        return None
    if line.casefold() == query.strip().casefold():
        return None
    if any(ord(char) < 32 for char in line):
        return None
    return line


async def query_in_documents_language(
    services: Services, node: str, query: str, question: str, *, found_any: bool
) -> tuple[str | None, list[ModelCallRecord]]:
    """The query in the documents' language when it needs one, and the model calls it took."""
    target = await documents_language(list(services.config.docs))
    if target is None or not needs_translation(query, question, target, found_any=found_any):
        return None, []
    caller = services.caller(node, "fast")
    messages = [
        SystemMessage(content=TRANSLATE_PROMPT.format(language=language_name(target))),
        HumanMessage(content=query),
    ]
    # A failed translation loses only the translated search (the query itself still runs);
    # the failed call is in the call records, and no error is recorded for it.
    reply = await attempt_call(caller.structured(QueryTranslation, messages), lost=_untranslated)
    if reply is None:
        return None, call_records(caller)
    return checked_translation(reply.query, query), call_records(caller)


def _untranslated(_failure: ResearchStudioError) -> None:
    """What a failed translation records: nothing beyond its call record."""

"""The fake web's corpus: loading, rendering, ranking, and the search APIs' response bodies."""

from __future__ import annotations

import html
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from string import Template
from urllib.parse import urlsplit

from tests.doubles.pdf_builder import make_pdf

CORPUS_DIR = Path(__file__).parent / "corpus"

_STOP_WORDS = frozenset({
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have",
    "how", "i", "if", "in", "into", "is", "it", "its", "may", "more", "most", "not", "of",
    "on", "or", "our", "should", "so", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "under", "up", "vs", "versus", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "why", "will", "with", "would", "you",
    "your",
})  # fmt: skip
_BLOCK_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "li", "blockquote"})
_TOPIC_LABELS = {
    "solid-state-batteries": "Energy",
    "coral-bleaching": "Oceans",
    "python-language": "Technology",
    "python-snake": "Nature",
}


@dataclass(frozen=True)
class CorpusPage:
    """One document of the fake web; `text` is its plain text (title first, blocks split by blank lines)."""

    slug: str
    title: str
    url: str
    path: str
    content_type: str
    topic: str
    published: str | None
    text: str
    site: str = ""
    author: str = ""
    source: str = ""  # the raw corpus file: an HTML fragment, plain text or Markdown

    @property
    def paragraphs(self) -> list[str]:
        """Text blocks after the title."""
        return self.text.split("\n\n")[1:]


@dataclass(frozen=True)
class SearchHit:
    """A ranked page with its relevance score and a snippet of its best-matching paragraph."""

    page: CorpusPage
    score: float
    snippet: str


class _BlockText(HTMLParser):
    """Collects the text of block-level elements of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._depth = 0
        self._parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCK_TAGS and self._depth:
            self._depth -= 1
            if not self._depth:
                self.blocks.append(" ".join("".join(self._parts).split()))
                self._parts = []

    def handle_data(self, data: str) -> None:
        if self._depth:
            self._parts.append(data)


def html_blocks(fragment: str) -> list[str]:
    """Plain text of each paragraph/heading of an HTML fragment."""
    parser = _BlockText()
    parser.feed(fragment)
    parser.close()
    return [block for block in parser.blocks if block]


def _plain_blocks(source: str, markdown: bool) -> list[str]:
    blocks = [" ".join(block.split()) for block in source.strip().split("\n\n")]
    if markdown:
        # Headings and bullets carry Markdown markers that are not part of the prose.
        blocks = [re.sub(r"(^|\s)(#+|-)\s", r"\1", block).strip() for block in blocks]
    return [block for block in blocks if block]


def load_corpus(base_url: str) -> list[CorpusPage]:
    """Every page listed in corpus/index.json, with absolute URLs on `base_url`."""
    entries = json.loads((CORPUS_DIR / "index.json").read_text(encoding="utf-8"))
    pages = []
    for entry in entries:
        source = (CORPUS_DIR / entry["file"]).read_text(encoding="utf-8")
        kind = entry["content_type"]
        if kind == "text/html":
            blocks = [entry["title"], *html_blocks(source)]
        else:
            blocks = _plain_blocks(source, markdown=kind == "text/markdown")
            if kind == "application/pdf":
                blocks.insert(0, entry["title"])
        pages.append(
            CorpusPage(
                slug=entry["slug"],
                title=entry["title"],
                url=base_url + entry["path"],
                path=entry["path"],
                content_type=kind,
                topic=entry["topic"],
                published=entry.get("published"),
                text="\n\n".join(blocks),
                site=entry.get("site", ""),
                author=entry.get("author", ""),
                source=source,
            )
        )
    return pages


def render_html(page: CorpusPage, pages: list[CorpusPage]) -> str:
    """The full article page: the corpus fragment wrapped in site chrome (nav, ads, cookie banner)."""
    layout = Template((CORPUS_DIR / "layout.html").read_text(encoding="utf-8"))
    related = [p for p in pages if p.topic == page.topic and p.slug != page.slug][:4]
    first = page.paragraphs[0] if page.paragraphs else page.title
    published = date.fromisoformat(page.published) if page.published else None
    esc = html.escape
    return layout.substitute(
        title=esc(page.title),
        site=esc(page.site or "Research Wire"),
        description=esc(first[:157].rsplit(" ", 1)[0] + "..."),
        author=esc(page.author or "Staff"),
        url=esc(page.url),
        published=page.published or "",
        published_human=f"{published:%B} {published.day}, {published.year}" if published else "",
        reading_time=max(1, len(page.text.split()) // 200),
        topic=page.topic,
        topic_label=_TOPIC_LABELS.get(page.topic, page.topic.title()),
        body=page.source.strip(),
        related="\n".join(
            f'    <li><a href="{esc(p.path)}">{esc(p.title)}</a></li>' for p in related
        ),
    )


def render_page(page: CorpusPage, pages: list[CorpusPage]) -> tuple[bytes, str]:
    """The response body and Content-Type that serve `page`."""
    if page.content_type == "text/html":
        return render_html(page, pages).encode(), "text/html; charset=utf-8"
    if page.content_type == "application/pdf":
        return make_pdf(page.title, page.paragraphs), "application/pdf"
    return page.source.encode(), f"{page.content_type}; charset=utf-8"


def tokenize(text: str) -> list[str]:
    """Lower-cased word stems without punctuation or stop words."""
    return [
        _stem(word) for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in _STOP_WORDS
    ]


def _stem(word: str) -> str:
    # Just enough folding that "batteries" meets "battery" and "reefs" meets "reef".
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


class SearchIndex:
    """Term-overlap ranking: each query term found in the title scores 3, in the body 1 + log(tf)."""

    def __init__(self, pages: list[CorpusPage]) -> None:
        self._docs = [
            (page, set(tokenize(page.title)), Counter(tokenize(page.text))) for page in pages
        ]

    def search(self, query: str, snippet_chars: int = 200) -> list[SearchHit]:
        """Pages with a positive score, best first (ties keep corpus order)."""
        terms = set(tokenize(query))
        hits = []
        for page, title_terms, body_terms in self._docs:
            score = 0.0
            for term in terms:
                if term in title_terms:
                    score += 3.0
                if body_terms[term]:
                    score += 1.0 + math.log(body_terms[term])
            if score > 0:
                hits.append(SearchHit(page, round(score, 4), snippet(page, terms, snippet_chars)))
        hits.sort(key=lambda hit: -hit.score)
        return hits


def snippet(page: CorpusPage, terms: set[str], max_chars: int = 200) -> str:
    """About `max_chars` of the paragraph sharing most terms, starting at its first matching sentence."""
    paragraphs = page.paragraphs or [page.title]
    best = max(paragraphs, key=lambda para: len(terms & set(tokenize(para))))
    sentences = re.split(r"(?<=[.!?])\s+", best)
    start = next((i for i, s in enumerate(sentences) if terms & set(tokenize(s))), 0)
    text = " ".join(sentences[start:])
    if len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:") + " ..."


def searx_payload(index: SearchIndex, query: str, page_no: int = 1) -> dict[str, object]:
    """A SearXNG `format=json` response body, ten results per page."""
    hits = index.search(query)
    results = [
        {
            "url": hit.page.url,
            "title": hit.page.title,
            "content": hit.snippet,
            "engine": "duckduckgo",
            "engines": ["duckduckgo", "brave"],
            "positions": [rank],
            "score": hit.score,
            "category": "general",
            "template": "default.html",
            "publishedDate": f"{hit.page.published}T00:00:00" if hit.page.published else None,
        }
        for rank, hit in enumerate(hits, start=1)
    ]
    start = (max(page_no, 1) - 1) * 10
    return {
        "query": query,
        "number_of_results": len(hits),
        "results": results[start : start + 10],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [],
    }


def tavily_search_payload(index: SearchIndex, body: dict[str, object]) -> dict[str, object]:
    """A Tavily /search response body (without response_time and request_id)."""
    query = str(body.get("query") or "").strip()
    raw = bool(body.get("include_raw_content"))
    max_results = body.get("max_results")
    results = []
    for hit in index.search(query, snippet_chars=400)[
        : max_results if isinstance(max_results, int) else 5
    ]:
        item: dict[str, object] = {
            "title": hit.page.title,
            "url": hit.page.url,
            "content": hit.snippet,
            "score": round(hit.score / (hit.score + 5.0), 4),  # Tavily scores live in (0, 1)
            "raw_content": hit.page.text if raw else None,
        }
        if hit.page.published:
            item["published_date"] = hit.page.published
        results.append(item)
    return {"query": query, "answer": None, "images": [], "results": results}


def tavily_extract_payload(pages: list[CorpusPage], urls: object) -> dict[str, object]:
    """A Tavily /extract response body: corpus URLs (same host and port) succeed, others fail."""
    by_key = {(urlsplit(p.url).port, p.path): p for p in pages}
    results: list[dict[str, object]] = []
    failed: list[dict[str, object]] = []
    for url in [urls] if isinstance(urls, str) else list(urls) if isinstance(urls, list) else []:
        parts = urlsplit(str(url))
        local = parts.hostname in ("127.0.0.1", "localhost")
        page = by_key.get((parts.port, parts.path)) if local else None
        if page:
            results.append({"url": url, "raw_content": page.text, "images": []})
        else:
            failed.append({"url": url, "error": "Failed to fetch url"})
    return {"results": results, "failed_results": failed}

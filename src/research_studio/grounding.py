"""Deterministic grounding: is a quote really in the page, and does every citation exist."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2032": "'",
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2026": "...",
    }
)
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
_MARKDOWN_NOISE = re.compile(r"[*_`#>]+")
# [S3], [S3, S5], [S3; S5], [S3][S5] — any bracket group made only of source ids.
CITATION_GROUP = re.compile(r"\[\s*S\d+(?:\s*[,;]\s*S?\d+)*\s*\]")
_SID = re.compile(r"S?(\d+)")
_SOURCES_HEADING = re.compile(
    r"^#{1,6}\s*(sources|references|bibliography|works cited|citations)\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def normalize_for_match(text: str) -> str:
    """Unicode-, quote-, dash- and whitespace-normalized text with Markdown emphasis removed."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _MARKDOWN_NOISE.sub("", text)
    return _SPACE.sub(" ", text).strip()


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (numbers like 3.5 or 1,200 stay whole)."""
    return _TOKEN.findall(normalize_for_match(text).lower())


def best_window_jaccard(quote: str, page: str) -> float:
    """Highest token-set Jaccard between the quote and any same-length window of the page."""
    quote_tokens = tokens(quote)
    page_tokens = tokens(page)
    if not quote_tokens or not page_tokens:
        return 0.0
    size = len(quote_tokens)
    wanted = set(quote_tokens)
    if len(page_tokens) <= size:
        window = set(page_tokens)
        return len(wanted & window) / len(wanted | window)
    best = 0.0
    counts = Counter(page_tokens[:size])
    for start in range(len(page_tokens) - size + 1):
        if start:
            leaving, entering = page_tokens[start - 1], page_tokens[start + size - 1]
            counts[leaving] -= 1
            if not counts[leaving]:
                del counts[leaving]
            counts[entering] += 1
        if page_tokens[start] not in wanted:
            continue
        window_size = len(counts)
        overlap = sum(1 for token in wanted if token in counts)
        score = overlap / (len(wanted) + window_size - overlap)
        if score > best:
            best = score
            if best == 1.0:
                break
    return best


def quote_in_text(quote: str, text: str, threshold: float = 0.8) -> bool:
    """True when the quote appears in the text: exactly after normalization, else by window Jaccard."""
    normalized_quote = normalize_for_match(quote)
    if len(tokens(normalized_quote)) < 3:
        return False  # too short to mean anything
    normalized_text = normalize_for_match(text)
    if normalized_quote in normalized_text or normalized_quote.lower() in normalized_text.lower():
        return True
    return best_window_jaccard(normalized_quote, normalized_text) >= threshold


def strip_sources_section(report: str) -> str:
    """The report without any sources/references section the writer added itself."""
    match = _SOURCES_HEADING.search(report)
    if match is None:
        return report.rstrip()
    rest = report[match.end() :]
    following = re.search(r"^#{1,6}\s", rest, re.MULTILINE)
    tail = rest[following.start() :] if following else ""
    return (
        report[: match.start()].rstrip() + ("\n\n" + tail.strip() if tail.strip() else "")
    ).rstrip()


def repair_citations(
    report: str, known: Iterable[str], aliases: Mapping[str, str] | None = None
) -> tuple[str, list[str]]:
    """Drop markers of unknown sources, map aliases, split groups; returns (report, cited ids in order)."""
    known_ids = set(known)
    aliases = aliases or {}
    cited: list[str] = []

    def replace(match: re.Match[str]) -> str:
        kept: list[str] = []
        for number in _SID.findall(match.group(0)):
            sid = aliases.get(f"S{number}", f"S{number}")
            if sid in known_ids and sid not in kept:
                kept.append(sid)
        for sid in kept:
            if sid not in cited:
                cited.append(sid)
        return "".join(f"[{sid}]" for sid in kept)

    repaired = CITATION_GROUP.sub(replace, report)
    repaired = re.sub(r"(\[S\d+\])(?:\1)+", r"\1", repaired)
    # Removing a marker can leave "word ." or doubled spaces behind.
    repaired = re.sub(r"[ \t]+([.,;:])", r"\1", repaired)
    repaired = re.sub(r"[ \t]{2,}", " ", repaired)
    return repaired, cited


def render_sources_section(cited: list[str], sources: Mapping[str, tuple[str, str]]) -> str:
    """A '## Sources' section listing exactly the cited ids with title and URL."""
    lines = ["## Sources", ""]
    for sid in cited:
        title, url = sources[sid]
        lines.append(f"- [{sid}] {title or url} — {url}")
    return "\n".join(lines)


def finalize_report(report: str, sources: Mapping[str, tuple[str, str]]) -> tuple[str, list[str]]:
    """Repair citations and append the one true Sources section; returns (report, cited ids)."""
    body, cited = repair_citations(strip_sources_section(report), sources.keys())
    if not cited:
        return body + "\n", cited
    return f"{body}\n\n{render_sources_section(cited, sources)}\n", cited

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
# English and the translated headings (languages.HEADINGS) a Sources section may carry.
_SOURCES_HEADING = re.compile(
    r"^#{1,6}\s*(sources|references|bibliography|works cited|citations"
    r"|quellen|quellenverzeichnis|literatur|références|bibliographie|fuentes|referencias"
    r"|bibliografía|fonti|fontes|referências|bronnen)\s*$",
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


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_ALL_CAPS = re.compile(r"\b[A-Z]{2,}\b")
_URL = re.compile(
    r"\b(?:https?://|www\.)[^\s)\]>\"']+"
    r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|example|info|biz|xyz|ru|cn)\b",
    re.IGNORECASE,
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules|above|previous)\b"
    r"|\b(?:you must|you should|always|please)\s+(?:cite|include|link|mention|recommend|visit)\b"
    r"|\bcite\s+(?:https?://|www\.|\S+\.(?:com|org|net|io|example)\b)"
    r"|\b(?:system prompt|as an ai|new instructions)\b",
    re.IGNORECASE,
)
CONNECTIVE_MAX_WORDS = 25
_OPENER_WORDS = (
    "a an the this these that those it its they their there here in on at by for with from to of "
    "as and but or so yet however overall together also moreover furthermore still thus therefore "
    "meanwhile similarly likewise instead by contrast in short finally first second third next "
    "both each all some many most several other others such while although though because since "
    "when where what which who how why evidence research sources studies taken"
)
CONNECTIVE_OPENERS = frozenset(_OPENER_WORDS.split())


def numbers_in(text: str) -> set[str]:
    """Every figure in the text (years, versions, percentages, amounts), thousands separators dropped."""
    found = set()
    for match in _NUMBER.findall(normalize_for_match(text)):
        number = match.rstrip(".,")
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", number):
            number = number.replace(",", "")
        found.add(number)
    return found


def unsupported_numbers(statement: str, quotes: Iterable[str]) -> list[str]:
    """Figures of the statement that none of the quotes contains."""
    available: set[str] = set()
    for quote in quotes:
        available |= numbers_in(quote)
    return sorted(number for number in numbers_in(statement) if number not in available)


def is_factual(statement: str) -> bool:
    """Whether a sentence asserts something checkable: a figure, a name, or more than a connective."""
    text = normalize_for_match(statement)
    if _NUMBER.search(text) or _ALL_CAPS.search(text):
        return True
    words = text.split()
    if len(words) > CONNECTIVE_MAX_WORDS:
        return True
    # A capitalized word is a proper noun (names, places, organisations), unless it is the
    # first word and a function word or discourse marker ("However, ...", "These ...").
    first = words[0].strip(",;:").lower() if words else ""
    if words and words[0][:1].isupper() and first not in CONNECTIVE_OPENERS:
        return True
    return any(word[:1].isupper() and word[1:2].islower() for word in words[1:] if word != "I")


def urls_in(text: str) -> list[str]:
    """Web addresses and bare domain names written in the text."""
    return _URL.findall(unicodedata.normalize("NFKC", text))


def instructs_reader(text: str) -> bool:
    """Whether the text addresses its reader with instructions (prompt injection in page text)."""
    return bool(_INSTRUCTION.search(normalize_for_match(text)))


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


def render_sources_section(
    cited: list[str], sources: Mapping[str, tuple[str, str]], heading: str = "Sources"
) -> str:
    """A '## Sources' section (the heading may be translated) listing the cited ids."""
    lines = [f"## {heading}", ""]
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

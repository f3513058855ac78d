"""Deterministic grounding: is a quote really in the page, and does every citation exist."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from research_studio.core.chunking import BLOCK_BREAK
from research_studio.core.urls import display_url, is_web_url
from research_studio.grounding.terms import content_words, figures, negations

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


# Characters that carry no letters of their own: soft hyphens, zero-width marks, emphasis.
_INVISIBLE = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff*`")
_ESCAPABLE = frozenset("\\`*_{}[]()#+-.!|<>~&")
_ELLIPSIS = re.compile(r"\s*(?:\[\s*\.\.\.\s*\]|\(\s*\.\.\.\s*\)|\.\.\.)\s*")
MIN_QUOTE_TOKENS = 3


def fold(text: str) -> tuple[str, list[int]]:
    """Text folded for matching (case, typography, whitespace, emphasis, Markdown escapes),
    with the index in `text` of every folded character."""
    chars: list[str] = []
    where: list[int] = []
    for index, char in enumerate(text):
        if char in _INVISIBLE:
            continue
        if char == "\\" and text[index + 1 : index + 2] in _ESCAPABLE:
            continue
        folded = unicodedata.normalize("NFKC", char).translate(_QUOTES).lower()
        for piece in folded:
            if piece.isspace():
                if not chars or chars[-1] == " ":
                    continue
                piece = " "
            chars.append(piece)
            where.append(index)
    while chars and chars[-1] == " ":
        chars.pop()
        where.pop()
    return "".join(chars), where


# The ASCII characters `fold` drops: emphasis marks, and a backslash only where it escapes
# Markdown (a backslash before anything else is page text and stays).
_ASCII_EMPHASIS = str.maketrans("", "", "*`")
_ESCAPING_BACKSLASH = re.compile(r"\\(?=[" + re.escape("".join(sorted(_ESCAPABLE))) + "])")


def _may_hold(block: str, part: str) -> bool:
    """False only when the folded `part` cannot be in the folded block. For an ASCII block,
    folding is lowercasing, dropping those characters and collapsing whitespace, which C code
    does at once; `fold` goes character by character, the largest cost of checking quotes."""
    if not block.isascii() or "\\" in part:
        return True
    unescaped = _ESCAPING_BACKSLASH.sub("", block).translate(_ASCII_EMPHASIS)
    return part in " ".join(unescaped.lower().split())


def page_blocks(text: str) -> list[tuple[int, str]]:
    """The page's blocks (paragraphs, list items, headings, table rows) with their offsets."""
    blocks: list[tuple[int, str]] = []
    start = 0
    for match in BLOCK_BREAK.finditer(text):
        if text[start : match.start()].strip():
            blocks.append((start, text[start : match.start()]))
        start = match.end()
    if text[start:].strip():
        blocks.append((start, text[start:]))
    return blocks


def _quote_parts(quote: str) -> list[str]:
    folded, _ = fold(quote)
    folded = folded.strip(" \"'")
    return [part.strip(" \"'") for part in _ELLIPSIS.split(folded) if part.strip(" \"'.,;:")]


def _at_word_edges(folded: str, start: int, end: int) -> bool:
    before = folded[start - 1] if start else " "
    after = folded[end] if end < len(folded) else " "
    return not (before.isalnum() and folded[start].isalnum()) and not (
        after.isalnum() and folded[end - 1].isalnum()
    )


def _find_whole(folded: str, part: str, start: int) -> int:
    position = folded.find(part, start)
    while position >= 0 and not _at_word_edges(folded, position, position + len(part)):
        position = folded.find(part, position + 1)
    return position


def locate_quote(quote: str, text: str) -> list[tuple[int, int]] | None:
    """Where the quote is in the text: one contiguous span per ellipsis-separated part, in
    order and inside one page block, as (start, end) offsets of `text`; None when it is not."""
    parts = _quote_parts(quote)
    if not parts or sum(len(tokens(part)) for part in parts) < MIN_QUOTE_TOKENS:
        return None
    for offset, block in page_blocks(text):
        if not _may_hold(block, parts[0]):
            continue
        folded, where = fold(block)
        spans: list[tuple[int, int]] = []
        cursor = 0
        for part in parts:
            position = _find_whole(folded, part, cursor)
            if position < 0:
                break
            end = position + len(part)
            spans.append((offset + where[position], offset + where[end - 1] + 1))
            cursor = end
        if len(spans) == len(parts):
            return spans
    return None


def quote_in_text(quote: str, text: str) -> bool:
    """True when the quote is one contiguous span of the text after folding (an ellipsis
    splits it into parts found in order); never a bag-of-words match."""
    return locate_quote(quote, text) is not None


def verbatim_quote(quote: str, text: str) -> str | None:
    """The page's own characters for a quote (whitespace collapsed, parts joined by ' … ')."""
    spans = locate_quote(quote, text)
    if spans is None:
        return None
    return " … ".join(unescape_markdown(" ".join(text[start:end].split())) for start, end in spans)


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_ALL_CAPS = re.compile(r"\b[A-Z]{2,}\b")
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
    """Figures of the statement that none of the quotes contains (pooled: for audit only;
    grounding checks each quote on its own with `support.supports`)."""
    available: set[str] = set()
    for quote in quotes:
        available |= numbers_in(quote)
    return sorted(number for number in numbers_in(statement) if number not in available)


# An uncited sentence with more content words than this says something, lower case or not.
CONNECTIVE_MAX_TERMS = 4


def is_factual(statement: str) -> bool:
    """Whether a sentence asserts something checkable: a figure, a name, a negation, or more
    content than a connective ("the effect doubled across every region" is a fact)."""
    text = normalize_for_match(statement)
    if _NUMBER.search(text) or _ALL_CAPS.search(text):
        return True
    if figures(text) or negations(text):
        return True
    if len(set(content_words(text))) > CONNECTIVE_MAX_TERMS:
        return True
    split = text.split()
    if len(split) > CONNECTIVE_MAX_WORDS:
        return True
    # A capitalized word is a proper noun (names, places, organisations), unless it is the
    # first word and a function word or discourse marker ("However, ...", "These ...").
    first = split[0].strip(",;:").lower() if split else ""
    if split and split[0][:1].isupper() and first not in CONNECTIVE_OPENERS:
        return True
    return any(word[:1].isupper() and word[1:2].islower() for word in split[1:] if word != "I")


_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~&:])")
# What GitHub's Markdown links by itself in plain text: a scheme's "://" and a "www." host. Its
# colon or dot escaped, the text reads the same and links nowhere.
_AUTOLINK = re.compile(r"(?i)(?<![^\W_])(?:(https?|ftp)(:)(?=//)|(www)(\.))")
_INLINE_SPECIAL = re.compile(r"[\\`*\[\]|]|<(?=[A-Za-z/!?])|&(?=#?\w+;)|(?<![^\W_])_|_(?![^\W_])")
# What could open a block at the start of the line (a heading, a quote, a list item), also
# once citations are inserted before the final punctuation ("#." prints as "# [S1].").
_LINE_START = re.compile(r"^(\d{1,9}(?=[.)](?!\d)))?((?(1)[.)]|(?:#+|>|[+\-])))")


def unescape_markdown(text: str) -> str:
    """Text without Markdown backslash escapes (`snake\\_case` → `snake_case`)."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


def escape_markdown(text: str) -> str:
    """Text from outside printed as itself on one Markdown line: emphasis, code, links, HTML,
    entities and table syntax neutralised with backslashes, no web address left for a viewer to
    link by itself (`http\\://`, `www\\.`), and no line left to open a block; intra-word
    underscores, "C#" and "<30" stay as they are."""
    escaped = _INLINE_SPECIAL.sub(lambda match: "\\" + match.group(0), " ".join(text.split()))
    escaped = _AUTOLINK.sub(
        lambda match: "\\".join(part for part in match.groups() if part), escaped
    )
    return _LINE_START.sub(lambda match: (match.group(1) or "") + "\\" + match.group(2), escaped)


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
    """A '## Sources' section (the heading may be translated) listing the cited ids.

    A local document is shown by its file name, never this machine's path (`display_url`);
    result.json names it by its path in its documents folder (`display_nested`).
    """
    lines = [f"## {heading}", ""]
    for sid in cited:
        title, url = sources[sid]
        shown = display_url(url)
        lines.append(f"- [{sid}] {escape_markdown(title or shown)} — {markdown_address(url)}")
    return "\n".join(lines)


def markdown_address(url: str) -> str:
    """A source's address on a Markdown line: a web URL in angle brackets (an autolink, copied
    from the raw file exactly as it is, with no backslash in it), a local document by its file
    name (`display_url`), anything else escaped."""
    shown = display_url(url)
    if is_web_url(shown) and shown.isprintable() and not any(c in "<> \\" for c in shown):
        return f"<{shown}>"
    return escape_markdown(shown)


def finalize_report(report: str, sources: Mapping[str, tuple[str, str]]) -> tuple[str, list[str]]:
    """Repair citations and append the one true Sources section; returns (report, cited ids)."""
    body, cited = repair_citations(strip_sources_section(report), sources.keys())
    if not cited:
        return body + "\n", cited
    return f"{body}\n\n{render_sources_section(cited, sources)}\n", cited

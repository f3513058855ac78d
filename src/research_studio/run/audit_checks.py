"""The audit's own text checks: a quote found on its page, the figures a text states.

Written apart from grounding/quotes.py on purpose: the audit re-checks a run with code of its
own, so a fault in the writer's checks cannot hide itself. Both must still agree on what a quote
is: a kept page is Markdown, so its escaping backslashes (`\\[ston90a\\]`), emphasis and code
marks and invisible characters are not text, on the page and in the quote alike.
"""

from __future__ import annotations

import re
import unicodedata

_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[…\]|\[\.\.\.\])\s*")
_FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
# Typographic variants folded before comparing a quote with its page.
_FOLD = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u202f": " ",
    }
)


# A backslash before one of these escapes it in Markdown (CommonMark's ASCII punctuation that the
# report kit escapes); any other backslash is text. Every such backslash goes, itself escaped or
# not, as grounding's `fold` does: the page's own characters and the quote kept from them agree.
_ESCAPING_BACKSLASH = re.compile(r"\\(?=[\\`*_{}\[\]()#+\-.!|<>~&])")
_NOT_TEXT = str.maketrans("", "", "\u00ad\u200b\u200c\u200d\u2060\ufeff*`")


def folded(text: str) -> str:
    """Text as the audit compares it: Markdown escapes, emphasis and code marks dropped,
    Unicode- and typography-folded, spaces collapsed, casefolded."""
    text = _ESCAPING_BACKSLASH.sub("", text).translate(_NOT_TEXT)
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return " ".join(text.split()).casefold()


def quote_on_page(quote: str, page: str) -> bool:
    """The quote is one contiguous span of the page (an ellipsis splits it into ordered parts)."""
    parts = [folded(part) for part in _ELLIPSIS.split(quote)]
    parts = [part for part in parts if part]
    if not parts:
        return False
    text, at = folded(page), 0
    for part in parts:
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def figures(text: str) -> set[str]:
    """The figures written in the text, thousands separators dropped."""
    found = set()
    for match in _FIGURE.findall(unicodedata.normalize("NFKC", text)):
        number = match.rstrip(".,")
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", number):
            number = number.replace(",", "")
        found.add(number)
    return found


def clip(text: str, limit: int = 100) -> str:
    """The text quoted for a problem line, cut at `limit` characters."""
    text = text.strip()
    return f'"{text[:limit]}…"' if len(text) > limit else f'"{text}"'

"""Foreign text → terminal: the one place text from pages, models, servers and users is made safe.

Such text is never read as Rich markup (a URL holding `[/]` would crash the print, and Rich would
swallow `[fe80::1]`), and its control characters are shown, not obeyed: a stored question holding
a colour or window-title escape sequence must not repaint the user's terminal.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from research_studio.core.words import is_utf8

if TYPE_CHECKING:  # rich is imported by what prints, not by a command's --help
    from rich.text import Text

# Characters that reorder or hide text around them (bidirectional overrides and isolates).
_INVISIBLE = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _visible_char(char: str, *, newlines: bool) -> str:
    if char == "\n" and newlines:
        return char
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛, ␀, ␊ …
    if code == 0x7F:
        return "␡"
    if char in _INVISIBLE or unicodedata.category(char) == "Cc":  # C1 controls (0x80–0x9f)
        return f"\\u{code:04x}"
    return char


def visible(text: str, *, newlines: bool = False) -> str:
    """The text with every control character replaced by a visible stand-in.

    Newlines are kept only when `newlines` is set (multi-line text such as a plan); otherwise a
    line stays one line. Undecodable bytes (surrogate escapes) are shown as replacement marks.
    """
    text = text.encode("utf-8", "replace").decode("utf-8") if not is_utf8(text) else text
    if text.isprintable():
        return text
    return "".join(_visible_char(char, newlines=newlines) for char in text)


def foreign(text: object, style: str = "", *, newlines: bool = False) -> Text:
    """Foreign text as a Rich Text: printed as it is, never parsed as markup."""
    from rich.text import Text

    return Text(visible(str(text), newlines=newlines), style=style)


def line(*parts: str | tuple[str, str] | Text) -> Text:
    """One printable line of plain strings, (text, style) pairs and Text parts.

    No part is parsed as markup, and plain parts have their control characters shown.
    """
    from rich.text import Text

    return Text.assemble(
        *(
            part
            if isinstance(part, Text)
            else (visible(part[0]), part[1])
            if isinstance(part, tuple)
            else visible(part)
            for part in parts
        )
    )

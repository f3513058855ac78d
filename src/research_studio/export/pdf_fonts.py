"""Fonts for the PDF: a Unicode TrueType family when the system has one, and a text filter.

fpdf2's built-in fonts are latin-1 only, and no PyPI package we depend on ships a text font.
DejaVu Sans (Debian's fonts-dejavu-core, which fontconfig pulls in; also bundled by matplotlib)
covers Latin, Greek, Cyrillic and the report's indicators ✓ ✓✓ ⚠. Characters the chosen font
lacks (CJK without a CJK font, emoji) become readable equivalents or "?", so any text exports.
"""

from __future__ import annotations

import importlib.util
import os
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fontTools.ttLib import TTFont

STYLES = ("", "B", "I", "BI")
_DEJAVU_FILES = {
    "": "DejaVuSans.ttf",
    "B": "DejaVuSans-Bold.ttf",
    "I": "DejaVuSans-Oblique.ttf",
    "BI": "DejaVuSans-BoldOblique.ttf",
    "mono": "DejaVuSansMono.ttf",
}
_CJK_FILES = ("NotoSansCJK-Regular.ttc", "NotoSansCJKsc-Regular.otf", "wqy-microhei.ttc")
_FONT_DIRS = (
    "/usr/share/fonts/truetype/dejavu",  # Debian, Ubuntu
    "/usr/share/fonts/dejavu",  # Fedora
    "/usr/share/fonts/TTF",  # Arch
    "/usr/share/fonts/opentype/noto",
    "/usr/share/fonts/truetype/wqy",
    "/usr/local/share/fonts",
    "/Library/Fonts",
)
# What a reader understands when the glyph itself cannot be drawn.
EQUIVALENTS = {
    "✓✓": "[vv]",
    "✓": "[v]",
    "✔": "[v]",
    "⚠": "[!]",
    "✗": "[x]",
    "–": "-",
    "—": "-",
    "‒": "-",
    "−": "-",
    "“": '"',
    "”": '"',
    "„": '"',
    "‘": "'",
    "’": "'",
    "‚": "'",
    "«": '"',
    "»": '"',
    "…": "...",
    "•": "*",
    "·": "-",
    "≥": ">=",
    "≤": "<=",
    "≈": "~",
    "→": "->",
    "←": "<-",
    "×": "x",
    "€": "EUR",
    "\u00a0": " ",
    "\u200b": "",
    "\ufeff": "",
}


@dataclass(frozen=True)
class PdfFonts:
    """TrueType files by style ("", "B", "I", "BI", "mono"), and fallbacks for other scripts."""

    files: dict[str, Path]
    fallbacks: tuple[Path, ...] = ()

    @property
    def unicode(self) -> bool:
        return "" in self.files


def _search_dirs() -> list[Path]:
    dirs = [Path(entry) for entry in _FONT_DIRS]
    dirs.append(Path(os.path.expanduser("~/.local/share/fonts")))
    spec = importlib.util.find_spec("matplotlib")  # bundles DejaVu Sans, without importing it
    if spec is not None and spec.origin:
        dirs.append(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf")
    return dirs


def _find(name: str) -> Path | None:
    return next((d / name for d in _search_dirs() if (d / name).is_file()), None)


@lru_cache(maxsize=1)
def system_fonts() -> PdfFonts:
    """DejaVu Sans (and a CJK fallback) where installed; no files means the core fonts."""
    files = {style: path for style, name in _DEJAVU_FILES.items() if (path := _find(name))}
    if "" not in files:
        return PdfFonts({})
    fallbacks = tuple(path for name in _CJK_FILES if (path := _find(name)))
    return PdfFonts(files, fallbacks[:1])


@lru_cache(maxsize=16)
def covered(path: Path | None) -> frozenset[int]:
    """Code points a font file draws; None stands for the latin-1 core fonts."""
    if path is None:
        return frozenset(range(0x20, 0x7F)) | frozenset(range(0xA0, 0x100))
    with TTFont(str(path), fontNumber=0, lazy=True) as font:
        return frozenset(font.getBestCmap() or {})


def _stand_in(char: str, have: frozenset[int]) -> str:
    if char in EQUIVALENTS and all(ord(c) in have for c in EQUIVALENTS[char]):
        return EQUIVALENTS[char]
    decomposed = "".join(
        c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
    )
    if decomposed and all(ord(c) in have for c in decomposed):
        return decomposed
    category = unicodedata.category(char)
    if category.startswith("C") or category in ("Mn", "Me"):
        return ""  # controls and stray combining marks draw nothing anyway
    if category.startswith("Z"):
        return " "
    return "?"


def drawable(text: str, have: frozenset[int]) -> str:
    """The text with every character the fonts cannot draw replaced by a readable stand-in."""
    if all(ord(char) in have for char in text):
        return text
    if ord("✓") not in have:  # "✓✓" is one mark, not two
        text = text.replace("✓✓", EQUIVALENTS["✓✓"])
    out: list[str] = []
    for char in text:
        if char in "\n\t":
            out.append(" " if char == "\t" else char)
        elif ord(char) in have:
            out.append(char)
        else:
            out.append(_stand_in(char, have))
    return "".join(out)

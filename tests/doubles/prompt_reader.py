"""Reading our own prompts back, for the scripted test model: regexes built from the templates.

Production code never parses prompt text; the test double does, and only through the label
constants and line templates that write it, so rewording a prompt cannot silently blind it.
"""

from __future__ import annotations

import re
import string

from research_studio.core.prompt_blocks import NUMBERED_ITEM

ANY = r"[\s\S]*?"  # a field that may span lines (page text, quotes)
_IN_LINE = r"[^\n]*?"
_REST_OF_LINE = r"[^\n]*"


def reader(template: str, **fields: str) -> str:
    """A regex reading back a line written with a str.format template: each field a named group.

    A field matches within its line (the last one as far as it can) unless given a pattern; a
    template ending in a field reads that field to the end of the line.
    """
    pieces = list(string.Formatter().parse(template))
    last = next((name for _, name, _, _ in reversed(pieces) if name is not None), None)
    parts = ["^"]
    for literal, name, _spec, _conversion in pieces:
        parts.append(re.escape(literal))
        if name is not None:
            default = _REST_OF_LINE if name == last else _IN_LINE
            parts.append(f"(?P<{name}>{fields.get(name, default)})")
    if pieces and pieces[-1][1] is not None:
        parts.append("$")
    return "".join(parts)


def readings(template: str, text: str, **fields: str) -> list[dict[str, str]]:
    """Every occurrence of a template's text, as its fields."""
    pattern = re.compile(reader(template, **fields), re.MULTILINE)
    return [match.groupdict() for match in pattern.finditer(text)]


def after_label(label: str, prompt: str) -> str:
    """What follows a label on its line ("" when the prompt has no such line)."""
    match = re.search(rf"{re.escape(label)} (.+)", prompt)
    return match.group(1) if match else ""


def first_line_after(label: str, prompt: str) -> str | None:
    """What follows a label that opens a line (None when no line opens with it)."""
    match = re.search(rf"^{re.escape(label)} (.+)$", prompt, re.MULTILINE)
    return match.group(1) if match else None


_ITEM = reader(NUMBERED_ITEM, number=r"\d+")


def numbered_under(label: str, prompt: str) -> list[str]:
    """The items of the numbered list under a label."""
    match = re.search(rf"^{re.escape(label)}\n((?:{_ITEM}\n?)+)", prompt, re.MULTILINE)
    if not match:
        return []
    return [item["item"].strip() for item in readings(NUMBERED_ITEM, match.group(1))]


def fenced_after(label: str, opening: str, closing: str, prompt: str) -> str | None:
    """The text a label introduces between its delimiters (None when absent)."""
    pattern = rf"{re.escape(label)}\n{re.escape(opening)}\n(.*?)\n{re.escape(closing)}"
    match = re.search(pattern, prompt, re.DOTALL)
    return match.group(1) if match else None

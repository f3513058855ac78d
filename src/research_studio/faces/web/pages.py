"""The pages: each page's own <main> (static/<page>.html) inside the one layout (static/layout.html).

The head (stylesheet, scripts, nothing inline: the CSP allows only our own files) and the header
are written once, in the layout; the form's setting fields are written from their declarations.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass, replace
from html import escape
from pathlib import Path
from string import Template
from typing import Literal

from research_studio.core.declarations import DECLARED, offered_by

STATIC = Path(__file__).parent / "static"
# The header's links: (address, text).
NAV = (("/", "New research"), ("/runs", "Runs"))


@dataclass(frozen=True)
class Page:
    """A page: its title, its own script and which header link (if any) it is."""

    title: str
    script: str
    current: str | None = None


PAGES = {
    "index": Page("New research", "new.js", current="/"),
    "runs": Page("Runs", "runs.js", current="/runs"),
    "run": Page("Run", "run.js"),
}


Control = Literal["text", "number", "select", "textarea"]


@dataclass(frozen=True)
class Look:
    """How the form shows a setting: its row ($<row>_row in index.html), what it shows while
    empty (placeholder, or first option), its control (None: from its type) and a hint."""

    row: str
    empty: str = "default"
    control: Control | None = None
    hint: str = ""


ROWS = ("models", "sources", "report", "loops", "writer", "more")
# Where and how the form shows its settings. Which settings it offers is their declarations'
# say (the "web" face); a setting offered without a look here gets one from its type, in the
# last row.
LOOKS: dict[str, Look] = {
    "model": Look("models", "automatic (e.g. openai:gpt-4o)"),
    "fast_model": Look("models", "automatic"),
    "search": Look("sources", "automatic"),
    "docs": Look("sources", "none (search the web)", "select"),
    "report_structure": Look("report"),
    "language": Look("report", "the question's"),
    "max_iterations": Look("loops"),
    "max_researcher_iterations": Look("loops"),
    "max_research_questions": Look("loops"),
    "system_prompt": Look("writer", control="textarea", hint="extra instructions for the writer"),
}


def _look(name: str) -> Look:
    """A setting's look (declared in LOOKS, else in the last row), its control from its type
    when the look names none: choices, a number, or text."""
    look = LOOKS.get(name, Look("more"))
    if look.control is not None:
        return look
    declared = DECLARED[name]
    types = {declared.annotation, *typing.get_args(declared.annotation)} - {type(None)}
    if declared.choices:
        control: Control = "select"
    elif types and types <= {int, float}:
        control = "number"
    else:
        control = "text"
    return replace(look, control=control)


def _control(name: str, look: Look) -> str:
    own = f'id="{name}" name="{name}" data-setting'
    if look.control == "select":
        return f'<select {own}><option value="">{escape(look.empty)}</option></select>'
    if look.control == "number":
        return f'<input {own} type="number" placeholder="{escape(look.empty)}">'
    if look.control == "textarea":
        return f'<textarea {own} rows="2"></textarea>'
    return f'<input {own} placeholder="{escape(look.empty)}" autocomplete="off">'


def _field(name: str, look: Look, indent: str) -> str:
    """A setting's field: its declared label, its control and the slot for its error."""
    hint = f' <span class="hint">({escape(look.hint)})</span>' if look.hint else ""
    return (
        f'{indent}<label for="{name}">{escape(DECLARED[name].label)}{hint}</label>\n'
        f"{indent}{_control(name, look)}\n"
        f'{indent}<p class="field-error" data-field="{name}" role="alert"></p>'
    )


def _rows() -> dict[str, str]:
    """Each row's fields: the settings offered on the web, in their looks' order, then the rest.
    Fields sit side by side in a row; a text area takes the whole width."""
    offered = offered_by("web")
    ordered = [name for name in LOOKS if name in offered]
    ordered += [name for name in offered if name not in LOOKS]
    looks = {name: _look(name) for name in ordered}
    rows = {}
    for row in ROWS:
        fields = [(name, look) for name, look in looks.items() if look.row == row]
        inline = [
            f"      <div>\n{_field(name, look, ' ' * 8)}\n      </div>"
            for name, look in fields
            if look.control != "textarea"
        ]
        parts = ['<div class="row">\n' + "\n".join(inline) + "\n    </div>"] if inline else []
        parts += [_field(n, look, " " * 4) for n, look in fields if look.control == "textarea"]
        rows[f"{row}_row"] = "\n\n".join(parts).lstrip()
    return rows


@functools.cache
def render(name: str) -> str:
    """The whole HTML of a page (read once: the files ship with the package)."""
    page = PAGES[name]
    current = ' aria-current="page"'
    nav = "".join(
        f'<a href="{href}"{current if href == page.current else ""}>{text}</a>'
        for href, text in NAV
    )
    layout = Template((STATIC / "layout.html").read_text(encoding="utf-8"))
    main = Template((STATIC / f"{name}.html").read_text(encoding="utf-8").rstrip("\n"))
    return layout.substitute(
        title=page.title, script=page.script, nav=nav, main=main.substitute(_rows())
    )

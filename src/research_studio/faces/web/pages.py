"""The pages: each page's own <main> (static/<page>.html) inside the one layout (static/layout.html).

The head (stylesheet, scripts, nothing inline: the CSP allows only our own files) and the header
are written once, in the layout; the form's setting fields are written from their declarations.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from html import escape
from pathlib import Path
from string import Template
from typing import Literal

from research_studio.core.declarations import DECLARED

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


Control = Literal["text", "number", "select"]
# The new research form's setting fields, row by row ($<row>_row in index.html): each one's
# control and what it shows while empty (placeholder, or first option); its label is declared.
FORM_ROWS: dict[str, tuple[tuple[str, Control, str], ...]] = {
    "models": (
        ("model", "text", "automatic (e.g. openai:gpt-4o)"),
        ("fast_model", "text", "automatic"),
    ),
    "sources": (("search", "select", "automatic"), ("docs", "select", "none (search the web)")),
    "report": (("report_structure", "select", "default"), ("language", "text", "the question's")),
    "loops": (
        ("max_iterations", "number", "default"),
        ("max_researcher_iterations", "number", "default"),
        ("max_research_questions", "number", "default"),
    ),
}


def _control(name: str, control: Control, empty: str) -> str:
    if control == "select":
        return (
            f'<select id="{name}" name="{name}"><option value="">{escape(empty)}</option></select>'
        )
    if control == "number":
        return f'<input id="{name}" name="{name}" type="number" placeholder="{escape(empty)}">'
    return f'<input id="{name}" name="{name}" placeholder="{escape(empty)}" autocomplete="off">'


def _field(name: str, control: Control, empty: str) -> str:
    """A setting's field: its declared label, its control and the slot for its error."""
    return (
        f'      <div>\n        <label for="{name}">{escape(DECLARED[name].label)}</label>\n'
        f"        {_control(name, control, empty)}\n"
        f'        <p class="field-error" data-field="{name}" role="alert"></p>\n      </div>'
    )


def _rows() -> dict[str, str]:
    return {
        f"{row}_row": '<div class="row">\n' + "\n".join(_field(*f) for f in fields) + "\n    </div>"
        for row, fields in FORM_ROWS.items()
    }


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

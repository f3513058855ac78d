"""The pages: each page's own <main> (static/<page>.html) inside the one layout (static/layout.html).

The head (stylesheet, scripts, nothing inline: the CSP allows only our own files) and the header
are written once, in the layout.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from string import Template

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
    main = (STATIC / f"{name}.html").read_text(encoding="utf-8").rstrip("\n")
    return layout.substitute(title=page.title, script=page.script, nav=nav, main=main)

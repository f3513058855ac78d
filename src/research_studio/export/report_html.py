"""A report's Markdown as HTML whose citations link to their source and the statement they back."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from markdown_it import MarkdownIt

from research_studio.grounding.printed import statement_finder

# Builds a citation's link target from its source id and the index of the statement it backs.
CiteHref = Callable[[str, int | None], str]

_GROUP = re.compile(r"((?:\[S\d+\])+)")
_SID = re.compile(r"S\d+")
_TOKEN = re.compile("\u27e6(S\\d+):(-?\\d+)\u27e7")


def _markdown() -> MarkdownIt:
    # Raw HTML stays text: a report quotes web pages, which must never become markup; and no
    # image syntax either, so nothing in a report loads anything from elsewhere.
    return (
        MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").disable("image")
    )


def _mark_citations(markdown: str, statements: Sequence[Mapping[str, Any]]) -> str:
    """Each [Sn] replaced by a token naming its source and the statement it ends (-1: none)."""
    find = statement_finder(statements)
    lines = []
    for line in markdown.splitlines():
        parts = _GROUP.split(line)
        marked = []
        for position, part in enumerate(parts):
            if position % 2 == 0:
                marked.append(part)
                continue
            found = find(parts[position - 1])  # the text since the previous citation group
            index = found[0] if found else -1
            marked.append("".join(f"\u27e6{sid}:{index}\u27e7" for sid in _SID.findall(part)))
        lines.append("".join(marked))
    return "\n".join(lines)


def report_html(
    markdown: str,
    statements: Sequence[Mapping[str, Any]] = (),
    *,
    cite_href: CiteHref = lambda sid, _index: f"#source-{sid}",
) -> str:
    """The report body as HTML; each citation is `<a class="cite" data-sid data-statement>`."""
    rendered = _markdown().render(_mark_citations(markdown, statements))

    def link(match: re.Match[str]) -> str:
        sid, index = match.group(1), int(match.group(2))
        statement = "" if index < 0 else f' data-statement="{index}"'
        href = html.escape(cite_href(sid, None if index < 0 else index), quote=True)
        return f'<a class="cite" href="{href}" data-sid="{sid}"{statement}>[{sid}]</a>'

    return _TOKEN.sub(link, rendered)

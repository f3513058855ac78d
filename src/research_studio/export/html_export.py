"""The report as one self-contained HTML file: inline CSS, no scripts, no outside assets."""

from __future__ import annotations

import html
import re

from research_studio.export.document import RunDocument
from research_studio.export.report_html import report_html

# A Sources-list entry as report_html renders it: the list item opens with the entry's own [Sn].
_ENTRY = re.compile(
    r'<li>(<p>)?<a class="cite" href="[^"]*" data-sid="(S\d+)"[^>]*>\[S\d+\]</a>'
    r"(.*?)(</p>)?</li>",
    re.DOTALL,
)
_URL = re.compile(r"((?:https?|file)://[^\s<]+)")
_TAG = re.compile(r"(<[^>]*>)")
_MARKS = re.compile(r"(✓✓|✓|⚠)")
_MARK_CLASS = {"✓✓": "ind ind-strong", "✓": "ind ind-ok", "⚠": "ind ind-warn"}

STYLE = """
:root { color-scheme: light; }
body { margin: 0; background: #f6f7f9; color: #1b1d21;
  font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 46rem; margin: 2rem auto; padding: 2rem 2.5rem; background: #fff;
  border: 1px solid #e3e6ea; border-radius: 8px; }
.meta { color: #6b7280; font-size: .8rem; margin-bottom: 1rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin-top: 0; }
h2 { font-size: 1.35rem; margin-top: 2rem; border-bottom: 1px solid #eef0f3; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d6dae0; padding: .35rem .7rem; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
a { color: #1a55b0; }
a.cite { text-decoration: none; font-size: .85em; vertical-align: .1em; white-space: nowrap; }
a.cite:hover { text-decoration: underline; }
li.source { scroll-margin-top: 1rem; }
li.source:target { background: #fff7d6; }
.sid { font-weight: 600; }
.ind { font-weight: 700; }
.ind-strong, .ind-ok { color: #16803d; }
.ind-warn { color: #b45f06; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Consolas, monospace; font-size: .9em; }
pre { background: #f3f4f6; padding: .8rem; overflow-x: auto; }
@media print { body { background: #fff; } main { border: 0; margin: 0; max-width: none; } }
"""


def source_anchor(sid: str) -> str:
    """The id of a source's entry in the Sources list."""
    return f"source-{sid}"


def _entry(match: re.Match[str]) -> str:
    sid, rest = match.group(2), match.group(3)
    linked = _URL.sub(r'<a href="\1" rel="noopener noreferrer">\1</a>', rest)
    return f'<li id="{source_anchor(sid)}" class="source"><span class="sid">[{sid}]</span>{linked}</li>'


def _mark_indicators(body: str) -> str:
    """Indicator glyphs in text (never inside a tag) wrapped in a styled span."""
    parts = _TAG.split(body)
    for index in range(0, len(parts), 2):
        parts[index] = _MARKS.sub(
            lambda match: f'<span class="{_MARK_CLASS[match.group(1)]}">{match.group(1)}</span>',
            parts[index],
        )
    return "".join(parts)


def report_page(document: RunDocument) -> str:
    """The whole HTML page: the report, its citations linked to their Sources-list entries."""
    body = report_html(
        document.markdown,
        document.statements,
        cite_href=lambda sid, _index: f"#{source_anchor(sid)}",
    )
    body = _mark_indicators(_ENTRY.sub(_entry, body))
    title = html.escape(document.query)
    meta = html.escape(f"Research Studio · run {document.run_id} · {document.accessed}")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Research Studio">\n'
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f'<p class="meta">{meta}</p>\n{body}</main>\n</body>\n</html>\n'
    )

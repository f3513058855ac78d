"""The report as one self-contained HTML file: inline CSS, no scripts, no outside assets."""

from __future__ import annotations

import base64
import hashlib
import html
import re

from research_studio.export.document import SOURCE_LINE, CitedSource, RunDocument
from research_studio.export.report_html import report_html

# Each Sources-list line is swapped for a token before rendering; after rendering the token's
# list item is rebuilt from the source's record, escaped: no regex turns rendered text into markup.
_ENTRY_TOKEN = "- \u27e6entry:{sid}\u27e7"
_ENTRY_ITEM = re.compile("<li>(?:<p>)?\u27e6entry:(S\\d+)\u27e7(?:</p>)?</li>")
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

# The page's one stylesheet by its hash; nothing else may load or run (no script at all).
_STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; style-src 'sha256-{_STYLE_HASH}'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def source_anchor(sid: str) -> str:
    """The id of a source's entry in the Sources list."""
    return f"source-{sid}"


def _entry_tokens(markdown: str) -> str:
    """The report with each Sources-list line replaced by its entry token."""
    lines = []
    for line in markdown.splitlines():
        match = SOURCE_LINE.match(line)
        lines.append(_ENTRY_TOKEN.format(sid=match.group(1)) if match else line)
    return "\n".join(lines)


def _source_link(source: CitedSource) -> str:
    """A web address as a link; anything else (a local document's path) as plain text."""
    shown = html.escape(" ".join(source.address.split()))  # one line, whatever the record holds
    if source.link is None:
        return shown
    href = html.escape(source.link, quote=True)
    return f'<a href="{href}" rel="noopener noreferrer">{shown}</a>'


def _entry(source: CitedSource) -> str:
    title = html.escape(" ".join((source.title or source.address).split()))
    return (
        f'<li id="{source_anchor(source.sid)}" class="source"><span class="sid">[{source.sid}]</span>'
        f" {title} — {_source_link(source)}</li>"
    )


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
        _entry_tokens(document.markdown),
        document.statements,
        cite_href=lambda sid, _index: f"#{source_anchor(sid)}",
    )
    entries = {source.sid: _entry(source) for source in document.sources}
    body = _mark_indicators(body)
    body = _ENTRY_ITEM.sub(lambda match: entries.get(match.group(1), ""), body)
    title = html.escape(document.query)
    meta = html.escape(f"Research Studio · run {document.run_id} · {document.accessed}")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Research Studio">\n'
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        f'<p class="meta">{meta}</p>\n{body}</main>\n</body>\n</html>\n'
    )

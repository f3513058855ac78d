"""Property tests: arbitrary outside text as titles, URLs, quotes and report text never yields
live markup, a script, or a broken Sources list in the HTML export or the web page's view."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from research_studio.export.document import CitedSource, RunDocument
from research_studio.export.html_export import report_page
from research_studio.export.report_html import report_html
from tests.markup import live_markup

# Text as pages, search engines, models and users send it: markup, brackets, link syntax,
# control characters, newlines and odd URL spellings mixed with ordinary words.
PIECES = st.sampled_from(
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<http://x.example/a/onmouseover=alert(1)//>",
        "[docs](javascript:alert(1))",
        "![p](http://x.example/p.png)",
        '"><svg onload=alert(1)>',
        "\u27e6S1:0\u27e7",
        "\u27e6entry:S1\u27e7",
        "[S1]",
        "[S2][S1]",
        "- [S1] fake — http://evil.example/",
        "## heading",
        "\n",
        "\r\n",
        "\x1b[31m",
        "\x00",
        "\u202e",
        "&amp;",
        "&#x3c;script&#x3e;",
        "http://0177.0.0.1/",
        "http://[::1",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "`code`",
        "| a | b |\n|---|---|",
        "coral",
        "reef",
        " ",
        "✓✓",
        "⚠",
    ]
)
HOSTILE = st.one_of(
    st.lists(st.one_of(PIECES, st.text(max_size=12)), max_size=8).map("".join),
    st.text(max_size=60),
)
URLS = st.one_of(
    HOSTILE,
    st.builds(lambda tail: "https://example.org/" + tail, HOSTILE),
)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _document(body: str, titles: list[str], urls: list[str], query: str) -> RunDocument:
    sources = [
        CitedSource(sid=f"S{n}", title=title, url=url)
        for n, (title, url) in enumerate(zip(titles, urls, strict=False), start=1)
    ]
    lines = [f"- [{source.sid}] {' '.join(source.title.split())} — x" for source in sources]
    markdown = f"# Report\n\n{body} [S1]\n\n## Sources\n" + "\n".join(lines) + "\n"
    return RunDocument(
        run_id="r1", query=query, created="2026-11-25T00:00:00", markdown=markdown, sources=sources
    )


@PROPERTY
@given(
    body=HOSTILE,
    titles=st.lists(HOSTILE, min_size=1, max_size=4),
    urls=st.lists(URLS, min_size=4, max_size=4),
    query=HOSTILE,
)
def test_the_html_export_of_hostile_text_is_inert(
    body: str, titles: list[str], urls: list[str], query: str
) -> None:
    document = _document(body, titles, urls, query)
    page = report_page(document)
    assert live_markup(page, allowed=frozenset({"meta"})) == []
    assert page.count("<script") == 0 and page.count("<meta ") == 4
    for source in document.sources:  # each cited source listed once, on one line
        entries = re.findall(rf'<li id="source-{source.sid}" class="source">(.*?)</li>', page)
        assert len(entries) == 1 and "\n" not in entries[0]


@PROPERTY
@given(markdown=HOSTILE, quote=HOSTILE)
def test_the_web_pages_report_view_of_hostile_text_is_inert(markdown: str, quote: str) -> None:
    statements = [{"text": quote, "sids": ["S1"], "quotes": [quote]}]
    fragment = report_html(f"{markdown}\n\n> {quote} [S1]\n", statements)
    assert live_markup(fragment) == []

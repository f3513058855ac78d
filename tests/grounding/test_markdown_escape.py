"""Text from outside prints as itself: one line per title, no live link, heading or markup."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from research_studio.core.records import QuoteRef, SourceRecord, StatementRecord
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.quotes import (
    escape_markdown,
    fold,
    render_sources_section,
    unescape_markdown,
)
from research_studio.grounding.statements import GroundedReport

HOSTILE = "[docs](http://evil.example/x)\n## Injected heading\n- [S9] Fake — http://evil.example"
RENDER = MarkdownIt("commonmark", {"html": True})


def source(title: str) -> SourceRecord:
    return SourceRecord(
        sid="S1", url="https://ok.example/a", title=title, snippet="", provider="t",
        published=None,
    )  # type: ignore[typeddict-item]  # fmt: skip


def report_with(title: str, text: str) -> str:
    record = StatementRecord(
        section="Findings", text=text, ids=[], sids=["S1"],
        quotes=[QuoteRef(sid="S1", quote=text)], indicator="", kind="passage",
    )  # fmt: skip
    report = GroundedReport(title=title)
    report.sections.append(GroundedSection(heading=title, bullets=[record]))
    return report.markdown("comprehensive_report", [source(title)])


def only_the_source_links(html: str) -> bool:
    """The one link of a report: its source's own address (the title and text link nowhere)."""
    return re.findall(r"<a [^>]*>", html) in ([], ['<a href="https://ok.example/a">'])


def test_a_hostile_title_is_one_line_without_a_live_link() -> None:
    section = render_sources_section(["S1"], {"S1": (HOSTILE, "https://ok.example/a")})
    assert section.count("\n") == 2  # heading, blank line, one entry
    html = RENDER.render(section)
    assert 'evil.example/x"' not in html and only_the_source_links(html)
    assert html.count("<h2>") == 1
    assert "[docs](http://evil.example/x)" in RENDER.render(section).replace("\\", "")
    # Nothing a GitHub-flavoured viewer links by itself: no bare "http://" or "www." in the title.
    title = section.splitlines()[-1].split(" — <")[0]
    assert "http://" not in title and "www." not in escape_markdown("see www.evil.example")


@pytest.mark.parametrize(
    ("title", "raw"),
    [
        ("[VACUUM docs](http://evil.example/a_b)", "\\[VACUUM docs\\](http\\://evil.example/a_b)"),
        ("Mirror at https://evil.example", "Mirror at https\\://evil.example"),
        ("WWW.evil.example/page", "WWW\\.evil.example/page"),
    ],
)
def test_a_web_address_in_a_title_is_text_that_links_nowhere(title: str, raw: str) -> None:
    section = render_sources_section(["S1"], {"S1": (title, "https://ok.example/a")})
    assert section.splitlines()[-1] == f"- [S1] {raw} — <https://ok.example/a>"
    assert unescape_markdown(raw) == title


def test_a_source_address_is_written_as_it_is() -> None:
    url = "http://127.0.0.1:8765/_f/a_b*c"
    section = render_sources_section(["S1"], {"S1": ("T", url)})
    assert section.splitlines()[-1] == f"- [S1] T — <{url}>"  # copied from the file, it works


def test_page_characters_survive_the_escaping() -> None:
    for text in ("<30 °C", "C#", "snake_case", "vacuum_cost_limit", "can / cannot", "54 / 45"):
        html = RENDER.render(escape_markdown(f"Set {text} now."))
        assert text.replace("<", "&lt;") in html, html


# Text made mostly of the characters that open Markdown blocks and inline markup.
_MARKDOWN_HEAVY = st.text(alphabet=st.sampled_from("#=-*_ \n\t[]()<>!`+1.a|~:&;\\"), max_size=40)


@given(
    st.one_of(st.text(max_size=200), _MARKDOWN_HEAVY),
    st.one_of(st.text(max_size=200), _MARKDOWN_HEAVY),
)
@example(title="t", text="##")  # a heading once the citation follows
@example(title="t", text="#.")  # "# [S1]." once the citation goes before the full stop
@example(title="t", text=">#")  # a block quote holding a heading
@example(title="t", text="1\n##")  # a heading on the statement's second line
@example(title="t", text="a\n===")  # a setext underline
def test_no_text_becomes_markup(title: str, text: str) -> None:
    html = RENDER.render(report_with(title or "t", text or "x"))
    assert only_the_source_links(html) and "<script" not in html and "<img" not in html
    assert html.count("<h1>") == 1 and "<hr" not in html and "<blockquote" not in html
    assert html.count("<h2>") == 2  # the section and Sources


@given(st.one_of(st.text(max_size=200), _MARKDOWN_HEAVY))
@example(text="&amp; 1. -5 #")
def test_escaped_text_reads_back_as_written(text: str) -> None:
    """What the audit and the quote check read back is the text itself, on one line."""
    one_line = " ".join(text.split())
    assert unescape_markdown(escape_markdown(text)) == one_line
    assert fold(escape_markdown(text))[0] == fold(one_line)[0]

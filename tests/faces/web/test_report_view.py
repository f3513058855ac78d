"""Locating a quote in the kept page text, and marking the verbatim Verified Findings block."""

from __future__ import annotations

import json
from pathlib import Path

from research_studio.faces.web.progress import EventTail, counters
from research_studio.faces.web.report_view import locate_quote, mark_verbatim

PAGE = (
    "Heat waves in cities.\n\nDuring the 2003 heatwave, “urban cores” were up to\n"
    "*7 °C* warmer than the countryside — a gap that widened at night."
)


def test_a_quote_is_located_whatever_spacing_quotes_and_emphasis_lie_between() -> None:
    exact = "Heat waves in cities."
    assert locate_quote(exact, PAGE) == (0, len(exact))
    quote = '"urban cores" were up to 7 °C warmer than the countryside - a gap'
    start, end = locate_quote(quote, PAGE) or (0, 0)
    assert PAGE[start:end].startswith("urban cores") and PAGE[start:end].endswith("a gap")


def test_only_a_quote_grounding_accepts_is_located() -> None:
    # Near is not enough: grounding accepts one contiguous span, and so does the page view.
    near = "urban cores were up to 7 C warmer than the countryside: the gap widened at night"
    assert locate_quote(near, PAGE) is None
    span = locate_quote("During the 2003 heatwave ... a gap that widened at night", PAGE)
    assert span is not None and PAGE[span[0] : span[1]].endswith("widened at night")
    assert locate_quote("glaciers retreat faster in the alps every year", PAGE) is None


def test_the_verified_findings_block_is_marked_verbatim_and_nothing_else() -> None:
    html = (
        "<h2>Summary</h2><p>a</p><h2>Verified Findings</h2><ul><li>b</li></ul><h2>Next</h2><p>c</p>"
    )
    marked = mark_verbatim(html)
    assert (
        '<section class="verbatim"><h2>Verified Findings</h2><ul><li>b</li></ul></section><h2>Next</h2>'
        in marked
    )
    assert mark_verbatim("<h2>Summary</h2>") == "<h2>Summary</h2>"


def test_the_tail_reads_whole_lines_only_and_resumes_after_a_line(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text('{"node": "a", "kind": "start"}\n{"node": "b", "kind": "end"}\n{"node": "c"')
    tail = EventTail(events, after_line=1)
    assert [(number, event["node"]) for number, event in tail.read()] == [(2, "b")]
    with events.open("a") as stream:
        stream.write(', "kind": "end"}\n')
    assert [(number, event["node"]) for number, event in tail.read()] == [(3, "c")]
    assert tail.read() == []


def test_counters_add_up_events_and_calls_until_the_result_says(tmp_path: Path) -> None:
    (tmp_path / "events.jsonl").write_text(
        json.dumps(
            {
                "kind": "end",
                "counts": {"sources": 2, "evidence": 3, "searches_done": 1, "iteration": 1},
            }
        )
        + "\n"
        + json.dumps({"kind": "end", "counts": {"sources": 1, "iteration": 2}})
        + "\n"
    )
    (tmp_path / "calls.jsonl").write_text(
        '{"phase": "start"}\n{"phase": "end", "prompt_tokens": 10, "completion_tokens": 5}\n'
    )
    assert counters(tmp_path) == {
        "iteration": 2,
        "searches": 1,
        "sources": 3,
        "evidence": 3,
        "llm_calls": 1,
        "tokens": 15,
    }
    metadata = {
        "iterations": 3,
        "searches": 4,
        "sources_count": 5,
        "evidence_count": 6,
        "llm_calls_all_attempts": 7,
        "prompt_tokens_all_attempts": 8,
        "completion_tokens_all_attempts": 1,
    }
    (tmp_path / "result.json").write_text(json.dumps({"metadata": metadata}))
    assert counters(tmp_path) == {
        "iteration": 3,
        "searches": 4,
        "sources": 5,
        "evidence": 6,
        "llm_calls": 7,
        "tokens": 9,
    }

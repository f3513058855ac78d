"""Report Markdown as HTML: citations link to their source and the statement they back."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from research_studio.export.report_html import report_html


def test_citations_name_their_source_and_statement() -> None:
    statements = [
        {"text": "Reefs bleach above 30 °C.", "sids": ["S1", "S2"], "quotes": []},
        {"text": "Recovery takes a decade.", "sids": ["S2"], "quotes": []},
    ]
    markdown = (
        "# Title\n\nReefs bleach above 30 °C [S1][S2]. Recovery takes a decade [S2].\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n## Sources\n- [S1] One — https://a.example/\n"
    )
    page = report_html(markdown, statements, cite_href=lambda sid, index: f"/s/{sid}?st={index}")
    links = re.findall(r'<a class="cite" href="([^"]+)" data-sid="(S\d+)"([^>]*)>', page)
    assert links[:3] == [
        ("/s/S1?st=0", "S1", ' data-statement="0"'),
        ("/s/S2?st=0", "S2", ' data-statement="0"'),
        ("/s/S2?st=1", "S2", ' data-statement="1"'),
    ]
    assert links[3] == ("/s/S1?st=None", "S1", "")  # the Sources list backs no statement
    assert "<table>" in page and "<h1>Title</h1>" in page


def test_page_markup_in_a_report_stays_text() -> None:
    page = report_html("A quote says <script>alert(1)</script> [S1].\n", [])
    assert "<script>" not in page and "&lt;script&gt;" in page


@pytest.mark.e2e
def test_every_citation_of_a_real_run_is_linked(finished_run_folder: Path) -> None:
    result = json.loads((finished_run_folder / "result.json").read_text())
    page = report_html(result["report"], result["statements"])
    cited = re.findall(r"\[(S\d+)\]", result["report"])
    linked = re.findall(r'data-sid="(S\d+)"', page)
    assert linked == cited
    assert 'data-statement="' in page

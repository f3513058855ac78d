"""The HTML export of hostile titles, URLs and report text: no live markup, a strict CSP."""

from __future__ import annotations

import re
from pathlib import Path

from research_studio.export import export_run
from research_studio.export.html_export import CONTENT_SECURITY_POLICY
from tests.markup import live_markup


def test_hostile_titles_and_urls_stay_text(hostile_run: Path) -> None:
    page = export_run(hostile_run, "html").content.decode("utf-8")
    assert live_markup(page, allowed=frozenset({"meta"})) == []
    entries = dict(re.findall(r'<li id="source-(S\d+)" class="source">(.*?)</li>', page))
    assert len(entries) >= 5 and all(entry.count("<a ") <= 1 for entry in entries.values())
    assert "&lt;http://x.example/a/onmouseover=alert(1)//&gt;" in page  # an autolink stays text
    assert "[docs](javascript:alert(1))" in entries["S2"]  # so does Markdown link syntax
    assert "javascript:alert(1)" in entries["S3"] and "<a " not in entries["S3"]
    assert 'href="http://x.example/a&quot;onmouseover=&quot;alert(1)"' in entries["S1"]
    assert 'href="javascript' not in page.lower()


def test_the_export_carries_a_strict_content_security_policy(hostile_run: Path) -> None:
    page = export_run(hostile_run, "html").content.decode("utf-8")
    meta = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    assert meta and meta.group(1) == CONTENT_SECURITY_POLICY
    policy = dict(part.strip().split(" ", 1) for part in meta.group(1).split(";"))
    assert policy["default-src"] == "'none'" and "script-src" not in policy
    assert policy["style-src"].startswith("'sha256-") and "unsafe" not in meta.group(1)

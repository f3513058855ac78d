"""A copy of the finished run whose report also has a Research Quality table and odd glyphs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from research_studio.export.document import SOURCE_LINE
from research_studio.pipelines.advanced.render import appendix

ODD_TEXT = "Odd glyphs: 中文 🌊 ✓✓ ✓ ⚠ – “quoted” café."


@pytest.fixture
def run_with_table(finished_run_folder: Path, tmp_path: Path) -> Path:
    """The finished run, copied, with the advanced pipeline's quality table appended."""
    folder = tmp_path / "run-with-table"
    shutil.copytree(finished_run_folder, folder)
    report = folder / "report.md"
    quality = {"Sources": 5, "Verified quotes": "5/5", "Confidence": "✓✓ high"}
    extra = "\n\n".join([ODD_TEXT, *appendix(None, quality)])
    report.write_text(report.read_text(encoding="utf-8") + "\n" + extra + "\n", encoding="utf-8")
    return folder


# Titles and addresses as a hostile page, search engine or MCP server would send them.
HOSTILE_TITLES = [
    "<http://x.example/a/onmouseover=alert(1)//>",
    "[docs](javascript:alert(1))",
    '<img src=x onerror="alert(1)">',
    '"><script>alert(1)</script>',
    'http://x.example/"onmouseover="alert(1)"//',
]
HOSTILE_URLS = [
    'http://x.example/a"onmouseover="alert(1)',
    "javascript:alert(1)",
    "http://x.example/<script>alert(1)</script>",
]
HOSTILE_BODY = (
    "A page said <http://x.example/b/onmouseover=alert(2)//> and "
    "[click](javascript:alert(3)) and <a href=javascript:alert(4)>click me</a> [S1]."
)


@pytest.fixture
def hostile_run(finished_run_folder: Path, tmp_path: Path) -> Path:
    """The finished run, copied, its cited sources renamed and re-addressed with hostile text."""
    folder = tmp_path / "hostile-run"
    shutil.copytree(finished_run_folder, folder)
    report = folder / "report.md"
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    by_sid = {source["sid"]: source for source in result["sources"]}
    lines = []
    for line in report.read_text(encoding="utf-8").splitlines():
        match = SOURCE_LINE.match(line)
        if match:
            number = int(match.group(1)[1:])
            title = HOSTILE_TITLES[(number - 1) % len(HOSTILE_TITLES)]
            url = by_sid[match.group(1)]["url"]
            if number % 2 == 1:  # S1, S3, S5
                url = HOSTILE_URLS[(number // 2) % len(HOSTILE_URLS)]
            by_sid[match.group(1)].update(title=title, url=url)
            line = f"- [{match.group(1)}] {title} — {url}"
        lines.append(line)
    lines.insert(2, HOSTILE_BODY)
    result["query"] = "<script>alert(5)</script> question"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return folder

"""A copy of the finished run whose report also has a Research Quality table and odd glyphs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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

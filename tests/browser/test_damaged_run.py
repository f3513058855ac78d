"""A finished run whose result.json was damaged on disk: the page says why, never a blank report."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ServeProcess

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


def test_a_damaged_result_shows_its_reason_where_the_report_would_be(
    page: Page, scripted_server: ServeProcess, finished_run_folder: Path
) -> None:
    folder = scripted_server.folder / "runs" / "damaged-result"
    shutil.copytree(finished_run_folder, folder)
    (folder / "result.json").write_text('{"report": "cut off', encoding="utf-8")
    try:
        page.goto(f"{scripted_server.url}/runs/damaged-result")
        expect(page.locator("#report")).to_contain_text("The report cannot be shown: ")
        expect(page.locator("#report")).to_contain_text("is damaged")
        expect(page.locator("#audit-verdict")).to_contain_text("Audit unavailable: ")
        for shown in ("#report", "#audit-verdict"):
            assert str(scripted_server.folder) not in page.locator(shown).inner_text()
    finally:
        shutil.rmtree(folder)

"""Chromium hovers and clicks every link of an HTML export made from hostile titles: no script runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from research_studio.export import export_run
from tests.export.conftest import hostile_run, run_with_table  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.e2e]
NOT_A_FILE = re.compile(r"^(?!file:)")


def _visit_every_link(
    chromium: Browser, page_path: Path, *, bypass_csp: bool
) -> tuple[int, list[str], list[str]]:
    """(links, dialogs opened, console messages) after hovering and clicking each link in turn."""
    context = chromium.new_context(bypass_csp=bypass_csp)
    context.route(NOT_A_FILE, lambda route: route.abort())  # nothing leaves the machine
    dialogs: list[str] = []
    console: list[str] = []

    def open_page() -> Page:
        tab = context.new_page()
        tab.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        tab.on("console", lambda message: console.append(message.text))
        tab.on("pageerror", lambda error: console.append(str(error)))
        tab.goto(page_path.as_uri())
        return tab

    count = open_page().locator("a").count()
    for index in range(count):  # a fresh tab per link: a click may leave the page
        link = open_page().locator("a").nth(index)
        link.hover()
        link.click(no_wait_after=True)
    context.pages[-1].wait_for_timeout(200)
    context.close()
    return count, dialogs, console


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "csp-bypassed"])
def test_no_link_of_a_hostile_export_runs_a_script(
    bypass_csp: bool,
    chromium: Browser,
    hostile_run: Path,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    page_path = tmp_path / "report.html"
    page_path.write_bytes(export_run(hostile_run, "html").content)
    count, dialogs, console = _visit_every_link(chromium, page_path, bypass_csp=bypass_csp)
    assert count >= 10  # the citations, the body's links and the Sources entries
    assert dialogs == []
    # With the policy on, nothing was even attempted: no refused script and no refused style.
    assert not [line for line in console if "Content Security Policy" in line], console


def test_the_detector_sees_a_script_that_runs_on_hover(chromium: Browser, tmp_path: Path) -> None:
    page_path = tmp_path / "unsafe.html"
    page_path.write_text('<a href="#x" onmouseover="alert(1)">x</a>', encoding="utf-8")
    _count, dialogs, _console = _visit_every_link(chromium, page_path, bypass_csp=False)
    assert dialogs == ["1"]

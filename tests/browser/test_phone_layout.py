"""The pages at desktop (1280 px) and phone (390 px) width: no sideways scroll, the source card in
view after a tap, Esc closes it, the Runs table as cards with every action reachable, dark mode."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import WIDTHS, ServeProcess, Shoot
from tests.browser.pages import no_sideways_scroll, wait_for_form
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RUN_PAGE = re.compile(r"/runs/[^/?]+$")


@pytest.fixture(scope="module")
def finished_run(chromium: Browser, scripted_server: ServeProcess, web_server: FakeWeb) -> str:
    """One completed run started from the form; its page URL."""
    web_server.chat.responder = ResearchScript().chat_responder()
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", "urban heat islands and cool roofs")
    page.check("#no_clarify")
    page.fill("#max_iterations", "1")
    # Ctrl+Enter sends the form from the question field.
    page.locator("#question").press("Control+Enter")
    page.wait_for_url(RUN_PAGE)
    expect(page.locator("#status")).to_have_attribute("data-status", "completed", timeout=120_000)
    url = page.url
    context.close()
    return url


def test_the_report_comes_first_and_a_tapped_citation_opens_its_source_in_view(
    sized: tuple[str, Page], finished_run: str, screenshot: Shoot
) -> None:
    name, page = sized
    page.goto(finished_run)
    expect(page.locator("#audit-verdict")).to_have_attribute("data-ok", "true")
    # Report first: the progress is folded, the step names are words, the time is readable.
    assert page.locator("details#progress").get_attribute("open") is None
    steps = page.locator("ol#timeline .node-name").all_text_contents()
    assert "planning the research" in steps and not any("_" in step for step in steps)
    expect(page.locator("#elapsed")).to_contain_text(re.compile(r"took \d+:\d\d"))
    assert "T" not in page.locator("#run-meta time").inner_text()
    no_sideways_scroll(page)

    cite = page.locator("article#report a.cite").first
    cite.scroll_into_view_if_needed()
    cite.tap() if name == "phone" else cite.click()
    card = page.locator("aside#source-card")
    expect(card).to_be_visible()
    expect(card.locator("ul.source-quotes li").first).not_to_be_empty()
    box = card.bounding_box()
    width, height = WIDTHS[name]
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
    assert box["y"] >= 0 and box["y"] < height * 0.8, box  # its top is on screen
    assert page.evaluate("() => document.activeElement.id") == "source-card"
    no_sideways_scroll(page)
    screenshot(page, f"report-{name}.png")

    page.keyboard.press("Escape")
    expect(card).to_be_hidden()
    assert page.evaluate("() => document.activeElement.classList.contains('cite')")

    # Sources are links, and each citation points at its entry.
    sid = cite.get_attribute("data-sid")
    entry = page.locator(f"#report li#source-{sid}")
    expect(entry).to_be_attached()
    assert entry.locator("a.source-link").count() == 1


def test_the_runs_page_reflows_into_cards_with_every_action_and_a_search(
    sized: tuple[str, Page], finished_run: str, scripted_server: ServeProcess, screenshot: Shoot
) -> None:
    name, page = sized
    page.goto(scripted_server.url + "/runs")
    run_id = finished_run.rsplit("/", 1)[1]
    row = page.locator(f'#runs-table tr[data-run-id="{run_id}"]')
    expect(row).to_be_visible()
    no_sideways_scroll(page)
    width = WIDTHS[name][0]
    for action in ("a.open", "button.delete"):
        target = row.locator(action)
        expect(target).to_be_visible()
        box = target.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width, (action, box)
    screenshot(page, f"runs-{name}.png")
    page.fill("#runs-search", "no such question anywhere")
    expect(row).to_be_hidden()
    expect(page.locator("#no-match")).to_be_visible()
    page.fill("#runs-search", "COOL roofs")
    expect(row).to_be_visible()


def test_dark_mode_follows_the_system(chromium: Browser, finished_run: str) -> None:
    colours = {}
    for scheme in ("light", "dark"):
        context = chromium.new_context(color_scheme=scheme)  # type: ignore[arg-type]
        page = context.new_page()
        page.goto(finished_run)
        expect(page.locator("article#report a.cite").first).to_be_visible()
        colours[scheme] = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        context.close()
    assert colours["light"] != colours["dark"]


def test_links_one_taps_are_touch_targets_at_every_width(
    sized: tuple[str, Page], finished_run: str, scripted_server: ServeProcess
) -> None:
    _name, page = sized
    page.goto(scripted_server.url + "/runs")
    expect(page.locator("#runs-table a.open").first).to_be_visible()
    for target in [*page.locator("nav a").all(), page.locator("#runs-table a.open").first]:
        box = target.bounding_box()
        assert box is not None and box["height"] >= 44, (target, box)

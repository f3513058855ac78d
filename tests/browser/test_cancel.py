"""A slow run cancelled from the Runs page looks cancelled there and on its own page, at desktop
(1280 px) and phone (390 px) width: a stopped run that can resume, never a red crash, no step
left running."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import ServeProcess, Shoot
from tests.browser.pages import no_sideways_scroll, wait_for_form
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RUN_PAGE = re.compile(r"/runs/[^/?]+$")


@pytest.fixture
def slow_web(web_server: FakeWeb) -> Iterator[FakeWeb]:
    """A slow web and model: the run is still working when the user cancels it."""
    web_server.chat.responder = ResearchScript().chat_responder()
    web_server.latency_s = 2.0
    yield web_server
    web_server.latency_s = 0.0


def _colour(target: Locator) -> str:
    return str(target.evaluate("node => getComputedStyle(node).color"))


def _bad_colour(page: Page) -> str:
    """The colour the pages give a failure (var(--bad)), as the browser computes it."""
    return str(
        page.evaluate(
            """() => { const probe = document.createElement("span");
            probe.style.color = "var(--bad)"; document.body.append(probe);
            const colour = getComputedStyle(probe).color; probe.remove(); return colour; }"""
        )
    )


def test_a_run_cancelled_from_the_runs_page_looks_cancelled_not_crashed(
    sized: tuple[str, Page], scripted_server: ServeProcess, slow_web: FakeWeb, screenshot: Shoot
) -> None:
    name, page = sized
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", f"cool roofs and street trees ({name})")
    page.check("#no_clarify")
    page.locator("#question").press("Control+Enter")
    page.wait_for_url(RUN_PAGE)
    run_url = page.url
    run_id = run_url.rsplit("/", 1)[1]
    # A step has started: the run is working when it is cancelled.
    expect(page.locator('ol#timeline li.node[data-state="running"]').first).to_be_attached()

    page.goto(scripted_server.url + "/runs")
    row = page.locator(f'#runs-table tr[data-run-id="{run_id}"]')
    expect(row).to_have_attribute("data-status", "running")
    cancel = row.locator("button.cancel")
    expect(cancel).to_be_visible()
    cancel.tap() if name == "phone" else cancel.click()
    expect(row).to_have_attribute("data-status", "cancelled", timeout=60_000)
    status = row.locator("span.status")
    expect(status).to_have_text("cancelled")
    assert _colour(status) != _bad_colour(page)
    expect(row.locator("button.cancel")).to_have_count(0)
    expect(row.locator("button.resume")).to_be_visible()
    no_sideways_scroll(page)
    screenshot(page, f"runs-cancelled-{name}.png", for_docs=False)

    page.goto(run_url)
    head = page.locator("#status")
    expect(head).to_have_attribute("data-status", "cancelled")
    expect(head).to_contain_text("cancelled")
    expect(head).not_to_contain_text("interrupted")
    assert _colour(head) != _bad_colour(page)
    expect(page.locator("#run-error")).to_be_hidden()
    expect(page.locator("#errors li")).to_have_count(0)
    expect(page.locator("ol#timeline li.node").first).to_be_attached()
    expect(page.locator('ol#timeline li.node[data-state="running"]')).to_have_count(0)
    expect(page.locator('ol#timeline li.node[data-state="failed"]')).to_have_count(0)
    # A step's message reads as words at either width, never a column of letters.
    for message in page.locator("ol#timeline .node-message").all():
        box = message.bounding_box()
        assert not message.inner_text().strip() or (box and box["width"] >= 100), box
    expect(page.locator("#cancel")).to_be_hidden()
    expect(page.locator("#resume")).to_be_visible()
    no_sideways_scroll(page)
    screenshot(page, f"run-cancelled-{name}.png", for_docs=False)

"""A user in headless Chromium: starts research, watches it, answers, opens citations, downloads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ServeProcess, Shoot
from tests.browser.pages import (
    docx_text,
    download,
    open_first_citation,
    pdf_text,
    wait_for_form,
    words,
)
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

RUN_PAGE = re.compile(r"/runs/[^/?]+$")
# A scripted run takes seconds; this bounds a stuck one.
RUN_TIMEOUT_MS = 120_000


def test_a_run_started_from_the_form_shows_progress_report_sources_and_downloads(
    page: Page, scripted_server: ServeProcess, web: FakeWeb, screenshot: Shoot, tmp_path: Path
) -> None:
    web.chat.responder = ResearchScript().chat_responder()
    wait_for_form(page, scripted_server.url + "/")
    expect(page.locator("#resolution")).to_contain_text("search: searxng")
    page.fill("#question", "coral bleaching heat stress")
    page.check("#no_clarify")
    page.fill("#max_iterations", "2")
    screenshot(page, "new-research.png")

    web.latency_s = 1.0  # a slow web and model, so the page is seen while the run works
    page.click("button#start")
    page.wait_for_url(RUN_PAGE)
    expect(page.locator("h1#question")).to_have_text("coral bleaching heat stress")
    page.locator("#progress details summary").click()  # the event log, open in the screenshot
    expect(page.locator('ol#timeline li.node[data-state="done"]').first).to_be_attached()
    # Searches are counted when the workers' results are collected: on a loaded machine, late.
    expect(page.locator('#counters [data-counter="searches"]')).not_to_have_text(
        "0", timeout=RUN_TIMEOUT_MS
    )
    expect(page.locator("#events li").first).to_be_attached()
    if page.locator("#status").get_attribute("data-status") == "running":
        screenshot(page, "progress.png")  # (only of a run still in progress)
    web.latency_s = 0.0

    expect(page.locator("#status")).to_have_attribute(
        "data-status", "completed", timeout=RUN_TIMEOUT_MS
    )
    assert page.locator('ol#timeline li.node[data-state="failed"]').count() == 0
    # A finished run shows its report first: the progress (with the counters) is folded away.
    expect(page.locator("details#progress")).not_to_have_attribute("open", "")
    assert int(page.locator('#counters [data-counter="sources"]').text_content() or 0) > 0
    assert int(page.locator('#counters [data-counter="llm_calls"]').text_content() or 0) > 0
    verdict = page.locator("#audit-verdict")
    expect(verdict).to_have_attribute("data-ok", "true")
    expect(verdict).to_contain_text("Audit")

    title = page.locator("article#report h1").first.inner_text()
    sentence, _quote = open_first_citation(page)
    # The verdict, the exports, the report and the open card in one view.
    page.locator("section#result").evaluate("section => section.scrollIntoView()")
    screenshot(page, "report.png")

    pdf = pdf_text(download(page, "pdf", tmp_path))
    assert words(title) in pdf and sentence in pdf, (title, sentence, pdf[:1500])
    docx = docx_text(download(page, "docx", tmp_path))
    assert words(title) in docx and sentence in docx, (title, sentence, docx[:1500])


def test_an_ambiguous_question_is_answered_on_the_page_and_the_run_completes(
    page: Page, scripted_server: ServeProcess, web: FakeWeb, screenshot: Shoot
) -> None:
    web.chat.responder = ResearchScript(ambiguous=True).chat_responder()
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", "python")
    page.fill("#max_iterations", "1")
    page.click("button#start")
    page.wait_for_url(RUN_PAGE)

    expect(page.locator("#status")).to_have_attribute(
        "data-status", "awaiting_clarification", timeout=RUN_TIMEOUT_MS
    )
    form = page.locator("form#clarify")
    expect(form).to_be_visible()
    expect(page.locator("#clarify-question")).not_to_be_empty()
    options = page.locator("button.clarify-option")
    expect(options.first).to_be_visible()
    assert options.count() >= 2
    choice = options.first.inner_text()
    screenshot(page, "clarification.png")

    options.first.click()
    expect(page.locator("input#clarify-answer")).to_have_value(choice)
    page.click("button#clarify-submit")
    expect(form).to_be_hidden()
    expect(page.locator("#status")).to_have_attribute(
        "data-status", "completed", timeout=RUN_TIMEOUT_MS
    )
    expect(page.locator("article#report a.cite").first).to_be_visible()
    expect(page.locator('ol#timeline li.node[data-node="write_report"]')).to_have_attribute(
        "data-state", "done"
    )
    prompts = [str(request) for request in web.chat.requests]
    assert any(f"User clarification: {choice}" in prompt for prompt in prompts)


def test_an_empty_question_shows_a_field_error_and_starts_no_run(
    page: Page, scripted_server: ServeProcess
) -> None:
    before = _run_ids(scripted_server)
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", "   ")
    page.click("button#start")
    error = page.locator('.field-error[data-field="question"]')
    expect(error).to_be_visible()
    expect(error).not_to_be_empty()
    expect(page.locator("#question")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("button#start")).to_be_enabled()
    assert page.url.rstrip("/") == scripted_server.url
    assert _run_ids(scripted_server) == before


def test_the_runs_page_lists_runs_and_opens_their_report(
    page: Page, scripted_server: ServeProcess, web: FakeWeb, screenshot: Shoot
) -> None:
    web.chat.responder = ResearchScript().chat_responder()
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", "urban heat islands and cool roofs")
    page.check("#no_clarify")
    page.fill("#max_iterations", "1")
    page.click("button#start")
    page.wait_for_url(RUN_PAGE)
    run_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#status")).to_have_attribute(
        "data-status", "completed", timeout=RUN_TIMEOUT_MS
    )

    page.click('header nav a[href="/runs"]')
    page.wait_for_url(re.compile(r"/runs$"))
    row = page.locator(f'table#runs-table tr[data-run-id="{run_id}"]')
    expect(row).to_be_visible()
    expect(row.locator(".status")).to_have_text("completed")
    expect(row.locator("td.question")).to_have_text("urban heat islands and cool roofs")
    assert page.locator("table#runs-table tbody tr").count() == len(_run_ids(scripted_server))
    screenshot(page, "runs.png")

    row.locator("a.open").click()
    page.wait_for_url(re.compile(f"/runs/{run_id}$"))
    expect(page.locator("h1#question")).to_have_text("urban heat islands and cool roofs")
    expect(page.locator("article#report a.cite").first).to_be_visible()
    expect(page.locator("#audit-verdict")).to_have_attribute("data-ok", "true")


def _run_ids(server: ServeProcess) -> set[str]:
    """The runs the server's runs folder holds (what the CLI's `runs` would list)."""
    folder = server.folder / "runs"
    return {path.name for path in folder.iterdir()} if folder.is_dir() else set()

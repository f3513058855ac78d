"""The form's script sends the settings the page offers, as their declarations give them."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, Route

from research_studio.core.declarations import offered_by
from research_studio.run.launch import honoured_by
from tests.browser.conftest import ServeProcess
from tests.browser.pages import wait_for_form

pytestmark = [pytest.mark.browser, pytest.mark.e2e]


@pytest.mark.parametrize("pipeline", ["standard", "supervisor"])
def test_the_form_sends_every_setting_declared_for_the_web_that_its_pipeline_reads(
    page: Page, scripted_server: ServeProcess, pipeline: str
) -> None:
    sent: list[dict[str, object]] = []

    def refuse(route: Route) -> None:  # the body is what is checked: no run starts
        sent.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(status=422, json={"field": "form", "message": "checked by the test"})

    page.route("**/api/runs", refuse)
    wait_for_form(page, scripted_server.url + "/")
    page.fill("#question", "coral bleaching heat stress")
    page.select_option("#pipeline", pipeline)
    page.click("button#start")
    page.wait_for_selector('.field-error[data-field="form"]:has-text("checked by the test")')

    only_some = honoured_by()
    expected = {
        name
        for name in offered_by("web")
        if name not in only_some or pipeline in only_some[name]  # the others are disabled
    }
    [body] = sent
    assert set(body) - {"question", "pipeline", "mode", "no_clarify"} == expected
    assert body["pipeline"] == pipeline

"""The pages: one layout (head, our own scripts only, header) around each page; the form's
setting fields labelled as the configuration declares them."""

from __future__ import annotations

import re

import httpx
import pytest

from research_studio.core.declarations import DECLARED
from tests.faces.web.conftest import LiveServer

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("path", "title", "script", "current"),
    [
        ("/", "New research", "new.js", "/"),
        ("/runs", "Runs", "runs.js", "/runs"),
    ],
)
def test_every_page_is_the_layout_around_its_own_part(
    server: LiveServer, path: str, title: str, script: str, current: str
) -> None:
    response = httpx.get(server.url + path)
    page = response.text
    assert (
        response.status_code == 200
        and "script-src 'self'" in response.headers["content-security-policy"]
    )
    assert page.startswith("<!doctype html>") and page.count("<head>") == 1
    assert f"<title>{title} · Research Studio</title>" in page
    scripts = re.findall(r"<script([^>]*)>", page)
    assert scripts == [' src="/static/common.js" defer', f' src="/static/{script}" defer']
    assert f'<a href="{current}" aria-current="page">' in page and page.count("aria-current") == 1
    assert "$" not in page  # every placeholder was filled


def test_the_form_labels_each_setting_as_declared(server: LiveServer) -> None:
    page = httpx.get(server.url + "/").text
    for name in ("model", "search", "docs", "language", "max_iterations"):
        label = f'<label for="{name}">{DECLARED[name].label}</label>'
        assert label in page, name
        assert f'<p class="field-error" data-field="{name}" role="alert"></p>' in page
        assert page.count(f'id="{name}"') == 1

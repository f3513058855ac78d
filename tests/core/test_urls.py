"""URL normalization used for dedupe and cache keys, and redaction of secrets in URLs."""

from __future__ import annotations

import pytest

from research_studio.core.errors import ConfigError, FetchError
from research_studio.core.urls import (
    display_nested,
    is_masked_url,
    is_web_url,
    normalize_url,
    redact_text,
    redact_url,
)


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("HTTPS://Example.COM:443/a?utm_source=x&b=2#frag", "https://example.com/a?b=2"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com:8080/x?gclid=1", "http://example.com:8080/x"),
        ("https://[::1]:8443/p", "https://[::1]:8443/p"),
    ],
)
def test_normalize(raw: str, normal: str) -> None:
    assert normalize_url(raw) == normal


def test_is_web_url() -> None:
    assert is_web_url("https://a.org/x")
    assert not is_web_url("ftp://a.org/x")
    assert not is_web_url("file:///etc/passwd")
    assert not is_web_url("not a url")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("https://user:pass@searx.example/", "https://user:****@searx.example/"),
        ("https://ghp_token123@host.example/x", "https://****@host.example/x"),
        (
            "https://s.example/search?q=a&token=t0p&API_KEY=k&access-token=z&keyword=ok",
            "https://s.example/search?q=a&token=****&API_KEY=****&access-token=****&keyword=ok",
        ),
        (
            "https://s.example/cb#access_token=abc&state=1",
            "https://s.example/cb#access_token=****&state=1",
        ),
        ("https://searx.example/", "https://searx.example/"),
        ("plain words ?token=x", "plain words ?token=x"),
        ("http://u:p@[::1/", "http://****/"),
    ],
)
def test_redact_url(raw: str, shown: str) -> None:
    assert redact_url(raw) == shown


def test_redact_text_masks_every_url_in_a_message() -> None:
    message = "cannot reach https://a:secret@s.example/?sig=xyz, then http://b.example/?q=1"
    shown = redact_text(message)
    assert "secret" not in shown and "xyz" not in shown
    assert shown.endswith("then http://b.example/?q=1")
    assert is_masked_url(redact_url("https://a:secret@s.example/"))
    assert not is_masked_url("https://s.example/") and not is_masked_url("bold **** text")


def test_our_error_messages_mask_urls() -> None:
    error = FetchError("https://u:hunter2@x.example/?token=abc", "HTTP 500", kind="server_error")
    assert "hunter2" not in str(error) and "abc" not in str(error)
    assert error.url == "https://u:hunter2@x.example/?token=abc"  # the data stays as it was
    assert "hunter2" not in str(ConfigError("bad endpoint https://u:hunter2@x.example"))


def test_display_nested_names_local_documents_inside_their_folder_at_any_depth() -> None:
    roots = ["/home/u/examples/urban-heat"]
    value = {
        "sources": [{"url": "file:///home/u/examples/urban-heat/a%20b.md", "n": 1}],
        "errors": ["cannot read file:///home/u/examples/urban-heat/x.pdf (damaged)"],
        "web": "https://example.org/file:x",
    }
    assert display_nested(value, roots) == {
        "sources": [{"url": "urban-heat/a b.md", "n": 1}],
        "errors": ["cannot read urban-heat/x.pdf (damaged)"],
        "web": "https://example.org/file:x",
    }

"""URL normalization used for dedupe and cache keys."""

from __future__ import annotations

import pytest

from research_studio.urls import is_web_url, normalize_url


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

"""Property tests: any text as a URL (odd IPv4 spellings, full-width digits, circled letters,
brackets, control characters) is parsed without an exception, and fetching it either works or
is one typed FetchError, never anything else."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError
from research_studio.core.urls import display_url, is_web_url, normalize_url, redact_url
from research_studio.faces.remote import server_error_line
from research_studio.services.clients import open_services

HOSTS = st.sampled_from(
    [
        "0177.0.0.1",
        "127.000.000.001",
        "0x7f.1",
        "2130706433",
        "\uff11\uff12\uff17.0.0.1",
        "\u24d4\u24e7\u24d0\u24dc\u24df\u24db\u24d4.com",
        "[::1",
        "[fe80::1]",
        "[/]",
        "127.0.0.1:x",
        "127.0.0.1:99999",
        "a b",
        "user:pass@127.0.0.1",
        "%31%32%37.0.0.1",
        "localhost.",
        "\x00",
        "",
        "127.0.0.1",
    ]
)
URLS = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda scheme, host, path: f"{scheme}://{host}/{path}",
        st.sampled_from(["http", "https", "HTTP", "file", "ftp", "javascript"]),
        HOSTS,
        st.text(max_size=20),
    ),
)
FAST = settings(max_examples=200, deadline=None)


@FAST
@given(url=URLS, roots=st.lists(st.text(max_size=10), max_size=2))
@example(url="HTTP://0/ #", roots=[])  # the dropped fragment leaves a space at the end
def test_url_helpers_are_total(url: str, roots: list[str]) -> None:
    normalized = normalize_url(url)
    assert normalize_url(normalized) == normalized or not is_web_url(url)
    redact_url(url)
    shown = display_url(url, roots)
    if url.strip().lower().startswith("file:"):
        assert not shown.startswith("/")  # never an absolute machine path


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(url=URLS)
async def test_fetching_any_text_is_a_page_or_one_fetch_error(
    url: str, make_config: Callable[..., Configuration]
) -> None:
    # Private networks stay closed: every host here is refused before any connection is made.
    config = make_config(allow_private_networks=False, fetch_timeout_s=1.0)
    async with open_services(config) as services:
        try:
            await services.fetcher.fetch(url)
        except FetchError as exc:
            assert "\n" not in str(exc).strip()


@FAST
@given(
    data=st.one_of(
        st.text(),
        st.dictionaries(st.sampled_from(["error", "message", "x"]), st.text(), max_size=3),
        st.integers(),
    )
)
def test_a_server_error_is_always_one_printable_line(data: object) -> None:
    line = server_error_line(data)
    assert line and "\n" not in line and line.isprintable() and len(line) <= 302

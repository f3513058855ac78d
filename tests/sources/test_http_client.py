"""The SSRF guard by construction: one lookup, vetted addresses pinned, scoped private exceptions."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpcore
import httpx
import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import FetchError
from research_studio.services.clients import open_services
from research_studio.sources import http_client
from research_studio.sources.http_client import (
    GuardedTransport,
    PinnedHTTPTransport,
    PrivateNetworkPolicy,
    build_http_client,
    endpoint_origin,
)
from tests.doubles.fake_web import FakeWeb

PUBLIC = "93.184.216.34"


class Resolver:
    """A stand-in DNS: fixed answers per host name, in turn; other names resolve for real."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.calls: list[str] = []
        self._real = http_client.resolve_host

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        if host in self.answers:
            turns = self.answers[host]
            return turns.pop(0) if len(turns) > 1 else turns[0]
        return await self._real(host, port)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Resolver]:
    def install(**answers: list[list[str]]) -> Resolver:
        fake = Resolver({name.replace("_", "."): turns for name, turns in answers.items()})
        monkeypatch.setattr(http_client, "resolve_host", fake)
        return fake

    return install


class RecordingBackend(httpcore.AsyncNetworkBackend):
    """The operating system's side of connect: records where it was asked to go, goes nowhere."""

    def __init__(self) -> None:
        self.connects: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.connects.append((host, port))
        raise httpcore.ConnectError("no route in tests")


def port_of(web: FakeWeb) -> int:
    return int(web.base_url.rsplit(":", 1)[1])


async def test_dns_rebinding_cannot_move_the_connection(
    web: FakeWeb, resolver: Callable[..., Resolver]
) -> None:
    """First answer public, second 127.0.0.1: the connection goes to the vetted first answer."""
    dns = resolver(rebind_test=[[PUBLIC], ["127.0.0.1"]])
    backend = RecordingBackend()
    transport = GuardedTransport(PinnedHTTPTransport(network_backend=backend))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(f"http://rebind.test:{port_of(web)}/pages/x.html")
    assert dns.calls == ["rebind.test"]  # resolved once, never again for the connection
    assert backend.connects == [(PUBLIC, port_of(web))]
    assert web.requests == []


async def test_dns_rebinding_through_the_fetcher_never_reaches_the_local_server(
    web: FakeWeb, resolver: Callable[..., Resolver], make_config: Callable[..., Configuration]
) -> None:
    resolver(rebind_test=[[PUBLIC], ["127.0.0.1"]])
    config = make_config(allow_private_networks=False, fetch_timeout_s=0.5, use_cache=False)
    async with open_services(config) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(f"http://rebind.test:{port_of(web)}/pages/x.html")
    assert caught.value.kind in ("network", "timeout")
    assert web.requests == []


async def test_a_host_answering_one_private_address_is_refused_before_connecting(
    web: FakeWeb, resolver: Callable[..., Resolver]
) -> None:
    resolver(mixed_test=[[PUBLIC, "127.0.0.1"]])
    backend = RecordingBackend()
    transport = GuardedTransport(PinnedHTTPTransport(network_backend=backend))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(http_client.BlockedAddressError, match="non-public address"):
            await client.get(f"http://mixed.test:{port_of(web)}/")
    assert backend.connects == [] and web.requests == []


async def test_a_connection_without_a_vetted_address_is_refused(web: FakeWeb) -> None:
    """The pinned transport alone, with no guard in front, connects nowhere."""
    async with httpx.AsyncClient(transport=PinnedHTTPTransport()) as client:
        with pytest.raises(http_client.BlockedAddressError, match="not vetted"):
            await client.get(web.url("/pages/x.html"))
    assert web.requests == []


async def test_pinned_connection_keeps_the_host_name(
    web: FakeWeb, resolver: Callable[..., Resolver], make_config: Callable[..., Configuration]
) -> None:
    """A name no real DNS knows is reached through its pinned address, with its own Host header."""
    resolver(site_test=[["127.0.0.1"]])
    page = web.pages[0]
    config = make_config(allow_private_networks=False, private_network_hosts=["site.test"])
    async with build_http_client(config, timeout_s=2) as client:
        response = await client.get(f"http://site.test:{port_of(web)}{page.path}")
    assert response.status_code == 200 and page.title in response.text
    assert web.requests[0].headers["host"] == f"site.test:{port_of(web)}"


def _openssl(*args: str | Path) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=30)


@pytest.fixture
def certificates(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for secure.test: (CA file, cert file, key file)."""
    ca_key, ca, key, csr, cert = (
        tmp_path / name for name in ("ca.key", "ca.pem", "s.key", "s.csr", "s.pem")
    )
    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(
        "req",
        "-x509",
        *curve,
        "-keyout",
        ca_key,
        "-out",
        ca,
        "-days",
        "1",
        "-subj",
        "/CN=Test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    )
    _openssl("req", *curve, "-keyout", key, "-out", csr, "-subj", "/CN=secure.test")
    extensions = tmp_path / "ext.cnf"
    extensions.write_text(
        "subjectAltName=DNS:secure.test\nbasicConstraints=critical,CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "authorityKeyIdentifier=keyid,issuer\nsubjectKeyIdentifier=hash\n"
    )
    _openssl(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca,
        "-CAkey",
        ca_key,
        "-CAcreateserial",
        "-out",
        cert,
        "-days",
        "1",
        "-extfile",
        extensions,
    )
    return ca, cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_tls_to_a_pinned_address_verifies_the_real_host_name(
    certificates: tuple[Path, Path, Path],
    resolver: Callable[..., Resolver],
    make_config: Callable[..., Configuration],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SNI and certificate checks use the URL's host, not the pinned IP the socket went to."""
    ca, cert, key = certificates
    server_names: list[str | None] = []
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda _socket, name, _context: server_names.append(name)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    resolver(secure_test=[["127.0.0.1"]], other_test=[["127.0.0.1"]])
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    config = make_config(
        allow_private_networks=False, private_network_hosts=["secure.test", "other.test"]
    )
    async with server, build_http_client(config, timeout_s=5) as client:
        response = await client.get(f"https://secure.test:{port}/")
        assert response.status_code == 200 and response.text == "ok"
        assert server_names == ["secure.test"]
        with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
            await client.get(f"https://other.test:{port}/")  # same address, wrong name


async def test_a_redirect_hop_to_a_private_address_is_refused(
    web: FakeWeb, resolver: Callable[..., Resolver], make_config: Callable[..., Configuration]
) -> None:
    """Hop one is allowed (its host is listed); hop two, elsewhere on 127.0.0.1, is not sent."""
    resolver(site_test=[["127.0.0.1"]])
    config = make_config(
        allow_private_networks=False, private_network_hosts=["site.test"], use_cache=False
    )
    target = quote(web.url("/pages/internal.html"), safe="")
    async with open_services(config) as services:
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(f"http://site.test:{port_of(web)}/redirect?to={target}")
    assert caught.value.kind == "refused" and "non-public" in str(caught.value)
    assert [request.path for request in web.requests] == ["/redirect"]


async def test_searxng_on_loopback_works_while_its_loopback_pages_are_refused(
    web: FakeWeb, make_config: Callable[..., Configuration]
) -> None:
    config = make_config(allow_private_networks=False)
    async with open_services(config) as services:
        results = await services.search.search("coral bleaching heat stress", 3)
        assert results and results[0].url.startswith(web.base_url)
        with pytest.raises(FetchError) as caught:
            await services.fetcher.fetch(results[0].url)
    assert caught.value.kind == "refused"
    assert [request.path for request in web.requests] == ["/search"]


def test_policy_scopes() -> None:
    config = Configuration(private_network_hosts=["Intranet.Example."])
    search = PrivateNetworkPolicy.from_config(config, endpoint="http://user:pw@127.0.0.1:8888/x")
    assert search.allows("127.0.0.1", 8888)
    assert not search.allows("127.0.0.1", 8889) and not search.allows("localhost", 8888)
    assert search.allows("intranet.example", 443)
    pages = PrivateNetworkPolicy.from_config(config)
    assert not pages.allows("127.0.0.1", 8888) and pages.allows("intranet.example")
    assert PrivateNetworkPolicy.from_config(Configuration(allow_private_networks=True)).allows("x")
    assert endpoint_origin("https://[::1]/search") == "[::1]:443"
    assert endpoint_origin("not a url") is None

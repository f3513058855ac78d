"""Outgoing HTTP: one client factory whose transport connects only to vetted addresses (SSRF guard).

Each request hop (redirects included) resolves its host once, checks every address, and the
connection is then made to one of those checked addresses, never to a second lookup's answer:
DNS rebinding between check and connect cannot happen. TLS still verifies the real host name.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import os
import socket
import ssl
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from research_studio.core.config import Configuration
from research_studio.core.urls import VALID_PORTS

DEFAULT_PORTS = {"http": 80, "https": 443}


# The one public error class outside core/errors.py: it must be an httpx.RequestError, so that
# transports, retries and error classification treat a blocked host as a failed request, and
# core does not import httpx.
class BlockedAddressError(httpx.RequestError):
    """The request's host resolves to an address the guard does not allow."""


def is_public_address(address: str) -> bool:
    """True for a globally routable unicast address (not private, loopback, link-local, ...)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


async def resolve_host(host: str, port: int) -> list[str]:
    """Every address a host name resolves to, in resolver order (an IP literal resolves to itself)."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _bare_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _origin(host: str, port: int) -> str:
    host = _bare_host(host)
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def endpoint_origin(url: str) -> str | None:
    """`host:port` of an http(s) URL (default port filled in), or None when it has no host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.hostname or port is None:
        return None
    return _origin(parts.hostname, port)


@dataclass(frozen=True)
class PrivateNetworkPolicy:
    """Which destinations may be non-public: all (`allow_all`), listed hosts, or listed host:port."""

    allow_all: bool = False
    hosts: frozenset[str] = frozenset()
    origins: frozenset[str] = frozenset()

    @classmethod
    def from_config(
        cls, config: Configuration, *, endpoint: str | None = None
    ) -> PrivateNetworkPolicy:
        """The configuration's exception, widened to the origin of `endpoint` when given."""
        origin = endpoint_origin(endpoint) if endpoint else None
        return cls(
            allow_all=config.allow_private_networks,
            hosts=frozenset(_bare_host(host) for host in config.private_network_hosts),
            origins=frozenset({origin} if origin else ()),
        )

    def allows(self, host: str, port: int | None = None) -> bool:
        """True when `host` (at `port`) may resolve to a non-public address."""
        if self.allow_all or _bare_host(host) in self.hosts:
            return True
        return port is not None and _origin(host, port) in self.origins


# The addresses the guard vetted for the request being sent in this context, by host:port.
_pins: ContextVar[Mapping[str, tuple[str, ...]] | None] = ContextVar(
    "research_studio_pins", default=None
)
# (host, port) reached at non-public addresses inside `track_private_hosts`; subtasks share the set.
_private_hosts: ContextVar[set[tuple[str, int]] | None] = ContextVar(
    "research_studio_private", default=None
)


@contextmanager
def track_private_hosts() -> Iterator[set[tuple[str, int]]]:
    """Collects the (host, port) that requests made inside the block reached at non-public addresses."""
    used: set[tuple[str, int]] = set()
    token = _private_hosts.set(used)
    try:
        yield used
    finally:
        _private_hosts.reset(token)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects a host:port only to the addresses the guard pinned for it; refuses anything else."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = (_pins.get() or {}).get(_origin(host, port))
        if not addresses:
            raise BlockedAddressError(f"{host} was not vetted by the address guard")
        last: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise BlockedAddressError("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def shared_ssl_context() -> ssl.SSLContext:
    """The process's TLS context, shared by every client of every run in it.

    Loading the CA bundle costs about 0.1 CPU-s on the event loop: once per client, it was the
    largest per-run cost of a server running runs at once. A context is safe to share; a new one
    is made when the CA bundle httpx reads (SSL_CERT_FILE, SSL_CERT_DIR) changes.
    """
    return _ssl_context_for(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _ssl_context_for(_cert_file: str | None, _cert_dir: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context()


class PinnedHTTPTransport(httpx.AsyncHTTPTransport):
    """httpx's transport whose connections go through a PinnedBackend (TLS checks the host name)."""

    def __init__(
        self,
        *,
        limits: httpx.Limits | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        limits = limits or httpx.Limits()
        ssl_context = shared_ssl_context()
        super().__init__(verify=ssl_context, limits=limits)
        # httpx takes no network backend, so its pool is rebuilt with ours and the same settings.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedBackend(network_backend),
        )


class GuardedTransport(httpx.AsyncBaseTransport):
    """Wraps a transport; every request, each redirect hop included, is vetted and pinned."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        allow_private: bool = False,
        policy: PrivateNetworkPolicy | None = None,
    ) -> None:
        self._inner = inner
        self._policy = policy or PrivateNetworkPolicy(allow_all=allow_private)

    async def _check(self, request: httpx.Request) -> tuple[str, ...] | None:
        """The vetted addresses of the request's host (None lets a request through unpinned)."""
        if request.url.scheme not in DEFAULT_PORTS:
            raise BlockedAddressError(
                f"scheme {request.url.scheme!r} is not allowed", request=request
            )
        host = request.url.raw_host.decode("ascii").lower()
        port = request.url.port or DEFAULT_PORTS[request.url.scheme]
        if port not in VALID_PORTS:  # httpx takes any number; the socket would raise OverflowError
            raise BlockedAddressError(f"port {port} does not exist", request=request)
        try:
            addresses = await resolve_host(host, port)
        except OSError as exc:
            raise httpx.ConnectError(f"cannot resolve {host}: {exc}", request=request) from exc
        if not addresses:
            raise httpx.ConnectError(f"cannot resolve {host}: no address", request=request)
        private = [address for address in addresses if not is_public_address(address)]
        if private:
            if not self._policy.allows(host, port):
                raise BlockedAddressError(
                    f"{host} resolves to a non-public address ({private[0]}); "
                    "set allow_private_networks or private_network_hosts to reach it",
                    request=request,
                )
            used = _private_hosts.get()
            if used is not None:
                used.add((host, port))
        return tuple(addresses)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        addresses = await self._check(request)
        if addresses is None:
            return await self._inner.handle_async_request(request)
        port = request.url.port or DEFAULT_PORTS[request.url.scheme]
        origin = _origin(request.url.raw_host.decode("ascii"), port)
        token = _pins.set({**(_pins.get() or {}), origin: addresses})
        try:
            return await self._inner.handle_async_request(request)
        finally:
            _pins.reset(token)

    async def aclose(self) -> None:
        await self._inner.aclose()


def build_http_client(
    config: Configuration,
    *,
    timeout_s: float,
    base_url: str = "",
    follow_redirects: bool = True,
    headers: dict[str, str] | None = None,
    private_endpoint: str | None = None,
) -> httpx.AsyncClient:
    """An AsyncClient with the guard, the user agent, redirect limit and connection limits.

    `private_endpoint` (a search endpoint) may be private for this client only.
    """
    limit = max(config.max_concurrent_fetches, config.max_concurrent_searches)
    transport = GuardedTransport(
        PinnedHTTPTransport(
            limits=httpx.Limits(max_connections=limit * 2, max_keepalive_connections=limit)
        ),
        policy=PrivateNetworkPolicy.from_config(config, endpoint=private_endpoint),
    )
    return httpx.AsyncClient(
        transport=transport,
        base_url=base_url,
        timeout=httpx.Timeout(timeout_s),
        follow_redirects=follow_redirects,
        max_redirects=config.max_redirects,
        headers={"User-Agent": config.user_agent, **(headers or {})},
    )

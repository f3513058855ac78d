"""Outgoing HTTP: one client factory whose transport refuses private addresses (SSRF guard)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import httpx

from research_studio.config import Configuration


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
    """Every address a host name resolves to (an IP literal resolves to itself)."""
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return sorted({str(info[4][0]) for info in infos})


class GuardedTransport(httpx.AsyncBaseTransport):
    """Wraps a transport; every request, including each redirect hop, is checked before it leaves."""

    def __init__(self, inner: httpx.AsyncBaseTransport, *, allow_private: bool) -> None:
        self._inner = inner
        self._allow_private = allow_private

    async def _check(self, request: httpx.Request) -> None:
        if request.url.scheme not in ("http", "https"):
            raise BlockedAddressError(
                f"scheme {request.url.scheme!r} is not allowed", request=request
            )
        if self._allow_private:
            return
        host = request.url.host.strip("[]")
        try:
            addresses = await resolve_host(host, request.url.port or 443)
        except OSError as exc:
            raise httpx.ConnectError(f"cannot resolve {host}: {exc}", request=request) from exc
        blocked = [address for address in addresses if not is_public_address(address)]
        if blocked:
            raise BlockedAddressError(
                f"{host} resolves to a non-public address ({blocked[0]}); "
                "set allow_private_networks to reach it",
                request=request,
            )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await self._check(request)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def build_http_client(
    config: Configuration,
    *,
    timeout_s: float,
    base_url: str = "",
    follow_redirects: bool = True,
    headers: dict[str, str] | None = None,
) -> httpx.AsyncClient:
    """An AsyncClient with the guard, the user agent, redirect limit and connection limits."""
    limit = max(config.max_concurrent_fetches, config.max_concurrent_searches)
    transport = GuardedTransport(
        httpx.AsyncHTTPTransport(
            limits=httpx.Limits(max_connections=limit * 2, max_keepalive_connections=limit)
        ),
        allow_private=config.allow_private_networks,
    )
    return httpx.AsyncClient(
        transport=transport,
        base_url=base_url,
        timeout=httpx.Timeout(timeout_s),
        follow_redirects=follow_redirects,
        max_redirects=config.max_redirects,
        headers={"User-Agent": config.user_agent, **(headers or {})},
    )

"""Who may use the server: the access token, loopback Host names, and protective headers."""

from __future__ import annotations

import json
import secrets
from urllib.parse import quote, unquote

from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from research_studio.faces.web.settings import is_loopback

COOKIE = "rs_token"
# The report shows text from web pages: no script but ours, nothing from elsewhere.
HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",  # the token may sit in the address
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


def _presented(connection: HTTPConnection) -> tuple[str | None, bool]:
    """The token the request carries, and whether it came in the address (to set the cookie)."""
    header = connection.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip(), False
    if "token" in connection.query_params:
        return connection.query_params["token"], True
    cookie = connection.cookies.get(COOKIE)
    return (unquote(cookie) if cookie is not None else None), False


class AccessGuard:
    """ASGI middleware: a token when one is set, else only loopback Host names (no DNS rebinding)."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        set_cookie = False
        if self.token:
            presented, set_cookie = _presented(connection)
            if presented is None or not secrets.compare_digest(
                presented.encode("utf-8", "replace"), self.token.encode()
            ):
                await _refuse(
                    send, 401, "an access token is required: open the address serve printed"
                )
                return
        elif not is_loopback((connection.url.hostname or "").lower()):
            await _refuse(send, 403, "this server answers only on its loopback address")
            return

        async def guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
                if set_cookie and self.token:
                    headers.append(
                        "set-cookie",
                        f"{COOKIE}={quote(self.token, safe='')}; Path=/; HttpOnly; SameSite=Strict",
                    )
            await send(message)

        await self.app(scope, receive, guarded)


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"field": None, "message": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        *((k.encode(), v.encode()) for k, v in HEADERS.items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

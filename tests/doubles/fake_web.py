"""A local stand-in for the web on 127.0.0.1: pages, PDFs, search APIs, an LLM API and faults."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import socketserver
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from tests.doubles.corpus_loader import (
    CorpusPage,
    SearchIndex,
    load_corpus,
    render_page,
    searx_payload,
    tavily_extract_payload,
    tavily_search_payload,
)
from tests.doubles.fake_chat import ChatEndpoint, ChatToolCall, openai_error
from tests.doubles.fake_ollama import OllamaEndpoint
from tests.doubles.pdf_builder import make_png

__all__ = ["ChatEndpoint", "ChatToolCall", "CorpusPage", "FakeWeb", "Fault", "RecordedRequest"]

HUGE_BYTES = 20 * 1024 * 1024
_CHUNK = 64 * 1024
_FILLER = (b"<p>" + b"All work and no play makes a very large page. " * 20 + b"</p>\n") * 71
_HUGE_CHUNK = _FILLER[:_CHUNK]
_HUGE_FIRST = (b"<!DOCTYPE html><html><body>" + _FILLER)[:_CHUNK]
_BINARY = random.Random(1234).randbytes(64 * 1024)
_PNG = make_png()
_HTML, _TEXT = "text/html; charset=utf-8", "text/plain; charset=utf-8"
# A page a stalled server sends one byte at a time (see the drip route and fault).
_DRIP = b"<!DOCTYPE html><html><head><title>Drip</title></head><body><p>" + b"." * 80 + b"</p>"
_NOT_FOUND = (
    b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
    b"<p>The requested URL was not found on this server.</p></body></html>\n"
)


def _json_object(body: bytes) -> dict[str, Any] | None:
    """The body parsed as a JSON object; None when it is not valid JSON or not an object."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True)
class RecordedRequest:
    """One request as received; header names are lower-cased, times are time.monotonic()."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    started: float
    ended: float


@dataclass
class Fault:
    """Misbehaviour for requests under a path prefix; `times` limits it to the first N matches."""

    kind: Literal["status", "latency", "timeout", "oversized", "binary", "drip"]
    status: int = 503
    times: int | None = None
    delay_s: float = 0.0
    retry_after: float | None = None


class _Aborted(Exception):
    """The server is stopping; drop the connection instead of answering."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() must not wait for handlers stuck in sleeps or slow clients
    web: FakeWeb

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup, which can stall without a network.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: clients hanging up mid-response is routine here."""


class FakeWeb:
    """Threaded HTTP server on 127.0.0.1:<random port>; use as a context manager or start()/stop()."""

    def __init__(self, *, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.search_latency_s = 0.0
        self.page_latency_s = 0.0
        # Extra seconds for a SearXNG search, by its query: makes parallel workers finish in a
        # chosen order (tests of runs whose outcome must not depend on arrival order).
        self.search_delay: Callable[[str], float] | None = None
        self.chat = ChatEndpoint()
        self.ollama = OllamaEndpoint()
        self.pages: list[CorpusPage] = []
        self.base_url = ""
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._faults: dict[str, Fault] = {}
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._bodies: dict[str, tuple[bytes, str]] = {}
        self._index = SearchIndex([])

    def start(self) -> FakeWeb:
        """Bind, build the corpus for the bound address and serve from a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.web = self
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}"
        self.pages = load_corpus(self.base_url)
        self._index = SearchIndex(self.pages)
        self._bodies = {page.path: render_page(page, self.pages) for page in self.pages}
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-web",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving promptly; sleeping handlers wake up and drop their connections."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def __enter__(self) -> FakeWeb:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def url(self, path: str) -> str:
        """Absolute URL of `path` on this server."""
        return self.base_url + path

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path_prefix: str) -> list[RecordedRequest]:
        """Recorded requests whose path starts with `path_prefix`."""
        return [r for r in self.requests if r.path.startswith(path_prefix)]

    def clear_requests(self) -> None:
        """Forget the request log."""
        with self._lock:
            self._requests.clear()

    def set_fault(self, path_prefix: str, fault: Fault) -> None:
        """Apply a copy of `fault` under `path_prefix`; the longest matching prefix wins."""
        with self._lock:
            self._faults[path_prefix] = dataclasses.replace(fault)

    def clear_faults(self) -> None:
        """Remove every fault."""
        with self._lock:
            self._faults.clear()

    def page(self, slug: str) -> CorpusPage:
        """The corpus page with this slug."""
        return next(page for page in self.pages if page.slug == slug)

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _finish(self, request: RecordedRequest) -> None:
        with self._lock:
            for i in range(len(self._requests) - 1, -1, -1):
                if self._requests[i] is request:
                    self._requests[i] = dataclasses.replace(request, ended=time.monotonic())
                    return

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            matches = [prefix for prefix in self._faults if path.startswith(prefix)]
            if not matches:
                return None
            fault = self._faults[max(matches, key=len)]
            if fault.times is not None:
                if fault.times <= 0:
                    return None
                fault.times -= 1
            return dataclasses.replace(fault)

    def _latency_for(self, path: str, query: dict[str, str]) -> float:
        extra = 0.0
        if path == "/search" or path.startswith("/tavily/"):
            extra = self.search_latency_s
            if self.search_delay is not None and "q" in query:
                extra += self.search_delay(query["q"])
        elif path.startswith(("/pages/", "/docs/", "/text/")):
            extra = self.page_latency_s
        return self.latency_s + extra

    def _sleep(self, seconds: float) -> None:
        # An Event wait rather than time.sleep so that stop() interrupts sleeping handlers.
        if seconds > 0 and self._stopping.wait(seconds):
            raise _Aborted
        if self._stopping.is_set():
            raise _Aborted


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeWeb/1.0"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    timeout = 30  # idle keep-alive connections and stalled clients must not pin threads forever
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr log."""

    def do_GET(self) -> None:
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def _dispatch(self) -> None:
        web = self.server.web
        started = time.monotonic()
        parts = urlsplit(self.path)
        record = RecordedRequest(
            method=self.command,
            path=parts.path,
            query=dict(parse_qsl(parts.query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self._read_body(),
            started=started,
            ended=started,
        )
        web._record(record)
        try:
            fault = web._take_fault(record.path)
            web._sleep(web._latency_for(record.path, record.query))
            if fault is None or fault.kind in ("latency", "timeout"):
                if fault is not None:
                    web._sleep(fault.delay_s or (5.0 if fault.kind == "timeout" else 0.0))
                self._route(record)
            else:
                self._fault(fault, record.path)
        except (_Aborted, ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as exc:  # a bug in a route should reach the client as a 500, not a reset
            self.close_connection = True
            with contextlib.suppress(OSError):
                self._send(500, f"fake web error: {exc!r}".encode(), _TEXT)
        finally:
            web._finish(record)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                body += self.rfile.read(size)
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass  # trailers
            return bytes(body)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", headers)

    def _stream_huge(self, declared: bool) -> None:
        self.close_connection = True  # a client that stops reading leaves the connection unusable
        self.send_response(200)
        self.send_header("Content-Type", _HTML)
        if declared:
            self.send_header("Content-Length", str(HUGE_BYTES))
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if self.command == "HEAD":
            return
        for i in range(HUGE_BYTES // _CHUNK):
            if self.server.web._stopping.is_set():
                return
            data = _HUGE_FIRST if i == 0 else _HUGE_CHUNK
            self.wfile.write(data if declared else b"%x\r\n%s\r\n" % (len(data), data))
        if not declared:
            self.wfile.write(b"0\r\n\r\n")

    def _drip(self, content_type: str, every_s: float) -> None:
        """Headers at once, then one body byte every `every_s` seconds: each read is quick."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(_DRIP)))
        self.end_headers()
        for i in range(len(_DRIP) if self.command != "HEAD" else 0):
            self.wfile.write(_DRIP[i : i + 1])
            self.server.web._sleep(every_s)

    def _fault(self, fault: Fault, path: str) -> None:
        if fault.kind == "drip":
            api = path == "/search" or path.startswith(("/tavily/", "/v1/"))
            self._drip("application/json" if api else _HTML, fault.delay_s or 1.0)
            return
        if fault.kind == "oversized":
            self._stream_huge(declared=False)
            return
        if fault.kind == "binary":
            self._send(200, _BINARY, "application/octet-stream")
            return
        headers = {}
        if fault.retry_after is not None:
            seconds = fault.retry_after
            headers["Retry-After"] = f"{seconds:g}"
            headers["retry-after-ms"] = str(int(seconds * 1000))  # what the openai client prefers
        message = f"fake fault: HTTP {fault.status}"
        if path.startswith("/v1/"):
            self._json(fault.status, openai_error(message, None, "server_error"), headers)
        elif path.startswith("/tavily/"):
            self._json(fault.status, {"detail": {"error": message}}, headers)
        elif path == "/search":
            self._json(fault.status, {"error": message}, headers)
        else:
            page = f"<!DOCTYPE html><html><head><title>{fault.status}</title></head>"
            page += f"<body><h1>{message}</h1></body></html>"
            self._send(fault.status, page.encode(), _HTML, headers)

    def _route(self, req: RecordedRequest) -> None:
        web, path, method = self.server.web, req.path, req.method
        if method == "POST" and path == "/v1/chat/completions":
            payload = _json_object(req.body)
            if payload is not None:
                reply = web.chat.handle(payload)
                web._sleep(reply.delay_s)  # a slow model; stop() still interrupts it
                self._send(reply.status, reply.body, reply.content_type, reply.headers)
            else:
                self._json(400, openai_error("request body must be a JSON object", None))
        elif method == "POST" and path == "/api/chat":
            payload = _json_object(req.body)
            if payload is not None:
                self._send(200, *web.ollama.handle(payload))
            else:
                self._json(400, {"error": "request body must be a JSON object"})
        elif method == "POST" and path in ("/tavily/search", "/tavily/extract"):
            self._tavily(path, req)
        elif method not in ("GET", "HEAD") and not path.startswith("/status/"):
            self._json(405, {"error": f"method {method} not allowed"})
        elif path == "/api/tags":  # Ollama's model list, as the resolution probe reads it
            self._json(200, {"models": [{"name": "qwen3:4b", "model": "qwen3:4b"}]})
        elif path in web._bodies:
            self._send(200, *web._bodies[path])
        elif path == "/search":
            self._searx(req.query)
        elif path == "/v1/models":
            self._json(200, web.chat.models())
        elif path == "/redirect" and req.query.get("to"):
            self._send(302, b"", _HTML, {"Location": req.query["to"]})
        elif path.startswith("/redirect-chain/") and path[16:].isdigit():
            hops = int(path[16:])
            target = f"/redirect-chain/{hops - 1}" if hops > 0 else web.pages[0].path
            self._send(302, b"", _HTML, {"Location": web.url(target)})
        elif path.startswith("/status/") and path[8:].isdigit() and 200 <= int(path[8:]) <= 599:
            code = int(path[8:])
            self._send(code, b"" if code in (204, 304) else f"status {code}\n".encode(), _TEXT)
        elif path == "/binary":
            self._send(200, _BINARY, "application/octet-stream")
        elif path == "/image.png":
            self._send(200, _PNG, "image/png")
        elif path in ("/huge", "/huge-declared"):
            self._stream_huge(declared=path == "/huge-declared")
        elif path == "/broken.pdf":  # a PDF header, then a truncated body
            self._send(200, b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R", "application/pdf")
        elif path == "/odd-charset":
            self._send(200, "Café au lait.\n".encode(), "text/plain; charset=no-such-charset")
        elif path == "/drip":
            self._drip(_HTML, float(req.query.get("every") or 1.0))
        elif path == "/mislabeled-binary":
            self._send(200, b"Plain text, they said.\n\x00\x01\x02\xff" + _BINARY[:4096], _TEXT)
        else:
            self._send(404, _NOT_FOUND, _HTML)

    def _searx(self, query: dict[str, str]) -> None:
        if query.get("format", "html") != "json":  # SearXNG refuses formats not enabled in settings
            self._send(403, b"<html><body><h1>403 Forbidden</h1></body></html>", _HTML)
        elif not query.get("q", "").strip():
            self._json(400, {"error": "missing query"})
        else:
            page_no = int(query["pageno"]) if query.get("pageno", "").isdigit() else 1
            self._json(200, searx_payload(self.server.web._index, query["q"].strip(), page_no))

    def _tavily(self, path: str, req: RecordedRequest) -> None:
        started = time.monotonic()
        web = self.server.web
        auth = self.headers.get("Authorization", "")
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            self._json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
            return
        body = _json_object(req.body or b"{}")
        if body is None or (path == "/tavily/search" and not body.get("query")):
            self._json(
                400, {"detail": {"error": "Invalid request: a query (or urls) is required."}}
            )
            return
        if path == "/tavily/search":
            payload = tavily_search_payload(web._index, body)
        else:
            payload = tavily_extract_payload(web.pages, body.get("urls") or [])
        payload["response_time"] = round(max(time.monotonic() - started, 0.01), 2)
        payload["request_id"] = str(uuid.uuid4())
        self._json(200, payload)

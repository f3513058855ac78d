"""The fake web itself: routes, corpus, search APIs, chat endpoint, faults and the request log."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
from collections.abc import Iterator

import httpx
import openai
import pypdf
import pytest
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from tests.doubles.fake_chat import ChatFaults
from tests.doubles.fake_web import ChatToolCall, FakeWeb, Fault
from tests.doubles.pdf_builder import make_pdf

BEARER = {"Authorization": "Bearer tvly-test"}


class Verdict(BaseModel):
    """A structured-output schema for the chat checks."""

    answer: str
    confidence: float


@pytest.fixture(scope="module")
def web() -> Iterator[FakeWeb]:
    with FakeWeb() as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh(web: FakeWeb) -> Iterator[None]:
    yield
    web.clear_faults()
    web.clear_requests()
    web.chat.reset()
    web.latency_s = web.search_latency_s = web.page_latency_s = 0.0


@pytest.fixture
def client(web: FakeWeb) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=web.base_url, timeout=5) as http:
        yield http


def _squash(text: str) -> str:
    return " ".join(text.split())


def _llm(web: FakeWeb) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=web.url("/v1"), api_key=SecretStr("test"), model="fake-model", max_retries=0
    )


# --- corpus -------------------------------------------------------------------------------


def test_corpus_covers_three_topics_with_absolute_urls(web: FakeWeb) -> None:
    topics = [page.topic for page in web.pages]
    assert len(web.pages) == 14
    assert topics.count("solid-state-batteries") == 6
    assert topics.count("coral-bleaching") == 5
    assert topics.count("python-language") == 2 and topics.count("python-snake") == 1
    assert len({page.title for page in web.pages}) == 14
    assert all(page.url == web.url(page.path) and page.published for page in web.pages)
    assert all(250 <= len(page.text.split()) <= 650 for page in web.pages)


def test_html_page_is_a_full_article_with_boilerplate(web: FakeWeb, client: httpx.Client) -> None:
    page = web.page("coral-bleaching-causes")
    response = client.get(page.path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    html = response.text
    for marker in (
        "<title>",
        "<nav",
        "<article",
        "<h1>",
        "<h2>",
        "cookie-banner",
        "<footer",
        "ad-",
    ):
        assert marker in html
    assert "Accept all" in html and "Pacific Reef Monitoring Network" in html


def test_trafilatura_extracts_the_article_without_boilerplate(web: FakeWeb) -> None:
    import trafilatura

    page = web.page("global-bleaching-event-2024")
    html = httpx.get(page.url).text
    text = trafilatura.extract(html) or ""
    assert "54 percent of the world's reef area" in text
    assert "Accept all" not in text and "personalise content and ads" not in text
    assert "All rights reserved" not in text


def test_pdf_text_is_extractable_with_pypdf(web: FakeWeb, client: httpx.Client) -> None:
    page = web.page("solid-state-manufacturing-cost")
    response = client.get(page.path)
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-1.4")
    reader = pypdf.PdfReader(io.BytesIO(response.content), strict=True)
    text = _squash("\n".join(p.extract_text() for p in reader.pages))
    assert "about $90 per kWh by 2030" in text
    assert reader.metadata is not None and reader.metadata.title == page.title
    assert _squash(page.paragraphs[2]) in text


def test_make_pdf_paginates_and_escapes() -> None:
    paragraphs = [f"Paragraph {i} (with parens) and a back\\slash at 40 °C." for i in range(150)]
    reader = pypdf.PdfReader(io.BytesIO(make_pdf("Title (draft)", paragraphs)), strict=True)
    assert len(reader.pages) > 2
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert "Title (draft)" in text
    assert "Paragraph 149 (with parens) and a back\\slash at 40 °C." in _squash(text)


def test_text_and_markdown_routes(web: FakeWeb, client: httpx.Client) -> None:
    txt = client.get(web.page("solid-state-battery-news-digest").path)
    assert txt.headers["content-type"] == "text/plain; charset=utf-8"
    assert "QuantumScape" in txt.text
    md = client.get(web.page("coral-reef-recovery").path)
    assert md.headers["content-type"] == "text/markdown; charset=utf-8"
    assert md.text.startswith("# Can Coral Reefs Recover")


# --- search APIs --------------------------------------------------------------------------


def test_searxng_ranks_relevant_pages_first(web: FakeWeb, client: httpx.Client) -> None:
    response = client.get(
        "/search",
        params={"q": "solid-state battery electrolyte", "format": "json", "language": "en"},
    )
    body = response.json()
    assert response.status_code == 200
    assert set(body) >= {"query", "number_of_results", "results", "answers", "suggestions"}
    results = body["results"]
    assert results[0]["url"] == web.page("solid-state-electrolytes-explained").url
    slugs = {page.url: page for page in web.pages}
    assert all(slugs[r["url"]].topic == "solid-state-batteries" for r in results[:5])
    assert all(r["url"].startswith(web.base_url + "/") for r in results)
    first = results[0]
    assert first["publishedDate"] == "2024-02-19T00:00:00"
    assert 0 < len(first["content"]) <= 210 and first["engine"] and first["score"] > 0
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_searxng_paging_empty_results_and_format(client: httpx.Client) -> None:
    broad = {"q": "2024 battery coral python", "format": "json"}
    everything = client.get("/search", params=broad).json()
    assert everything["number_of_results"] > 10 and len(everything["results"]) == 10
    page2 = client.get("/search", params={**broad, "pageno": 2})
    assert len(page2.json()["results"]) == everything["number_of_results"] - 10
    nothing = client.get("/search", params={"q": "xylophone quasar", "format": "json"}).json()
    assert nothing["results"] == [] and nothing["number_of_results"] == 0
    assert client.get("/search", params={"q": "coral"}).status_code == 403


def test_python_query_is_ambiguous(web: FakeWeb, client: httpx.Client) -> None:
    results = client.get("/search", params={"q": "python", "format": "json"}).json()["results"]
    topics = {r["url"]: p.topic for p in web.pages for r in results if r["url"] == p.url}
    assert set(topics.values()) == {"python-language", "python-snake"}


def test_tavily_search_requires_a_bearer_key(client: httpx.Client) -> None:
    for headers in ({}, {"Authorization": "Bearer"}, {"Authorization": "Basic dXNlcg=="}):
        response = client.post("/tavily/search", json={"query": "coral"}, headers=headers)
        assert response.status_code == 401
        assert response.json() == {"detail": {"error": "Unauthorized: missing or invalid API key."}}


def test_tavily_search_returns_raw_content_when_asked(web: FakeWeb, client: httpx.Client) -> None:
    query = {"query": "degree heating weeks coral bleaching", "max_results": 3}
    plain = client.post("/tavily/search", json=query, headers=BEARER).json()
    assert len(plain["results"]) == 3 and plain["answer"] is None and plain["request_id"]
    assert all(r["raw_content"] is None and 0 < r["score"] < 1 for r in plain["results"])
    top = web.page("degree-heating-weeks-explained")
    assert plain["results"][0]["url"] == top.url
    raw = client.post(
        "/tavily/search", json={**query, "include_raw_content": "markdown"}, headers=BEARER
    ).json()
    assert raw["results"][0]["raw_content"] == top.text
    assert raw["results"][0]["published_date"] == "2024-05-28"


def test_tavily_python_client_talks_to_the_fake(web: FakeWeb) -> None:
    from tavily import AsyncTavilyClient

    async def run() -> tuple[dict, dict]:
        tavily = AsyncTavilyClient(api_key="tvly-test", api_base_url=web.url("/tavily"))
        found = await tavily.search("Great Barrier Reef bleaching", max_results=2)
        extracted = await tavily.extract([web.page("python-313-release").url])
        await tavily.close()
        return found, extracted

    found, extracted = asyncio.run(run())
    assert found["results"][0]["url"] == web.page("great-barrier-reef-2024-survey").url
    assert "Python 3.13" in extracted["results"][0]["raw_content"]


def test_tavily_extract_resolves_only_corpus_urls(web: FakeWeb, client: httpx.Client) -> None:
    page = web.page("burmese-pythons-everglades")
    urls = [page.url, "https://example.com/elsewhere", web.url("/pages/missing.html")]
    body = client.post("/tavily/extract", json={"urls": urls}, headers=BEARER).json()
    assert body["results"] == [{"url": page.url, "raw_content": page.text, "images": []}]
    assert [f["url"] for f in body["failed_results"]] == urls[1:]
    single = client.post("/tavily/extract", json={"urls": page.url}, headers=BEARER).json()
    assert len(single["results"]) == 1 and "response_time" in single


# --- other routes -------------------------------------------------------------------------


def test_redirects(web: FakeWeb, client: httpx.Client) -> None:
    target = web.page("python-language-history").url
    hop = client.get("/redirect", params={"to": target})
    assert hop.status_code == 302 and hop.headers["location"] == target
    chain = client.get("/redirect-chain/3", follow_redirects=True)
    assert chain.status_code == 200 and len(chain.history) == 4
    assert str(chain.url) == web.pages[0].url


def test_binary_image_and_odd_routes(client: httpx.Client) -> None:
    binary = client.get("/binary")
    assert binary.headers["content-type"] == "application/octet-stream"
    assert len(binary.content) == 64 * 1024 and binary.content == client.get("/binary").content
    png = client.get("/image.png")
    assert png.headers["content-type"] == "image/png" and png.content.startswith(b"\x89PNG")
    mislabeled = client.get("/mislabeled-binary")
    assert mislabeled.headers["content-type"].startswith("text/plain")
    assert b"\x00" in mislabeled.content
    for path in ("/notfound", "/no/such/page"):
        missing = client.get(path)
        assert missing.status_code == 404 and "Not Found" in missing.text
    assert client.get("/status/418").status_code == 418
    assert client.post("/status/503").status_code == 503


@pytest.mark.parametrize("path", ["/huge", "/huge-declared"])
def test_huge_bodies_stream_and_survive_disconnects(
    web: FakeWeb, client: httpx.Client, path: str
) -> None:
    with client.stream("GET", path) as response:
        if path == "/huge":
            assert "content-length" not in response.headers
            assert response.headers["transfer-encoding"] == "chunked"
        else:
            assert response.headers["content-length"] == str(20 * 1024 * 1024)
        received = 0
        for chunk in response.iter_bytes():
            received += len(chunk)
            if received > 1024 * 1024:
                break
    assert received > 1024 * 1024
    assert client.get("/binary").status_code == 200  # the server shrugged off the hang-up


def test_huge_declared_body_is_as_long_as_declared(client: httpx.Client) -> None:
    response = client.get("/huge-declared", timeout=30)
    assert len(response.content) == int(response.headers["content-length"]) == 20 * 1024 * 1024
    assert response.text.startswith("<!DOCTYPE html>") and response.text.count("<p>") > 20_000


def test_broken_pdf_and_unknown_charset_routes(client: httpx.Client) -> None:
    pdf = client.get("/broken.pdf")
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-") and b"%%EOF" not in pdf.content
    odd = client.get("/odd-charset")
    assert odd.headers["content-type"].endswith("charset=no-such-charset")
    assert odd.content.decode() == "Café au lait.\n"


def test_request_log_records_path_query_body_and_times(web: FakeWeb, client: httpx.Client) -> None:
    client.get("/search", params={"q": "reef", "format": "json"}, headers={"X-Probe": "1"})
    client.post("/tavily/search", json={"query": "reef"}, headers=BEARER)
    search, tavily = web.requests
    assert (search.method, search.path, search.query) == (
        "GET",
        "/search",
        {"q": "reef", "format": "json"},
    )
    assert search.headers["x-probe"] == "1" and search.started <= search.ended
    assert json.loads(tavily.body) == {"query": "reef"}
    assert web.requests_to("/tavily") == [tavily]
    web.clear_requests()
    assert web.requests == []


# --- faults and latency -------------------------------------------------------------------


def test_status_fault_applies_n_times_with_retry_after(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/search", Fault("status", status=429, times=2, retry_after=1.5))
    params = {"q": "coral", "format": "json"}
    first, second, third = (client.get("/search", params=params) for _ in range(3))
    assert first.status_code == second.status_code == 429
    assert first.headers["retry-after"] == "1.5"
    assert third.status_code == 200
    assert len(web.requests_to("/search")) == 3  # faulted requests are recorded too


def test_longest_prefix_wins(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/pages", Fault("status", status=500))
    web.set_fault("/pages/coral", Fault("status", status=503))
    assert client.get(web.page("coral-bleaching-causes").path).status_code == 503
    assert client.get(web.page("python-313-release").path).status_code == 500
    web.clear_faults()
    assert client.get(web.page("python-313-release").path).status_code == 200


def test_latency_fault_delays_then_serves(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/pages", Fault("latency", delay_s=0.1))
    started = time.monotonic()
    response = client.get(web.pages[0].path)
    assert response.status_code == 200 and time.monotonic() - started >= 0.1


def test_timeout_fault_times_the_client_out(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/docs", Fault("timeout", delay_s=1.0, times=1))
    with pytest.raises(httpx.ReadTimeout):
        client.get(web.page("solid-state-manufacturing-cost").path, timeout=0.2)
    assert client.get(web.page("solid-state-manufacturing-cost").path).status_code == 200


def test_oversized_and_binary_faults(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/pages/python", Fault("oversized"))
    web.set_fault("/pages/coral", Fault("binary"))
    with client.stream("GET", web.page("python-313-release").path) as response:
        assert "content-length" not in response.headers
        assert len(next(response.iter_bytes())) > 0
    binary = client.get(web.page("coral-bleaching-causes").path)
    assert binary.headers["content-type"] == "application/octet-stream"
    assert b"<article" not in binary.content


def test_drip_route_sends_headers_at_once_then_a_byte_at_a_time(
    web: FakeWeb, client: httpx.Client
) -> None:
    started = time.monotonic()
    with client.stream("GET", "/drip?every=0.1", timeout=1.0) as response:
        headed = time.monotonic() - started
        assert response.headers["content-type"].startswith("text/html")
        declared = int(response.headers["content-length"])
        pieces = response.iter_raw()
        received = next(pieces) + next(pieces) + next(pieces)
    # Each read is quick (well inside a 1 s read timeout), the whole body is not.
    assert headed < declared * 0.1 / 2 and received.startswith(b"<!D") and len(received) < 10


def test_drip_fault_stalls_an_api_answer(web: FakeWeb, client: httpx.Client) -> None:
    web.set_fault("/search", Fault("drip", delay_s=0.05, times=1))
    with client.stream("GET", "/search", params={"q": "coral", "format": "json"}) as response:
        assert response.headers["content-type"] == "application/json"
        assert len(next(response.iter_raw())) < 10
    assert client.get("/search", params={"q": "coral", "format": "json"}).json()["results"]


def test_global_and_route_latency_overlap_across_threads(web: FakeWeb) -> None:
    web.latency_s = 0.05
    web.page_latency_s = 0.05
    url = web.url(web.pages[1].path)
    durations: list[float] = []

    def fetch() -> None:
        started = time.monotonic()
        httpx.get(url)
        durations.append(time.monotonic() - started)

    threads = [threading.Thread(target=fetch) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert min(durations) >= 0.1
    # The server's own record shows requests in flight together (a serializing server: one).
    served = web.requests_to(web.pages[1].path)[-6:]
    in_flight = max(sum(1 for r in served if r.started <= s.started < r.ended) for s in served)
    assert in_flight >= 3


def test_stop_is_prompt_even_with_sleeping_handlers() -> None:
    server = FakeWeb().start()
    server.set_fault("/", Fault("timeout", delay_s=5.0))

    def fetch() -> None:
        with pytest.raises(httpx.HTTPError):  # the stopping server drops the connection
            httpx.get(server.url("/binary"), timeout=0.5)

    worker = threading.Thread(target=fetch)
    worker.start()
    time.sleep(0.05)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 0.5
    worker.join()
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.url("/binary"), timeout=0.5)


# --- chat endpoint ------------------------------------------------------------------------


def test_chat_openai_invoke_returns_queued_text(web: FakeWeb) -> None:
    web.chat.queue('```json\n{"a": 1}\n``` and some trailing prose')
    reply = _llm(web).invoke("hi")
    assert reply.content == '```json\n{"a": 1}\n``` and some trailing prose'
    assert reply.usage_metadata is not None and reply.usage_metadata["input_tokens"] == 1
    assert web.chat.requests[0]["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("method", ["function_calling", "json_schema", "json_mode"])
def test_chat_openai_structured_output(web: FakeWeb, method: str) -> None:
    web.chat.queue({"answer": "42", "confidence": 0.9})
    structured = _llm(web).with_structured_output(Verdict, method=method)  # type: ignore[arg-type]
    assert structured.invoke("question") == Verdict(answer="42", confidence=0.9)


def test_chat_rejects_switched_off_capabilities(web: FakeWeb) -> None:
    web.chat.supports_tools = False
    with pytest.raises(openai.BadRequestError):
        _llm(web).with_structured_output(Verdict, method="function_calling").invoke("q")
    web.chat.supports_json_schema = False
    with pytest.raises(openai.BadRequestError) as error:
        _llm(web).with_structured_output(Verdict, method="json_schema").invoke("q")
    assert error.value.body["param"] == "response_format"  # type: ignore[index]
    web.chat.queue({"answer": "x", "confidence": 0.1})
    parsed = _llm(web).with_structured_output(Verdict, method="json_mode").invoke("q")
    assert isinstance(parsed, Verdict) and parsed.answer == "x"


def test_chat_wire_format_tool_calls_and_errors(web: FakeWeb, client: httpx.Client) -> None:
    tools = [
        {"type": "function", "function": {"name": "search", "parameters": {}}},
        {"type": "function", "function": {"name": "answer", "parameters": {}}},
    ]
    request = {"model": "m", "messages": [{"role": "user", "content": "12345678"}], "tools": tools}
    web.chat.queue({"q": "reef"}, ChatToolCall("answer", {"text": "done"}), "plain")
    first = client.post("/v1/chat/completions", json=request).json()
    assert first["object"] == "chat.completion" and first["choices"][0]["logprobs"] is None
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    message = first["choices"][0]["message"]
    assert message["content"] is None and message["tool_calls"][0]["function"] == {
        "name": "search",
        "arguments": '{"q": "reef"}',
    }
    assert first["usage"] == {"prompt_tokens": 2, "completion_tokens": 4, "total_tokens": 6}
    second = client.post("/v1/chat/completions", json=request).json()
    assert second["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "answer"
    third = client.post("/v1/chat/completions", json=request).json()
    assert third["choices"][0]["message"]["content"] == "plain"
    empty = client.post("/v1/chat/completions", json=request)
    assert empty.status_code == 500 and "error" in empty.json()
    streamed = client.post("/v1/chat/completions", json={**request, "stream": True})
    assert streamed.status_code == 400
    assert client.get("/v1/models").json()["data"][0]["id"] == "fake-model"
    assert len(web.chat.requests) == 5


def test_chat_responder_is_used_when_the_queue_is_empty(web: FakeWeb, client: httpx.Client) -> None:
    web.chat.responder = lambda request: f"echo: {request['messages'][-1]['content']}"
    request = {"model": "m", "messages": [{"role": "user", "content": "ping"}]}
    reply = client.post("/v1/chat/completions", json=request).json()
    assert reply["choices"][0]["message"]["content"] == "echo: ping"


def test_chat_faults_are_seeded_and_keep_to_their_rate(web: FakeWeb, client: httpx.Client) -> None:
    def injected(seed: int) -> list[str]:
        web.chat.reset()
        web.chat.faults = ChatFaults(
            rate=0.3, seed=seed, kinds=("prose", "empty", "slow"), slow_s=0
        )
        web.chat.responder = lambda request: {"a": 1}
        request = {"model": "m", "messages": [{"role": "user", "content": "q"}]}
        for _ in range(60):
            client.post("/v1/chat/completions", json=request)
        return list(web.chat.injected)

    first = injected(7)
    assert first == injected(7) and first != injected(8)
    assert 8 <= len(first) <= 30 and set(first) <= {"prose", "empty", "slow"}


def test_chat_fault_wire_formats(web: FakeWeb, client: httpx.Client) -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "x" * 400}]}
    web.chat.responder = lambda request: {"answer": "a long enough answer", "confidence": 0.5}

    def send(kind: str) -> httpx.Response:
        web.chat.faults = ChatFaults(rate=1.0, kinds=(kind,), slow_s=0.3, retry_after_s=2)  # type: ignore[arg-type]
        return client.post("/v1/chat/completions", json=request)

    cut = send("truncated").json()["choices"][0]
    assert cut["finish_reason"] == "length"
    assert '{"answer": "a long enough answer", "confidence": 0.5}'.startswith(
        cut["message"]["content"]
    )
    prose = send("prose").json()["choices"][0]["message"]["content"]
    assert prose and "{" not in prose
    assert send("empty").json()["choices"][0]["message"]["content"] == ""
    page = send("html_500")
    assert page.status_code == 500 and page.headers["content-type"].startswith("text/html")
    limited = send("rate_limit")
    assert limited.status_code == 429
    assert (limited.headers["retry-after"], limited.headers["retry-after-ms"]) == ("2", "2000")
    too_long = send("context_length")
    assert too_long.status_code == 400
    assert too_long.json()["error"]["code"] == "context_length_exceeded"
    started = time.monotonic()
    assert send("slow").json()["choices"][0]["message"]["content"].startswith('{"answer"')
    assert time.monotonic() - started >= 0.3
    assert web.chat.injected == [
        "truncated",
        "prose",
        "empty",
        "html_500",
        "rate_limit",
        "context_length",
        "slow",
    ]


def test_chat_cut_tool_call_and_prompt_limit(web: FakeWeb, client: httpx.Client) -> None:
    tools = [{"type": "function", "function": {"name": "answer", "parameters": {}}}]
    request = {"model": "m", "messages": [{"role": "user", "content": "q"}], "tools": tools}
    web.chat.queue({"text": "kept for the retry"})
    web.chat.faults = ChatFaults(rate=1.0, kinds=("truncated",), limit=1)
    cut = client.post("/v1/chat/completions", json=request).json()["choices"][0]
    arguments = cut["message"]["tool_calls"][0]["function"]["arguments"]
    assert cut["finish_reason"] == "length" and '{"text": "kept for the retry"}'.startswith(
        arguments
    )
    again = client.post("/v1/chat/completions", json=request).json()["choices"][0]
    assert (
        again["message"]["tool_calls"][0]["function"]["arguments"]
        == '{"text": "kept for the retry"}'
    )
    web.chat.max_prompt_chars = 100
    long_prompt = {**request, "messages": [{"role": "user", "content": "y" * 101}]}
    refused = client.post("/v1/chat/completions", json=long_prompt)
    assert (
        refused.status_code == 400
        and "maximum context length" in refused.json()["error"]["message"]
    )

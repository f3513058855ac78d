"""Chat model resolution from "provider:name" strings, per-node model choice, and call records."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import httpx
from langchain_core.language_models import BaseChatModel

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError

ModelTier = Literal["smart", "fast"]
ChatModelFactory = Callable[[str, Configuration], BaseChatModel]

BUILTIN_PROVIDERS = ("openai", "anthropic", "ollama", "local")
_registered: dict[str, ChatModelFactory] = {}


def register_provider(name: str, factory: ChatModelFactory) -> None:
    """Make `name:<model>` specs resolve through `factory` (in-process models, test doubles)."""
    _registered[name] = factory


def known_providers() -> list[str]:
    """Every provider name a spec may use."""
    return sorted({*BUILTIN_PROVIDERS, *_registered})


def split_spec(spec: str) -> tuple[str, str]:
    """("provider", "name") from "provider:name"."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        raise ConfigError(f"model {spec!r} must be given as provider:name, e.g. openai:gpt-4o-mini")
    provider = provider.strip().lower()
    if provider not in _registered and provider not in BUILTIN_PROVIDERS:
        raise ConfigError(
            f"unknown model provider {provider!r}; known: {', '.join(known_providers())}"
        )
    return provider, name.strip()


def _provider_kwargs(provider: str, config: Configuration) -> dict[str, object]:
    if provider == "openai":
        key = config.secret("openai_api_key")
        if not key and not config.openai_base_url:
            raise ConfigError(
                "openai models need OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)"
            )
        # Self-hosted OpenAI-compatible servers usually accept any key.
        kwargs: dict[str, object] = {"api_key": key or "not-needed"}
        if config.openai_base_url:
            kwargs["base_url"] = config.openai_base_url
        return kwargs
    if provider == "anthropic":
        key = config.secret("anthropic_api_key")
        if not key:
            raise ConfigError("anthropic models need ANTHROPIC_API_KEY")
        return {"api_key": key}
    return {"base_url": config.ollama_host} if config.ollama_host else {}


def check_model(spec: str, config: Configuration) -> None:
    """A spec names a known provider whose credentials are configured, or, for the embedded
    model, whose binding and file are installed (no network, no model loaded)."""
    provider, name = split_spec(spec)
    if provider in _registered:
        return
    if provider in ("openai", "anthropic"):
        _provider_kwargs(provider, config)
    if provider == "local":
        from research_studio.llm.local_model import check_local_model

        check_local_model(name)


def create_chat_model(
    spec: str, config: Configuration, *, http_async_client: httpx.AsyncClient | None = None
) -> BaseChatModel:
    """A chat model for a "provider:name" spec, configured from `config`.

    OpenAI models get `http_async_client` when given, one per event loop (a client serves the
    loop it was opened on); without it each call opens its own.
    """
    provider, name = split_spec(spec)
    if provider in _registered:
        return _registered[provider](name, config)
    if provider == "local":
        from research_studio.llm.local_model import create_local_model

        return create_local_model(name, config)
    kwargs = _provider_kwargs(provider, config)
    if provider == "openai":
        # Over httpx, not langchain-openai: the openai SDK costs a cold run 0.85 CPU-s to import.
        from research_studio.llm.openai_chat import OpenAICompatibleChat

        return OpenAICompatibleChat(
            model=name,
            temperature=config.temperature,
            timeout=config.llm_timeout_s,
            max_retries=config.llm_max_retries,
            http_async_client=http_async_client,
            **kwargs,
        )
    from langchain.chat_models import init_chat_model

    common: dict[str, object] = {"temperature": config.temperature}
    if provider == "ollama":
        common["client_kwargs"] = {"timeout": config.llm_timeout_s}
    else:
        common.update(timeout=config.llm_timeout_s, max_retries=config.llm_max_retries)
    model = init_chat_model(name, model_provider=provider, **common, **kwargs)  # type: ignore[call-overload]
    assert isinstance(model, BaseChatModel)
    return model


def model_spec_for(config: Configuration, node: str, tier: ModelTier) -> str:
    """The model a node uses: its override, else the tier's model, else the smart model."""
    if node in config.model_overrides:
        return config.model_overrides[node]
    spec = (config.fast_model if tier == "fast" else None) or config.model
    if not spec:
        raise ConfigError(
            "no chat model configured: pass --model provider:name "
            "or set OPENAI_API_KEY / ANTHROPIC_API_KEY"
        )
    return spec

"""Typed errors. Every error a user can cause or a provider can raise derives from ResearchStudioError."""

from __future__ import annotations

from typing import Literal

from research_studio.core.urls import redact_text

FailureKind = Literal[
    "rate_limited",
    "server_error",
    "timeout",
    "network",
    "bad_response",
    "refused",
    "paywall",
    "too_large",
    "unsupported",
    "not_found",
    "auth",
    # model replies and requests
    "truncated",
    "invalid_json",
    "context_length",
    "bad_request",
    "budget",  # a run budget was reached: the call was not made
]
# Model failures after which later calls would fail the same way (wrong address, key or model).
PERMANENT_MODEL_KINDS: frozenset[FailureKind] = frozenset({"network", "auth", "not_found"})


class ResearchStudioError(RuntimeError):
    """Base class; the CLI prints its message on one line instead of a traceback.

    A RuntimeError, so that a LangGraph server passes its one-line reason to the client (it
    hides the message of any error outside the builtin kinds as "An internal error occurred").
    """

    def __init__(self, *args: object) -> None:
        # Messages are shown and saved: credentials inside any URL they quote are masked.
        super().__init__(*(redact_text(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(ResearchStudioError):
    """The configuration is invalid or incomplete (bad value, unknown provider, missing key)."""


class ProviderError(ResearchStudioError):
    """An external service failed in a way the caller records as data (a dead end)."""

    def __init__(self, message: str, *, kind: FailureKind) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind


class SearchError(ProviderError):
    """A search provider failed after its retries."""

    def __init__(self, provider: str, query: str, reason: str, *, kind: FailureKind) -> None:
        super().__init__(f"{provider} search for {query!r} failed: {reason}", kind=kind)
        self.provider = provider
        self.query = query
        self.reason = reason


class FetchError(ProviderError):
    """A page could not be fetched or its content could not be used."""

    def __init__(self, url: str, reason: str, *, kind: FailureKind) -> None:
        # One line whatever the URL and reason hold: control characters shown escaped.
        shown = url.encode("unicode_escape").decode("ascii") if not url.isprintable() else url
        line = " ".join(f"cannot fetch {shown}: {reason}".split())
        super().__init__(line, kind=kind)
        self.url = url
        self.reason = reason


class ModelError(ProviderError):
    """A chat model call failed (network, server error, refused request)."""

    @property
    def permanent(self) -> bool:
        """Later calls would fail the same way: unreachable server, wrong key, unknown model."""
        return self.kind in PERMANENT_MODEL_KINDS


class StructuredOutputError(ProviderError):
    """The model did not produce output matching the schema, even after its repair attempts.

    `kind` says what the last reply was: "truncated", "invalid_json" (prose, empty, wrong shape)
    or "unsupported" (no structured-output method works with this model).
    """

    def __init__(
        self, schema_name: str, reason: str, raw: str = "", *, kind: FailureKind = "invalid_json"
    ) -> None:
        super().__init__(f"model output did not match {schema_name}: {reason}", kind=kind)
        self.schema_name = schema_name
        self.reason = reason
        self.raw = raw

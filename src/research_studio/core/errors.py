"""Typed errors: every public error class of the package is defined here.

Every error a user can cause or a provider can raise derives from ResearchStudioError; the
others are caught inside the layer that raises them. The hierarchy (tests check that it names
exactly the classes below):

* ResearchStudioError (a RuntimeError)
  * ConfigError
    * RequestError
  * ProviderError
    * SearchError
    * FetchError
    * ModelError
    * StructuredOutputError
    * McpError
    * KeptFailure
  * RunStopped
  * RunConflict
  * NotFound
* RetryableError (an Exception)
* ParseError (an Exception)
* UnreadableDocument (an Exception)
* TruncatedReply (a ValueError)

sources/http_client.py keeps BlockedAddressError: it is an httpx.RequestError (so transports
and retries treat it as one), and core does not import httpx.
"""

from __future__ import annotations

import signal
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


class RequestError(ConfigError):
    """A user mistake in one field of a research request (the web form shows it beside it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class McpError(ProviderError):
    """An MCP server did not start, or one of its tools failed or timed out."""


class KeptFailure(ProviderError):
    """A judge failure read back from the snapshot instead of asking the judge again."""


class RunStopped(ResearchStudioError):
    """A signal (SIGTERM, SIGHUP) stopped the run; it is saved as interrupted and can resume."""

    def __init__(self, run_id: str, signum: int) -> None:
        self.signum = signum
        name = signal.Signals(signum).name
        super().__init__(
            f"run {run_id} stopped by {name}; resume it with: research-studio resume {run_id}"
        )


class RunConflict(ResearchStudioError):
    """The run is not in a state that allows this (already running, completed …)."""


class NotFound(ResearchStudioError):
    """A report, source or statement the run does not have."""


class RetryableError(Exception):
    """A transient failure worth another attempt (429, 5xx, timeout, connection reset)."""

    def __init__(self, reason: str, kind: FailureKind, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind: FailureKind = kind
        self.retry_after = retry_after


class ParseError(Exception):
    """A document could not be parsed: it failed, crashed its worker or exceeded a bound."""

    def __init__(self, reason: str, *, kind: FailureKind) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind: FailureKind = kind


class UnreadableDocument(Exception):
    """A file the index skips (and says why)."""


class TruncatedReply(ValueError):
    """The reply's JSON is cut off and no complete part of it could be kept."""

"""What a failed model call was (context length, rate limit, unsupported method, ...) and its remedies."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import ValidationError

from research_studio.core.errors import FailureKind

_CONTEXT = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|too many tokens|token limit"
    r"|(prompt|input|request) is too (long|large)|reduce the length|exceeds? the (model'?s? )?"
    r"(maximum|max|context|limit)|input tokens exceed",
    re.IGNORECASE,
)
# A request the server refuses because of the structured-output method itself: both a feature
# and a refusal must be named, so that a bad value in an otherwise supported feature does not
# switch the method off for the whole run.
_FEATURE = re.compile(
    r"response_format|json_schema|json_object|json mode|structured output|\btools?\b|tool_choice"
    r"|function[ _]call",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"not supported|unsupported|does not support|doesn't support|not available|not enabled"
    r"|not implemented|unknown (field|param|parameter|argument)|unrecognized|not permitted",
    re.IGNORECASE,
)
_KEEP_HEAD, _KEEP_TAIL = 0.4, 0.1  # of a shortened message: its start, and its end (closing data
# delimiters and the instructions after them)
_MIN_SHORTENED = 200  # a message shorter than this is not worth cutting
_CUT_MARK = "\n[… cut to fit the model's context …]\n"


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _names(exc: BaseException) -> str:
    """The names of the exception's classes (providers share LangChain's base error classes)."""
    return " ".join(cls.__name__ for cls in type(exc).__mro__).lower()


# Raised by a client library reading a reply it did not expect (an HTML page, a cut JSON
# body, JSON without `choices`), after the server answered: not an API error of its own.
_READ_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError)
_HTML = re.compile(r"<\s*(!doctype|html|head|body|title)\b", re.IGNORECASE)


def is_malformed_reply(exc: BaseException) -> bool:
    """Whether the call failed because the reply could not be read as a chat completion."""
    return (
        isinstance(exc, _READ_ERRORS)
        and (_status(exc) or 200) < 300  # LangChain attaches the answered (2xx) response
        and not isinstance(exc, NotImplementedError)
        and not any(name in _names(exc) for name in ("lengthfinishreason", "contextoverflow"))
        and not _CONTEXT.search(str(exc))
    )


def malformed_reply_reason(exc: BaseException) -> str:
    """What the unreadable reply was, in a few words (never the reply itself)."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    if "html" in str(headers.get("content-type", "")).lower() or _HTML.search(str(exc)):
        return "malformed reply: an HTML page instead of a chat completion"
    if "jsondecodeerror" in _names(exc):
        return f"malformed reply: invalid or cut-off JSON ({exc})"
    return f"malformed reply: not a chat completion ({type(exc).__name__})"


def failure_kind(exc: BaseException) -> FailureKind:
    """What a failed model call was, from its class, HTTP status and message."""
    names, status, text = _names(exc), _status(exc), str(exc)
    if is_malformed_reply(exc):
        return "bad_response"
    if "lengthfinishreason" in names:
        return "truncated"
    if "contextoverflow" in names or status == 413:
        return "context_length"
    if isinstance(exc, NotImplementedError) or status == 501:
        return "unsupported"
    if status in (400, 404, 415, 422) or "invalidrequest" in names:
        if _CONTEXT.search(text):
            return "context_length"
        if _FEATURE.search(text) and _REFUSAL.search(text):
            return "unsupported"
        return "not_found" if status == 404 else "bad_request"
    if status in (401, 403) or "authentication" in names or "permissiondenied" in names:
        return "auth"
    if status == 429 or "ratelimit" in names:
        return "rate_limited"
    if "timeout" in names:
        return "timeout"
    if "connect" in names:
        return "network"
    if "notfound" in names:
        return "not_found"
    return "server_error"


def raw_from_parse_error(exc: BaseException) -> str:
    """The reply text a client-side parse error carries, when it carries one."""
    if isinstance(exc, ValidationError):
        for error in exc.errors():
            if isinstance(error.get("input"), str):
                return str(error["input"])
    completion = getattr(exc, "completion", None)  # openai's LengthFinishReasonError
    if completion is not None and getattr(completion, "choices", None):
        message = completion.choices[0].message
        if message.content:
            return str(message.content)
        if message.tool_calls:
            return str(message.tool_calls[0].function.arguments or "")
    return getattr(exc, "llm_output", None) or ""


def is_cut_off(message: Any) -> bool:
    """Whether the server says it stopped the reply at its length limit."""
    metadata = getattr(message, "response_metadata", None) or {}
    return (
        metadata.get("finish_reason") == "length"
        or metadata.get("stop_reason") == "max_tokens"
        or metadata.get("done_reason") == "length"
    )


def shorten(messages: list[BaseMessage]) -> list[BaseMessage] | None:
    """The messages with the longest one cut to about half (start and end kept); None if too short.

    The end is kept too because prompts close their data blocks and give instructions there.
    """
    lengths = [len(m.content) if isinstance(m.content, str) else 0 for m in messages]
    if not lengths or max(lengths) < _MIN_SHORTENED:
        return None
    longest = lengths.index(max(lengths))
    content = str(messages[longest].content)
    head, tail = int(len(content) * _KEEP_HEAD), int(len(content) * _KEEP_TAIL)
    cut = messages[longest].model_copy(
        update={"content": content[:head] + _CUT_MARK + content[len(content) - tail :]}
    )
    return [*messages[:longest], cut, *messages[longest + 1 :]]

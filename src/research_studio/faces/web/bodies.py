"""What the API reads and answers in one shape: bounded JSON bodies, and errors beside a field."""

from __future__ import annotations

import json
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import JSONResponse

from research_studio.core.declarations import Declared, reword
from research_studio.core.words import is_utf8
from research_studio.faces.web.request import FORM_SETTINGS

# The form sends a flat object; deeper bodies are refused before anything walks them.
MAX_JSON_DEPTH = 16
TOO_DEEP = f"the body nests deeper than {MAX_JSON_DEPTH} levels"
# A form's body (a question, settings, an answer) is small; more is refused before it is read.
MAX_BODY_BYTES = 1_000_000
TOO_LARGE = f"the body is larger than {MAX_BODY_BYTES:,} bytes"
NOT_UTF8 = "the body holds text that is not valid UTF-8 (a lone surrogate escape)"


def in_web_words(declared: Declared) -> str:
    """A setting as a web user can set it: a field of the form, or the server's settings."""
    if declared.name in FORM_SETTINGS:
        return f"the {declared.label} field"
    return f"the server's {declared.name} setting"


def field_error(field: str | None, message: str, status: int = 422) -> JSONResponse:
    """The error shape the page shows beside a field (or above the form without one).

    Messages name CLI flags where they give advice; the page says them in its own words.
    """
    return JSONResponse(
        {"field": field, "message": reword(message, in_web_words)}, status_code=status
    )


async def json_body(request: Request) -> dict[str, Any]:
    # JSON only: a cross-site form cannot send it without a preflight this server never allows.
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HTTPException(415, "send JSON (application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise HTTPException(413, TOO_LARGE)
    raw = bytearray()
    async for chunk in request.stream():  # a body sent in chunks declares no length
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise HTTPException(413, TOO_LARGE)
    try:
        body = json.loads(raw)
    except RecursionError:  # the decoder recursed through nesting no form ever sends
        raise HTTPException(422, TOO_DEEP) from None
    except ValueError:
        raise HTTPException(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the body must be a JSON object")
    if _nesting(body) > MAX_JSON_DEPTH:
        raise HTTPException(422, TOO_DEEP)
    # JSON may escape half a character ("\udcff"): no file, database or page takes it.
    if not is_utf8(json.dumps(body, ensure_ascii=False)):
        raise HTTPException(400, NOT_UTF8)
    return body


def _nesting(value: Any) -> int:
    """How deeply lists and objects nest in a decoded JSON value (without recursing)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                stack.extend(
                    (child, depth + 1)
                    for child in (item.values() if isinstance(item, dict) else item)
                )
    return deepest

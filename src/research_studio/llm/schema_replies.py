"""A model's reply as a schema instance: read, unwrap and validate it, or say what to repair."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from research_studio.core.errors import FailureKind, TruncatedReply
from research_studio.llm.json_reply import read_json_reply
from research_studio.llm.messages import message_text
from research_studio.llm.model_prompts import REPAIR_REQUEST

SchemaT = TypeVar("SchemaT", bound=BaseModel)
_ECHO_CHARS = 2_000  # how much of an unusable reply is shown back to the model


class UnusableReply(ValueError):
    """A reply that yields no valid schema instance, and what was wrong with it."""

    def __init__(self, kind: FailureKind, reason: str) -> None:
        super().__init__(reason)
        self.kind: FailureKind = kind


def validate_payload(schema: type[SchemaT], payload: Any) -> SchemaT:
    """Validate, unwrapping a one-key envelope like {"Plan": {...}} that small models produce."""
    try:
        return schema.model_validate(payload)
    except ValidationError:
        if isinstance(payload, dict) and len(payload) == 1:
            inner = next(iter(payload.values()))
            if isinstance(inner, dict):
                return schema.model_validate(inner)
        raise


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'value'}: {error['msg']}"
            for error in exc.errors()[:8]
        ]
        return "; ".join(problems)
    return str(exc)


def raw_text(raw: BaseMessage) -> str:
    if isinstance(raw, AIMessage) and raw.tool_calls:
        return json.dumps(raw.tool_calls[0]["args"])
    if isinstance(raw, AIMessage) and raw.invalid_tool_calls:
        # Arguments the client could not parse, e.g. cut off: still worth a repair.
        return raw.invalid_tool_calls[0].get("args") or ""
    return message_text(raw)


def coerce_reply(schema: type[SchemaT], parsed: Any, raw: str, cut: bool) -> tuple[SchemaT, bool]:
    """(instance, truncated): the reply as a schema instance; raises UnusableReply."""
    if isinstance(parsed, schema):
        return parsed, False
    failed: FailureKind = "truncated" if cut else "invalid_json"
    try:
        if isinstance(parsed, dict):
            return validate_payload(schema, parsed), False
        payload, truncated = read_json_reply(raw)
    except TruncatedReply as exc:
        raise UnusableReply("truncated", str(exc)) from exc
    except ValidationError as exc:
        raise UnusableReply(failed, describe_error(exc)) from exc
    except ValueError as exc:
        raise UnusableReply(failed, str(exc) if raw.strip() else "the reply was empty") from exc
    try:
        return validate_payload(schema, payload), truncated
    except ValidationError as exc:
        if truncated:
            raise UnusableReply(
                "truncated", f"the reply was cut off ({describe_error(exc)})"
            ) from exc
        raise UnusableReply(failed, describe_error(exc)) from exc


def repair_messages(raw: str, failure: UnusableReply) -> list[BaseMessage]:
    if failure.kind == "truncated":
        error = f"it was cut off before the JSON was complete: {failure}. Keep it shorter"
    else:
        error = str(failure)
    shown = raw[:_ECHO_CHARS] + (" …" if len(raw) > _ECHO_CHARS else "")
    return [
        AIMessage(content=shown or "(empty reply)"),
        HumanMessage(content=REPAIR_REQUEST.format(error=error)),
    ]

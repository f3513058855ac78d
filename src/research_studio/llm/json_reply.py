"""Reading JSON out of model replies: prose around it, code fences, <think> blocks, cut-off ends."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from research_studio.core.errors import TruncatedReply

THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_LITERAL = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null")
_TOKEN_CHARS = frozenset("+-.0123456789eEtrufalsn")


@dataclass
class _Open:
    """A container still open at the end of a cut-off reply."""

    char: str  # "{" or "["
    safe: int  # where the text can be cut so that every value inside is complete
    expect: str = field(default="value")  # object: key, colon, value, comma; list: value, comma


def parse_json_payload(text: str) -> Any:
    """The first JSON value in a reply, ignoring <think> blocks, code fences and surrounding prose."""
    return read_json_reply(text)[0]


def read_json_reply(text: str) -> tuple[Any, bool]:
    """(value, truncated): the first JSON value; a cut-off one keeps only its complete part.

    Raises TruncatedReply when the JSON is cut off with nothing complete in it, and ValueError
    when the reply holds no JSON at all.
    """
    cleaned = THINK.sub("", text).strip()
    candidates = [match.group(1).strip() for match in _FENCE.finditer(cleaned)] + [cleaned]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for index, char in enumerate(candidate):
            if char not in "{[":
                continue
            try:
                return decoder.raw_decode(candidate, index)[0], False
            except json.JSONDecodeError:
                pass
            # A value that runs to the end of the reply was cut off: keep what is complete.
            kept = complete_prefix(candidate, index)
            if kept is not None:
                try:
                    return json.loads(kept), True
                except json.JSONDecodeError:
                    raise TruncatedReply("the reply was cut off mid-JSON") from None
    raise ValueError("no JSON object found in the reply")


def complete_prefix(text: str, start: int = 0) -> str | None:
    """JSON cut off mid-way, trimmed to its complete values and closed; None if it is not cut off.

    Lists keep their finished items; an unfinished nested object is dropped whole (a half
    record is worse than none); the outermost value keeps its finished members.
    """
    stack: list[_Open] = []
    i = start
    while i < len(text):
        char = text[i]
        top = stack[-1] if stack else None
        if char.isspace():
            i += 1
            continue
        if top is not None and char == "," and top.expect == "comma":
            top.expect = "key" if top.char == "{" else "value"
        elif top is not None and char == ":" and top.expect == "colon":
            top.expect = "value"
        elif top is not None and char in "}]" and _closes(top, char):
            stack.pop()
            if not stack:
                return None  # complete: nothing was cut
            _completed(stack[-1], i + 1)
        elif char in "{[" and (top is None or top.expect == "value"):
            stack.append(_Open(char, i + 1, "key" if char == "{" else "value"))
        elif char == '"' and top is not None and top.expect in ("key", "value"):
            end = _string_end(text, i)
            if end is None:
                break  # cut inside a string
            if top.expect == "key":
                top.expect = "colon"
            else:
                _completed(top, end)
            i = end
            continue
        elif char in _TOKEN_CHARS and top is not None and top.expect == "value":
            end = i
            while end < len(text) and text[end] in _TOKEN_CHARS:
                end += 1
            if end == len(text):
                break  # a number or literal at the very end may itself be cut
            if not _LITERAL.fullmatch(text[i:end]):
                return None
            _completed(top, end)
            i = end
            continue
        else:
            return None  # not JSON
        i += 1
    if not stack:
        return None
    return _close(text, start, stack)


def _closes(top: _Open, char: str) -> bool:
    if top.char == "{":
        return char == "}" and top.expect in ("key", "comma")
    return char == "]" and top.expect in ("value", "comma")


def _completed(container: _Open, end: int) -> None:
    container.safe = end
    container.expect = "comma"


def _string_end(text: str, start: int) -> int | None:
    """Index just past the closing quote of the string opening at `start`; None if cut."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return None


def _close(text: str, start: int, stack: list[_Open]) -> str:
    kept = [stack[0]]
    for container in stack[1:]:
        if container.char == "{":
            break
        kept.append(container)
    closers = "".join("}" if c.char == "{" else "]" for c in reversed(kept))
    return text[start : kept[-1].safe] + closers

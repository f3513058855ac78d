"""Reading JSON from model replies: prose, fences and cut-off ends."""

from __future__ import annotations

import pytest

from research_studio.core.errors import TruncatedReply
from research_studio.llm.json_reply import complete_prefix, read_json_reply


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ('{"fact": "x", "note": "cut he', {"fact": "x"}),
        ('{"items": [{"a": 1}, {"a": 2}, {"a": 3', {"items": [{"a": 1}, {"a": 2}]}),
        ('{"a": ["x", "y', {"a": ["x"]}),
        ('{"a": 1, "b": [1, {"c": [1, 2', {"a": 1, "b": [1]}),
        ('{"confidence": 0.', {}),  # a number at the very end may itself be cut
        ('{"quote": "a \\"cut\\"", "b": "', {"quote": 'a "cut"'}),
        ('Sure:\n```json\n{"a": {"b": 1}, "c": "x', {"a": {"b": 1}}),
        ("[1, 2, 3", [1, 2]),
    ],
)
def test_cut_off_json_keeps_its_complete_part(reply: str, kept: object) -> None:
    assert read_json_reply(reply) == (kept, True)


def test_complete_json_in_prose_is_not_marked_truncated() -> None:
    assert read_json_reply('Here: {"a": 1} and a smiley {:)}') == ({"a": 1}, False)
    assert complete_prefix('{"a": [1, {"b": 2}]}') is None


@pytest.mark.parametrize(
    "reply", ["", "no json here", "use {curly braces} wisely", "<html>500</html>"]
)
def test_replies_without_json_raise(reply: str) -> None:
    with pytest.raises(ValueError, match="no JSON"):
        read_json_reply(reply)


def test_cut_off_json_whose_kept_part_is_invalid_is_a_truncated_reply() -> None:
    with pytest.raises(TruncatedReply):
        read_json_reply('{"a": "\\q", "b": "x')

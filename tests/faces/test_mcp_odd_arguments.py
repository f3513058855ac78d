"""Whatever JSON an MCP client sends as a tool's arguments, the call ends by itself: a result, or
an error of one line that says what is wrong (never the SDK's bare "Error executing tool X",
which is what a crash inside a tool becomes). Through the MCP SDK's in-process client."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from research_studio.faces.mcp_server import build_server
from tests.faces.cli.test_odd_inputs import ODD_TEXT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | ODD_TEXT
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
# The tools whose arguments lead nowhere outside this machine here: `fetch` and a `verify`
# of a URL would go to the network (each is covered by its own tests).
TOOLS = ("search", "research", "research_start", "research_status", "audit", "verify")
TOOL_NAMES = {tool: re.escape(tool) for tool in TOOLS}


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A server whose model is an Ollama that is not running and whose search is local."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for name, value in {
        "OLLAMA_HOST": f"http://127.0.0.1:{port}",
        "RESEARCH_STUDIO_MODEL": "ollama:llama3.1",
        "RESEARCH_STUDIO_SEARCH": "local",
        "RESEARCH_STUDIO_DOCS": str(EXAMPLES),
        "RESEARCH_STUDIO_RUNS_DIR": str(tmp_path / "runs"),
        "RESEARCH_STUDIO_CACHE_DIR": str(tmp_path / "cache"),
    }.items():
        monkeypatch.setenv(name, value)
    yield


def _typed(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of the type a property's schema names (text from ODD_TEXT), or null."""
    if "anyOf" in schema:
        return st.one_of(*(_typed(option) for option in schema["anyOf"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"]) | ODD_TEXT
    kind = schema.get("type")
    if kind == "array":
        return st.lists(_typed(schema.get("items", {})), max_size=3)
    typed: dict[str, st.SearchStrategy[Any]] = {
        "string": ODD_TEXT | st.text(max_size=30),
        "integer": st.integers(),
        "number": st.floats(allow_nan=False),
        "boolean": st.booleans(),
        "null": st.none(),
    }
    return typed.get(str(kind), JSON_VALUES)


def _arguments(tool: str, schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly values of the right type (to reach the tool's own checks), some of any type, an
    argument the tool does not take now and then."""
    properties = dict(schema["properties"])
    if tool == "verify":
        properties.pop("source")  # a URL would be fetched
    values = {
        name: st.one_of(_typed(prop), _typed(prop), _typed(prop), JSON_VALUES)
        for name, prop in properties.items()
    }
    required = {name: values[name] for name in schema.get("required", [])}
    optional = {name: value for name, value in values.items() if name not in required}
    return st.fixed_dictionaries(required, optional=optional) | st.dictionaries(
        st.sampled_from([*properties, "unknown", "un\nknown\x1b[31m"]), JSON_VALUES, max_size=3
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
async def test_any_json_arguments_end_in_a_result_or_one_line(
    offline: None, data: st.DataObject
) -> None:
    async with Client(build_server()) as client:
        schemas = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        tool = data.draw(st.sampled_from(TOOLS))
        arguments = data.draw(_arguments(tool, schemas[tool]))
        result = await client.call_tool(tool, arguments)
    if not result.is_error:
        return
    text = str(result.content[0].text)
    assert "\n" not in text.strip() and "Traceback" not in text, (tool, arguments, text)
    # The SDK's whole message for a crash inside a tool: nothing said of what went wrong.
    assert text.strip() != f"Error executing tool {tool}", (tool, arguments)


async def test_a_value_a_validator_refuses_is_named_in_its_words() -> None:
    async with Client(build_server()) as client:
        pipeline = await client.call_tool("research", {"question": "roofs?", "pipeline": "nope"})
        huge = await client.call_tool("search", {"query": "roofs", "max_results": 1e300})
    assert pipeline.is_error and huge.is_error
    assert str(pipeline.content[0].text) == (
        "Error executing tool research: `pipeline`: 'nope' is not one of 'standard', 'advanced',"
        " 'advanced-full', 'advanced-optimized', 'supervisor'"
    )
    assert "`max_results` is refused: unable to parse" in str(huge.content[0].text)

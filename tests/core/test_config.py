"""Configuration: layered precedence, validation messages, redaction, context schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from research_studio.core.config import Configuration
from research_studio.core.config_loading import error_message, load_configuration
from research_studio.core.declarations import DECLARED, reword
from research_studio.core.errors import ConfigError
from research_studio.core.languages import LANGUAGE_NAMES
from tests.helpers import write_toml


def test_secrets_are_redacted() -> None:
    config = Configuration(openai_api_key="sk-secret", tavily_api_key="tvly-secret")
    shown = config.redacted()
    assert shown["openai_api_key"] == "****"
    assert shown["tavily_api_key"] == "****"
    assert "sk-secret" not in repr(config)
    assert shown["anthropic_api_key"] is None


MCP_SECRETS = ("s3cret", "K123", "ghp_abc123", "pw-42", "sk-live-0123456789")


def write_mcp_settings(tmp_path: Path) -> Path:
    """Settings whose MCP servers carry credentials in a URL and in command arguments."""
    return write_toml(
        tmp_path,
        "[[mcp_servers]]\n"
        'name = "remote"\n'
        'url = "https://alice:s3cret@mcp.example/mcp?api_key=K123&team=reefs"\n'
        "[[mcp_servers]]\n"
        'name = "local"\n'
        'command = "npx"\n'
        'args = ["server", "--token", "ghp_abc123", "--password=pw-42", "sk-live-0123456789",'
        ' "--verbose", "/data"]\n',
    )


@pytest.mark.e2e
def test_mcp_credentials_are_redacted_by_the_config_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from research_studio.faces.cli import app

    path = write_mcp_settings(tmp_path)
    result = CliRunner().invoke(app, ["config", "--json", "--config", str(path)])
    assert result.exit_code == 0, result.output
    assert not [secret for secret in MCP_SECRETS if secret in result.output]
    remote, local = json.loads(result.output)["mcp_servers"]
    assert remote["url"] == "https://alice:****@mcp.example/mcp?api_key=****&team=reefs"
    assert local["command"] == "npx"
    assert local["args"] == [
        "server",
        "--token",
        "****",
        "--password=****",
        "****",
        "--verbose",
        "/data",
    ]


@pytest.mark.e2e
def test_mcp_credentials_are_redacted_by_the_web_api(tmp_path: Path) -> None:
    import httpx

    from research_studio.faces.web import ServeSettings
    from tests.faces.web.conftest import LiveServer

    with LiveServer(ServeSettings(config_file=write_mcp_settings(tmp_path))) as server:
        response = httpx.get(f"{server.url}/api/config")
    assert response.status_code == 200
    assert not [secret for secret in MCP_SECRETS if secret in response.text]
    remote, local = response.json()["mcp_servers"]
    assert remote["url"] == "https://alice:****@mcp.example/mcp?api_key=****&team=reefs"
    assert local["args"][:3] == ["server", "--token", "****"]


def test_configuration_is_a_graph_context_schema() -> None:
    from langgraph.graph import START, StateGraph
    from langgraph.runtime import Runtime
    from typing_extensions import TypedDict

    class State(TypedDict, total=False):
        seen: int

    def node(state: State, runtime: Runtime[Configuration]) -> State:
        assert isinstance(runtime.context, Configuration)
        return {"seen": runtime.context.max_iterations}

    builder = StateGraph(State, context_schema=Configuration)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    graph = builder.compile()
    schema = graph.get_context_jsonschema()
    assert schema is not None and "max_iterations" in schema["properties"]
    assert graph.invoke({}, context={"max_iterations": 7}) == {"seen": 7}


@pytest.mark.parametrize("value", ["klingon", "xx", "Elvish"])
def test_an_unknown_language_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="unknown language") as caught:
        load_configuration({"language": value}, env={}, config_file=write_toml(tmp_path, ""))
    assert "Value error" not in str(caught.value)
    assert "(--language)" in str(caught.value)


@pytest.mark.parametrize(("value", "code"), [("German", "de"), ("pt-BR", "pt"), ("fr", "fr")])
def test_a_language_is_kept_as_its_code(tmp_path: Path, value: str, code: str) -> None:
    config = load_configuration({"language": value}, env={}, config_file=write_toml(tmp_path, ""))
    assert config.config.language == code


def test_value_error_prefix_never_reaches_a_message(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_configuration(
            {"checkpoints": "mysql://x"}, env={}, config_file=write_toml(tmp_path, "")
        )
    assert "expected a postgresql:// URL" in str(caught.value)
    assert "Value error" not in str(caught.value)


def test_each_declared_setting_carries_its_bounds_help_and_flag() -> None:
    iterations = DECLARED["max_iterations"]
    field = Configuration.model_fields["max_iterations"]
    assert (iterations.flag, iterations.help) == ("--iterations", field.description)
    assert (iterations.minimum, iterations.maximum, iterations.default) == (1, 20, 3)
    assert DECLARED["report_structure"].choices == ("detailed", "concise", "bullet_points")
    # Every flag is spelled once, and names a real field.
    spellings = [s for d in DECLARED.values() for s in d.flag.split("/")]
    assert len(spellings) == len(set(spellings))
    assert set(DECLARED) <= set(Configuration.model_fields)


def test_cli_advice_is_reworded_for_another_face() -> None:
    message = "Use local documents (--docs PATH) or --model provider:name; --unknown stays"
    worded = reword(message, lambda declared: f"<{declared.label}>")
    assert worded == "Use local documents (<Documents folder>) or <Model>; --unknown stays"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_language_text_is_a_known_code_or_one_line(value: str) -> None:
    try:
        config = Configuration(language=value)
    except ValidationError as exc:
        assert all("unknown language" in error_message(e) for e in exc.errors())
    else:
        assert config.language is None or config.language in LANGUAGE_NAMES


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text(), st.sampled_from(sorted(DECLARED)))
def test_rewording_replaces_declared_flags_and_nothing_else(
    before: str, after: str, name: str
) -> None:
    flag = DECLARED[name].flag.split("/")[0]
    text = f"{before.replace('-', '')} {flag} {after.replace('-', '')}"
    worded = reword(text, lambda declared: f"<{declared.name}>")
    assert f"<{name}>" in worded and "--" not in worded
    assert worded.startswith(before.replace("-", ""))

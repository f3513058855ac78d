"""The README stays true to the code: every setting is documented, CI runs the README's commands."""

from __future__ import annotations

import re
from pathlib import Path

from research_studio.core.config import settings_reference

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def commands_under(heading: str) -> list[str]:
    section = README.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, f"no commands under {heading}"
    return [
        line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")
    ]


def test_the_settings_table_is_current() -> None:
    assert settings_reference() in README


def test_ci_runs_the_development_commands() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    for command in commands_under("Development"):
        assert command in ci, command


def test_quick_start_is_two_commands_and_its_corpus_exists() -> None:
    install, run = commands_under("Quick start (offline, no API key)")
    assert '".[local]"' in install and run.startswith("research-studio run")
    corpus = ROOT / run.split("--docs ", 1)[1].strip()
    assert len([path for path in corpus.iterdir() if path.is_file()]) == 12

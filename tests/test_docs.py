"""The README stays true to the code: every setting is documented, CI runs the README's commands."""

from __future__ import annotations

import re
from pathlib import Path

from research_studio.config import Configuration

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_in_the_readme_table() -> None:
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", readme, re.MULTILINE))
    assert documented == set(Configuration.model_fields)


def test_ci_runs_the_readme_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)
    setup = [
        line
        for block in blocks[:2]
        for line in block.splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert setup, "README lost its set-up commands"
    for command in setup:
        assert command in ci, command

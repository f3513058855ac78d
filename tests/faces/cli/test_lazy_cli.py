"""The command line loads a command's dependencies only when that command runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import COMMANDS, app, load_command

# Heavy dependencies that neither --help nor --version may import.
HEAVY = [
    "langgraph",
    "langchain_core",
    "pydantic",
    "httpx",
    "fpdf",
    "docx",
    "mcp",
    "psycopg",
    "fastapi",
    "uvicorn",
    "trafilatura",
    "research_studio.faces.cli.research",
]

_PROBE = """
import json, sys
from research_studio.faces.cli import main
sys.argv = ["research-studio", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
heavy = {heavy!r}
print(json.dumps(sorted(name for name in heavy if name in sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("argument", ["--help", "--version"])
def test_help_and_version_import_no_heavy_dependency(argument: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=HEAVY), argument],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
    assert "research-studio" in done.stdout


def test_help_lists_every_command_with_its_docstring() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for name in COMMANDS:
        command = load_command(name)
        first_line = (command.help or "").splitlines()[0]
        assert name in result.output and first_line[:40] in result.output


def test_a_command_runs_once_loaded() -> None:
    result = CliRunner().invoke(app, ["config", "--json"])
    assert result.exit_code == 0, result.output
    assert "max_iterations" in result.output


def test_an_unknown_command_is_one_line_with_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["rn"])
    assert result.exit_code == 2 and "Did you mean 'run'" in result.output

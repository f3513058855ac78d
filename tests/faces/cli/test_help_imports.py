"""A command's `--help` loads the command line and that command's module, nothing behind them.

The settings' options come from a table generated from their declarations (setting_flags.py):
the help needs neither pydantic nor the configuration model, and the table cannot drift from
the declarations unnoticed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import COMMANDS, app, setting_flags, setting_flags_table
from tests.faces.cli.test_cold_imports import probe

# What a command loads when it runs, never for its --help: pydantic (the configuration, the run
# folders, Typer's value adapters), rich (the consoles, tables, markup), asyncio, and the modules
# behind the commands.
RUN_ONLY = [
    "pydantic",
    "pydantic_core",
    "typer._adapters",
    "rich",
    "asyncio",
    "research_studio.core.config",
    "research_studio.core.config_loading",
    "research_studio.core.declarations",
    "research_studio.run.runs",
    "research_studio.export",
    "research_studio.evaluation.cases",
    "research_studio.faces.mcp_verify",
    "research_studio.faces.cli.progress",
    "research_studio.faces.cli.summary",
]


@pytest.mark.parametrize("name", COMMANDS)
def test_a_commands_help_loads_only_the_command_line(name: str) -> None:
    assert probe(RUN_ONLY, name, "--help") == {"code": 0, "loaded": []}


def test_the_settings_table_is_what_the_declarations_give() -> None:
    written = setting_flags.TABLE.read_text(encoding="utf-8")
    assert written == setting_flags.render(), f"stale: run {setting_flags.REGENERATE}"
    assert setting_flags.declared_flags() == setting_flags_table.FLAGS


def test_a_command_refuses_to_run_on_a_stale_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tmp_path / "tea.md"
    source.write_text("# Tea\n\nGreen tea contains caffeine.\n")
    # The declarations as they would be after a change the table has not been written again for.
    changed = setting_flags.declared_flags()
    changed["use_cache"] = replace(changed["use_cache"], help="Cache searches, pages and more.")
    monkeypatch.setattr(setting_flags, "declared_flags", lambda: changed)
    result = CliRunner().invoke(
        app, ["verify", "Green tea contains caffeine", "--source", str(source)]
    )
    assert isinstance(result.exception, RuntimeError)
    assert setting_flags.REGENERATE in str(result.exception)

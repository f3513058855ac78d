"""A German question through the CLI: the report's headings are German and audit still holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e
runner = CliRunner()
GERMAN = "Wie wirkt sich coral bleaching heat stress auf die Riffe aus?"


def _run(web: FakeWeb, out: str, *args: str) -> Path:
    model = ResearchScript().model()
    result = run_cli(web, "run", GERMAN, "--out", out, *args, model=model)
    assert result.exit_code == 0, result.output
    assert "in German" in model.calls_for("ReportDraft")[-1].prompt
    return Path(out).resolve()


@pytest.mark.parametrize("pipeline", ["standard", "advanced"])
def test_german_run_has_german_headings_and_passes_audit(web: FakeWeb, pipeline: str) -> None:
    folder = _run(web, f"de-{pipeline}", "--pipeline", pipeline)
    report = (folder / "report.md").read_text()
    assert "\n## Quellen\n" in report and "## Sources" not in report
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["ok"] and verdict["statements"]
    assert all(check["verdict"] == "holds" for check in verdict["statements"])


def test_audit_catches_an_edit_in_a_german_report(web: FakeWeb) -> None:
    folder = _run(web, "de-edit", "--single-agent")
    report_file = folder / "report.md"
    report = report_file.read_text()
    body, sources = report.split("## Quellen", 1)
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", body)))
    assert len(cited) >= 2
    swapped = body.replace(f"[{cited[0]}]", "[SWAP]").replace(f"[{cited[1]}]", f"[{cited[0]}]")
    report_file.write_text(swapped.replace("[SWAP]", f"[{cited[1]}]") + "## Quellen" + sources)
    result = runner.invoke(app, ["audit", str(folder)])
    assert result.exit_code == 1, result.output

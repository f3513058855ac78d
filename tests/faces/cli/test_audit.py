"""`research-studio audit` on real run folders: it passes good runs and catches hand edits."""

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


def _run(web: FakeWeb, out: str, *args: str) -> Path:
    result = run_cli(web, "run", "coral bleaching heat stress", "--out", out, *args)
    assert result.exit_code == 0, result.output
    return Path(out).resolve()


@pytest.fixture(scope="module")
def finished_runs(web_server: FakeWeb, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One finished run per pipeline shape, made once for the module (copied before editing)."""
    base = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(base / "cache"))
        patch.chdir(base)
        return {
            "multi": _run(web_server, "multi"),
            "single": _run(web_server, "single", "--single-agent"),
            "advanced": _run(web_server, "advanced", "--pipeline", "advanced"),
        }


def _copy(folder: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


@pytest.mark.parametrize("shape", ["multi", "single", "advanced"])
def test_audit_passes_a_finished_run(finished_runs: dict[str, Path], shape: str) -> None:
    folder = finished_runs[shape]
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.stdout)
    assert verdict["ok"] and verdict["statements"]
    assert all(check["verdict"] == "holds" for check in verdict["statements"])
    document = json.loads((folder / "result.json").read_text())
    cited = set(re.findall(r"\[(S\d+)\]", document["report"]))
    assert all((folder / "sources" / f"{sid}.txt").is_file() for sid in cited)
    grounding = document["metadata"]["grounding"]
    assert grounding["cited_statements"] >= 1 and grounding["citation_coverage"] == 1.0


@pytest.mark.parametrize("shape", ["multi", "advanced"])
def test_audit_fails_after_a_number_is_edited(
    finished_runs: dict[str, Path], shape: str, tmp_path: Path
) -> None:
    folder = _copy(finished_runs[shape], tmp_path)
    report_file = folder / "report.md"
    report = report_file.read_text()
    body = report.split("## Sources", 1)[0]
    numbered = next(
        line
        for line in body.splitlines()
        if re.search(r"\d", re.sub(r"\[S\d+\]", "", line)) and "[S" in line
    )
    edited = re.sub(r"(?<![S\d])(\d+)", lambda m: str(int(m.group(1)) + 7), numbered.split("[S")[0])
    report_file.write_text(report.replace(numbered, edited + "[S" + numbered.split("[S", 1)[1]))
    result = runner.invoke(app, ["audit", str(folder)])
    assert result.exit_code == 1, result.output
    assert "fails" in result.stdout and "FAILED" in result.stdout


def test_audit_fails_when_a_citation_moves_to_another_source(
    finished_runs: dict[str, Path], tmp_path: Path
) -> None:
    folder = _copy(finished_runs["single"], tmp_path)
    report_file = folder / "report.md"
    report = report_file.read_text()
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", report.split("## Sources")[0])))
    assert len(cited) >= 2
    first, second = cited[0], cited[1]
    body, sources = report.split("## Sources", 1)
    position = body.index(f"[{first}]")
    moved = body[:position] + f"[{second}]" + body[position + len(first) + 2 :]
    report_file.write_text(moved + "## Sources" + sources)
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 1
    verdict = json.loads(result.stdout)
    assert any("its evidence is in" in check["why"] for check in verdict["statements"])


def test_audit_of_a_missing_run_is_a_user_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "no-such-run"])
    assert result.exit_code == 2
    assert "no run found" in result.output and "Traceback" not in result.output


def _run_over_openai_compatible(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch, script: ResearchScript, *args: str
) -> Path:
    web.chat.responder = script.chat_responder()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", web.url("/v1"))
    result = run_cli(
        web,
        "run",
        "coral bleaching heat stress",
        "--out",
        "openai-run",
        *args,
        model="openai:fake-model",
    )
    assert result.exit_code == 0, result.output
    assert web.chat.requests, "the run must have used the OpenAI-compatible server"
    return Path("openai-run").resolve()


@pytest.mark.parametrize(
    "args",
    [[], ["--single-agent"], ["--pipeline", "advanced"]],
    ids=["multi", "single", "advanced"],
)
def test_runs_over_an_openai_compatible_server_pass_audit(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    folder = _run_over_openai_compatible(web, monkeypatch, ResearchScript(), *args)
    report = (folder / "report.md").read_text()
    body = report.split("## Sources")[0]
    for block in re.split(r"^## ", body, flags=re.MULTILINE)[1:]:
        heading, _, text = block.partition("\n")
        if heading not in {"Research Quality", "Remaining gaps", "Limitations of this run"}:
            assert re.search(r"\[S\d+\]", text), f"section {heading!r} cites nothing"
    result = runner.invoke(app, ["audit", str(folder)])
    assert result.exit_code == 0, result.output


def test_a_weak_model_leaves_no_uncited_factual_prose(
    web: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from research_studio.grounding.quotes import is_factual

    script = ResearchScript(writer_cites_nothing=True, invented_prose=True, invented_number=True)
    folder = _run_over_openai_compatible(web, monkeypatch, script, "--single-agent")
    document = json.loads((folder / "result.json").read_text())
    assert "VACUUM" not in document["report"] and "#/#" not in document["report"]
    for record in document["statements"]:
        assert record["sids"] or not is_factual(record["text"])
    assert document["metadata"]["grounding"]["statements_dropped_unsupported"] > 0
    assert runner.invoke(app, ["audit", str(folder)]).exit_code == 0

"""What a run writes for its reader and its audit: the coverage notice, numbering, the seal."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.run.audit import audit_run
from research_studio.run.runs import write_outputs
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.evaluation.outputs import PAGES, good_document
from tests.helpers import example_docs_run, run_cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"
NOTICE = "The sources read do not answer this question"
runner = CliRunner()


@pytest.mark.e2e
def test_an_off_topic_question_opens_with_a_plain_notice_and_audit_keeps_it_apart() -> None:
    report, document, output = example_docs_run("python", "off-topic")
    grounding = document["metadata"]["grounding"]
    assert grounding["question_answered"] is False
    assert grounding["answer_coverage"]["missing_terms"] == ["python"]
    # The notice comes before anything the sources say.
    first_section = report.split("\n## ", 2)[1]
    assert NOTICE in first_section and '"python"' in first_section
    assert "do not answer the question" in output
    audit = runner.invoke(app, ["audit", "off-topic", "--json"])
    verdict = json.loads(audit.stdout)
    assert verdict["answered"] is False
    if verdict["statements"]:  # citations may hold although the question is not answered
        assert "do not answer the question" in runner.invoke(app, ["audit", "off-topic"]).stdout


@pytest.mark.e2e
def test_an_answered_question_has_no_notice_and_says_so_per_research_question() -> None:
    report, document, _output = example_docs_run("Do cool roofs work?", "on-topic")
    grounding = document["metadata"]["grounding"]
    assert grounding["question_answered"] is True and NOTICE not in report
    asked = grounding["answer_coverage"]["questions"]
    assert asked and "## Research questions" in report
    for item in asked:
        assert item["question"] in report
    verdict = json.loads(runner.invoke(app, ["audit", "on-topic", "--json"]).stdout)
    assert verdict["ok"] and verdict["answered"] is True


def test_zero_statements_is_not_full_coverage(tmp_path: Path) -> None:
    from research_studio.pipelines.kit.report import question_coverage, report_grounding

    coverage = question_coverage("How do cool roofs work?", ["Why?"], [])
    grounding = report_grounding({"cited_statements": 0, "citation_coverage": 1.0}, coverage)
    assert grounding["citation_coverage"] == 0.0 and grounding["question_answered"] is False


def test_sources_are_renumbered_by_first_citation_everywhere(tmp_path: Path) -> None:
    """A report that cites S2 first: S2 becomes S1 in report.md, result.json and sources/."""
    document = good_document()
    body, listing = document["report"].split("## Sources", 1)
    sections = body.split("\n## ")
    # Put the S2 section first, and list it first, as a pipeline would.
    body = "\n## ".join([sections[0], sections[2].rstrip("\n") + "\n", sections[1]])
    lines = listing.strip().splitlines()
    listing = "\n".join([lines[1], lines[0]]) + "\n"
    document["report"] = body.rstrip() + "\n\n## Sources\n\n" + listing
    (tmp_path / "sources").mkdir()
    for sid, (_title, _url, sentences) in PAGES.items():
        (tmp_path / "sources" / f"{sid}.txt").write_text(" ".join(sentences))
    written = write_outputs(tmp_path, document["report"], document)
    report = (tmp_path / "report.md").read_text()
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", report.split("## Sources")[0])))
    assert cited == ["S1", "S2"]
    assert re.findall(r"^- \[(S\d+)\]", report, re.MULTILINE) == ["S1", "S2"]
    trees = PAGES["S2"]
    assert f"- [S1] {trees[0]} — {trees[1]}" in report
    assert [(s["sid"], s["url"]) for s in written["sources"]] == [
        ("S1", trees[1]),
        ("S2", PAGES["S1"][1]),
    ]
    assert (tmp_path / "sources" / "S1.txt").read_text() == " ".join(trees[2])
    stored = json.loads((tmp_path / "result.json").read_text())
    assert stored["report"] == report and stored["sources"] == written["sources"]
    for record in stored["statements"]:
        page = (tmp_path / "sources" / f"{record['sids'][0]}.txt").read_text()
        assert all(quote["quote"] in page for quote in record["quotes"])
    assert audit_run(tmp_path).ok  # the renumbered folder is sealed as written


def _delays(order: int) -> Callable[[str], float]:
    """Per search, a delay that sets the order in which parallel workers get their results:
    one order, then its reverse."""

    def delay(query: str) -> float:
        step = sum(map(ord, query)) % 4
        return 0.08 * (step if order == 0 else 3 - step)

    return delay


@pytest.mark.e2e
@pytest.mark.parametrize(
    "args",
    [
        ["--single-agent"],
        ["--iterations", "2"],  # standard multi-agent: workers race for the pages they share
        ["--pipeline", "advanced", "--iterations", "1"],
    ],
)
def test_the_same_inputs_give_the_same_report(
    web: FakeWeb, tmp_path: Path, args: list[str]
) -> None:
    """Two identical runs print the same report.md, sources numbered S1…Sn as first cited,
    whichever parallel worker's searches come back first."""
    reports = []
    for order, out in enumerate(("first", "second")):
        web.search_delay = _delays(order)
        result = run_cli(
            web, "run", "coral bleaching heat stress", "--out", out, "--no-cache", *args
        )
        assert result.exit_code == 0, result.output
        reports.append((tmp_path / out / "report.md").read_text())
    assert reports[0] == reports[1]
    body, listing = reports[0].split("## Sources")
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", body)))
    assert cited == [f"S{n}" for n in range(1, len(cited) + 1)]
    assert re.findall(r"^- \[(S\d+)\]", listing, re.MULTILINE) == cited


@pytest.mark.e2e
def test_about_this_report_counts_what_the_sources_list_shows() -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "Do cool roofs work?",
            "--docs",
            str(EXAMPLES),
            "--model",
            use_scripted_model(ResearchScript().model()),
            "--out",
            "brief",
            "--single-agent",
        ],
        env={"RESEARCH_STUDIO_EXTRACTION": "extractive"},
    )
    assert result.exit_code == 0, result.output
    report = Path("brief/report.md").read_text()
    document = json.loads(Path("brief/result.json").read_text())
    counted = re.search(r"from (\d+) of the (\d+) sources read", report)
    assert counted is not None, report[:600]
    listed = re.findall(r"^- \[(S\d+)\]", report.split("## Sources")[1], re.MULTILINE)
    assert int(counted.group(1)) == len(listed)
    assert int(counted.group(2)) == len(document["sources"])
    # The first section is not the title again.
    assert report.split("\n## ", 2)[1].split("\n")[0] != "Do cool roofs work?"

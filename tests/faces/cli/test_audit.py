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
            "supervisor": _run(web_server, "supervisor", "--pipeline", "supervisor"),
        }


def _copy(folder: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / folder.name
    shutil.copytree(folder, target)
    return target


@pytest.mark.parametrize("shape", ["multi", "single", "advanced", "supervisor"])
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


# --- Hand edits of a finished run: every harmful one fails the audit, a harmless one passes ---


class Folder:
    """A copied run folder under edit: its report, result.json and manifest."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.report = (path / "report.md").read_text()
        self.result = json.loads((path / "result.json").read_text())
        self.manifest = json.loads((path / "manifest.json").read_text())

    @property
    def body(self) -> str:
        return self.report.split("## Sources", 1)[0]

    def cited_lines(self) -> list[str]:
        return [line for line in self.body.splitlines() if re.search(r"\[S\d+\]", line)]

    def printed(self, tid: str) -> str:
        return str(self.manifest["statements"][tid]["printed"])

    def replace_in_report(self, old: str, new: str) -> None:
        assert old in self.report, old
        self.report = self.report.replace(old, new, 1)

    def save(self) -> None:
        (self.path / "report.md").write_text(self.report)
        (self.path / "result.json").write_text(json.dumps(self.result, ensure_ascii=False))


def _first(lines: list[str], pattern: str) -> str:
    return next(line for line in lines if re.search(pattern, line))


def new_uncited_paragraph(run: Folder) -> None:
    line = run.cited_lines()[0]
    run.replace_in_report(line, line + "\n\nCoral reefs will disappear entirely by 2031.")


def invented_sentence_before_a_cited_one(run: Folder) -> None:
    line = _first(run.cited_lines(), r"^[A-Z]")
    run.replace_in_report(line, "Most reefs recover within a single year. " + line)


def it_is_false_that(run: Folder) -> None:
    line = _first(run.cited_lines(), r"^[A-Z]")
    run.replace_in_report(line, "It is false that " + line[0].lower() + line[1:])


def kept_page_text_edited(run: Folder) -> None:
    record = next(r for r in run.result["statements"] if r["sids"] and r["quotes"])
    quote = record["quotes"][0]
    page = run.path / "sources" / f"{quote['sid']}.txt"
    text = page.read_text()
    word = next(w for w in re.findall(r"[A-Za-z]{5,}", quote["quote"]) if w in text)
    at = (
        text.index(quote["quote"].split(word)[0] + word)
        if quote["quote"] in text
        else text.index(word)
    )
    page.write_text(text[:at] + text[at:].replace(word, word[::-1], 1))


def source_url_changed(run: Folder) -> None:
    url = run.result["sources"][0]["url"]
    run.replace_in_report(f"— <{url}>", "— <https://evil.example/buy-now>")


def source_title_changed(run: Folder) -> None:
    title = run.result["sources"][0]["title"]
    run.replace_in_report(f"] {title} —", "] Official endorsement by NOAA —")


def heading_replaced_by_an_address(run: Folder) -> None:
    heading = _first(run.body.splitlines(), r"^## (?!Summary|About)")
    run.replace_in_report(heading, "## https://evil.example/buy-now")


def citation_moved_consistently(run: Folder) -> None:
    """report.md and result.json both say the statement rests on another source."""
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", run.body)))
    record = next(r for r in run.result["statements"] if r["sids"] == [cited[0]])
    other = cited[1]
    printed = run.printed(record["tid"])
    run.replace_in_report(printed, printed.replace(f"[{cited[0]}]", f"[{other}]"))
    record["sids"] = [other]
    record["quotes"] = [{**quote, "sid": other} for quote in record["quotes"]]


def citation_moved(run: Folder) -> None:
    cited = list(dict.fromkeys(re.findall(r"\[(S\d+)\]", run.body)))
    line = _first(run.cited_lines(), rf"\[{cited[0]}\]")
    run.replace_in_report(line, line.replace(f"[{cited[0]}]", f"[{cited[1]}]", 1))


def tick_turned_into_two(run: Folder) -> None:
    line = _first(run.cited_lines(), r"^- ✓ ")
    run.replace_in_report(line, line.replace("- ✓ ", "- ✓✓ ", 1))


def figure_changed(run: Folder) -> None:
    line = _first(run.cited_lines(), r"\d+ (?:percent|per cent)")
    number = re.search(r"(\d+) (?:percent|per cent)", line)
    assert number is not None
    changed = line.replace(
        number.group(0), number.group(0).replace(number.group(1), str(int(number.group(1)) + 9)), 1
    )
    run.replace_in_report(line, changed)


def word_flipped(run: Folder) -> None:
    line = _first(run.cited_lines(), r" (?:is|are|was|were|can|has) ")
    changed = re.sub(r" (is|are|was|were|can|has) ", r" \1 not ", line, count=1)
    run.replace_in_report(line, changed)


def verified_finding_edited(run: Folder) -> None:
    section = run.report.split("## Verified Findings", 1)[1]
    line = _first(section.splitlines(), r"^- .*\[S\d+\]")
    changed = re.sub(r"\b(\d+)\b", lambda m: str(int(m.group(1)) + 9), line, count=1)
    run.replace_in_report(line, changed if changed != line else line.replace(" the ", " no ", 1))


HARMFUL_EDITS = {
    "new uncited paragraph": ("multi", new_uncited_paragraph, "did not print"),
    "invented sentence before a cited one": (
        "multi",
        invented_sentence_before_a_cited_one,
        "changed",
    ),
    "'It is false that' prefixed": ("multi", it_is_false_that, "changed"),
    "kept page text edited inside the quote": ("single", kept_page_text_edited, "sources/S"),
    "Sources URL changed": ("multi", source_url_changed, "changed"),
    "Sources title changed": ("single", source_title_changed, "changed"),
    "heading replaced by an address": ("multi", heading_replaced_by_an_address, "changed"),
    "citation moved in report.md and result.json": (
        "single",
        citation_moved_consistently,
        "was edited",
    ),
    "✓ turned into ✓✓": ("advanced", tick_turned_into_two, "changed"),
    "figure changed": ("multi", figure_changed, "changed"),
    "citation moved": ("single", citation_moved, "changed"),
    "word flipped": ("advanced", word_flipped, "changed"),
    "Verified Finding edited": ("supervisor", verified_finding_edited, "changed"),
}


@pytest.mark.parametrize("edit", list(HARMFUL_EDITS))
def test_audit_catches_a_harmful_hand_edit(
    finished_runs: dict[str, Path], tmp_path: Path, edit: str
) -> None:
    shape, apply, problem = HARMFUL_EDITS[edit]
    run = Folder(_copy(finished_runs[shape], tmp_path))
    apply(run)
    run.save()
    result = runner.invoke(app, ["audit", str(run.path), "--json"])
    assert result.exit_code == 1, f"{edit}: {result.output}"
    verdict = json.loads(result.stdout)
    reasons = verdict["problems"] + [
        c["why"] for c in verdict["statements"] if c["verdict"] == "fails"
    ]
    assert any(problem in reason for reason in reasons), reasons
    plain = runner.invoke(app, ["audit", str(run.path)])
    assert plain.exit_code == 1 and "FAILED" in plain.stdout and "Traceback" not in plain.output


def test_swapping_two_statements_of_a_paragraph_passes(
    finished_runs: dict[str, Path], tmp_path: Path
) -> None:
    run = Folder(_copy(finished_runs["multi"], tmp_path))
    entry = next(e for e in run.manifest["layout"] if len(e["statements"]) >= 2)
    first, second = (run.printed(tid) for tid in entry["statements"][:2])
    line = next(line for line in run.report.splitlines() if f"{first} {second}" in line)
    run.replace_in_report(line, line.replace(f"{first} {second}", f"{second} {first}"))
    run.save()
    assert run.report != (finished_runs["multi"] / "report.md").read_text()
    result = runner.invoke(app, ["audit", str(run.path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"]


def test_statements_are_found_by_id_so_a_repeated_sentence_is_checked_where_it_stands(
    finished_runs: dict[str, Path], tmp_path: Path
) -> None:
    """The supervisor prints a Verified Finding again under Findings: editing the second copy
    fails, and the untouched first copy still holds."""
    run = Folder(_copy(finished_runs["supervisor"], tmp_path))
    texts = [record["text"] for record in run.result["statements"]]
    repeated = next(text for text in texts if texts.count(text) > 1)
    first, second = [r["tid"] for r in run.result["statements"] if r["text"] == repeated][:2]
    printed = run.printed(second)
    head, tail = run.report.split(printed, 1)
    assert printed in tail
    run.report = head + printed + tail.replace(printed, printed.replace(" the ", " no ", 1), 1)
    run.save()
    verdict = json.loads(runner.invoke(app, ["audit", str(run.path), "--json"]).stdout)
    assert not verdict["ok"]
    assert any("changed" in problem for problem in verdict["problems"])
    by_id = {check["tid"]: check for check in verdict["statements"]}
    assert by_id[first]["verdict"] == "holds"


def test_a_run_without_its_manifest_fails_closed(
    finished_runs: dict[str, Path], tmp_path: Path
) -> None:
    folder = _copy(finished_runs["multi"], tmp_path)
    (folder / "manifest.json").unlink()
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert result.exit_code == 1
    assert any("manifest.json" in p for p in json.loads(result.stdout)["problems"])


def test_audit_live_reports_drift_from_the_kept_text(
    finished_runs: dict[str, Path], web_server: FakeWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.doubles.fake_web import Fault

    folder = finished_runs["single"]
    document = json.loads((folder / "result.json").read_text())
    cited = list(dict.fromkeys(sid for r in document["statements"] for sid in r["sids"]))
    urls = {s["sid"]: s["url"] for s in document["sources"]}
    gone_path = "/" + urls[cited[0]].split("/", 3)[3]
    quote = next(
        q["quote"] for r in document["statements"] for q in r["quotes"] if q["sid"] == cited[0]
    )
    body, kind = web_server._bodies[gone_path]
    sentence = quote.split(". ")[0][:40]
    assert sentence.encode() in body
    monkeypatch.setitem(
        web_server._bodies,
        gone_path,
        (body.replace(sentence.encode(), b"Nothing to see here"), kind),
    )
    web_server.set_fault("/" + urls[cited[1]].split("/", 3)[3], Fault("status", status=404))
    try:
        result = runner.invoke(
            app, ["audit", str(folder), "--live", "--allow-private-networks", "--json"]
        )
    finally:
        web_server.clear_faults()
    assert result.exit_code == 0, result.output  # the run's own outputs still hold
    drift = {item["sid"]: item for item in json.loads(result.stdout)["drift"]}
    assert drift[cited[0]]["status"] == "quotes_gone"
    assert drift[cited[1]]["status"] == "unreachable"
    assert all(drift[sid]["status"] == "same" for sid in cited[2:])


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
        if heading not in {
            "Research Quality",
            "Remaining gaps",
            "Limitations of this run",
            "Research questions",
        }:
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

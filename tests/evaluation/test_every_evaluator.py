"""Every evaluator, on every pipeline it accepts: one test where it passes and one where it fails.

The runs are real (each pipeline through the evaluation executor, scripted models, local web),
made once for the module. A failing input is a real run with one defect put in, or a run whose
settings were dropped on the way: never something computed from what the evaluator computes.
On a pipeline an evaluator does not accept, it says "not applicable" and runs nothing.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from research_studio.core.config import Configuration
from research_studio.core.config_loading import PROVIDER_ENV_VARS
from research_studio.evaluation import behavioral, structural
from research_studio.evaluation.cases import EvalCase, PipelineChoice, case_checks
from research_studio.evaluation.citations import citation_accuracy, citation_checks
from research_studio.evaluation.evaluators import EVALUATORS, applicability_table, evaluator
from research_studio.evaluation.execution import RunFn, RunRequest
from research_studio.evaluation.judges import (
    judge_citation_faithfulness,
    judge_completeness,
    judge_groundedness,
    judge_quality,
    judge_relevance,
)
from research_studio.evaluation.judging import Judge
from research_studio.evaluation.snapshots import RunOutput, load_output
from research_studio.evaluation.verdicts import Check
from research_studio.pipelines.registry import names
from tests.doubles.fake_web import FakeWeb
from tests.doubles.scripted_model import ScriptedChatModel, use_scripted_model
from tests.evaluation.conftest import fair_verdict
from tests.evaluation.runs import (
    AMBIGUOUS,
    QUERY,
    SETTINGS,
    PipelineRuns,
    make_runs,
    with_result,
)

pytestmark = pytest.mark.e2e
DOCS = Path(__file__).resolve().parents[2] / "docs" / "evaluation.md"
DETAILED = {**SETTINGS, "report_structure": "detailed"}
Scenario = Callable[[PipelineRuns, Path], Awaitable[Check]]


@pytest.fixture(scope="module")
def runs(
    web_server: FakeWeb, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, PipelineRuns]]:
    """Every pipeline's runs, made once for the module (about two minutes on two cores)."""
    root = tmp_path_factory.mktemp("every-evaluator")
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith("RESEARCH_STUDIO_") or name in PROVIDER_ENV_VARS.values():
                patch.delenv(name, raising=False)
        patch.setenv("XDG_CACHE_HOME", str(root / "xdg-cache"))
        patch.setenv("XDG_DATA_HOME", str(root / "xdg-data"))
        made = make_runs(web_server, root)
    yield made


def copied(output: RunOutput, into: Path) -> RunOutput:
    """The run's folder copied, so a test may damage it."""
    folder = into / "copy"
    shutil.copytree(output.folder, folder)
    return load_output(folder)


# --- structural: a real report, then the same report with the defect the check names ----------


def _report(change: Callable[[str], str]) -> Callable[[dict[str, Any]], None]:
    def apply(result: dict[str, Any]) -> None:
        result["report"] = change(result["report"])

    return apply


def _first(key: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(result: dict[str, Any]) -> None:
        result[key][0][field] = value

    return apply


def _metadata(**changes: Any) -> Callable[[dict[str, Any]], None]:
    def apply(result: dict[str, Any]) -> None:
        for key, value in changes.items():
            if value is None:
                result["metadata"].pop(key)
            else:
                result["metadata"][key] = value

    return apply


STRUCTURAL_DEFECTS: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "report_has_markdown_structure": (_report(lambda r: r.split("\n", 1)[1]), "title"),
    "citations_present": (_report(lambda r: re.sub(r"\[S\d+\]", "", r)), r"no \[S<n>\]"),
    "citations_map_to_sources": (lambda r: r.update(sources=[]), "only 0 source"),
    "metadata_complete": (_metadata(llm_calls=None), "llm_calls missing"),
    "evidence_populated": (lambda r: r.update(evidence=[]), "empty"),
    "scores_in_bounds": (_metadata(coverage=1.4), "coverage=1.4"),
    "report_minimum_length": (_report(lambda r: "\n".join(r.splitlines()[:3])), "fewer than"),
    "evidence_fields": (_first("evidence", "url", ""), "lacks url"),
    "sources_have_urls": (_first("sources", "url", ""), "lacks url"),
    "no_empty_report": (_report(lambda _r: " \n"), "empty"),
}


def _structural(name: str) -> tuple[Scenario, Scenario]:
    check = getattr(structural, f"check_{name}")
    defect, reason = STRUCTURAL_DEFECTS[name]

    async def passes(runs: PipelineRuns, _tmp: Path) -> Check:
        result: Check = check(runs.base.result)
        return result

    async def fails(runs: PipelineRuns, _tmp: Path) -> Check:
        result: Check = check(with_result(runs.base, defect).result)
        assert re.search(reason, result.reason), result.reason
        return result

    return passes, fails


# --- case checks: the case's expectations, constants written in the case ----------------------


def _case(name: str, expect: dict[str, Any], output: RunOutput) -> Check:
    case = EvalCase.model_validate({"id": "case", "query": QUERY, "expect": expect})
    found = case_checks(case, output.result, flagged_ambiguous=output.info.flagged_ambiguous)
    return next(check for check in found if check.name == name)


OFF_TOPIC = f"# {QUERY}\n\n## Weather\n\nIt rained in the hills all week [S1].\n"
CASES: dict[str, tuple[Scenario, Scenario]] = {
    "expected_ambiguity": (
        lambda runs, _: _aw(_case("expected_ambiguity", {"ambiguous": False}, runs.base)),
        lambda runs, _: _aw(_case("expected_ambiguity", {"ambiguous": True}, runs.base)),
    ),
    "min_sources": (
        lambda runs, _: _aw(_case("min_sources", {"min_sources": 2}, runs.base)),
        lambda runs, _: _aw(_case("min_sources", {"min_sources": 60}, runs.base)),
    ),
    "min_evidence": (
        lambda runs, _: _aw(_case("min_evidence", {"min_evidence": 2}, runs.base)),
        lambda runs, _: _aw(_case("min_evidence", {"min_evidence": 500}, runs.base)),
    ),
    # The title repeats the query, which names coral: an off-topic body still fails.
    "mentions": (
        lambda runs, _: _aw(_case("mentions", {"must_mention": ["bleaching"]}, runs.base)),
        lambda runs, _: _aw(
            _case(
                "mentions",
                {"must_mention": ["bleaching"]},
                with_result(runs.base, _report(lambda _r: OFF_TOPIC)),
            )
        ),
    ),
    "local_sources_only": (
        lambda runs, _: _aw(_case("local_sources_only", {"local_sources_only": True}, runs.local)),
        lambda runs, _: _aw(_case("local_sources_only", {"local_sources_only": True}, runs.base)),
    ),
}


async def _aw(check: Check) -> Check:
    return check


# --- behavioral: the honest runs, then runs whose request lost what the evaluator tests --------


def dropping(run: RunFn, change: Callable[[RunRequest], RunRequest]) -> RunFn:
    """A RunFn that changes each request before running it (a face that ignores a setting)."""

    async def changed(request: RunRequest) -> RunOutput:
        return await run(change(request))

    return changed


def _rounds_ignored(request: RunRequest) -> RunRequest:
    capped = [key for key in request.settings if key.startswith("max_")]
    return request.with_settings(**dict.fromkeys(capped, 3))


def _single_cites_unknown(run: RunFn) -> RunFn:
    async def damaged(request: RunRequest) -> RunOutput:
        output = await run(request)
        if request.pipeline.mode != "single":
            return output
        return with_result(output, _report(lambda r: r.replace("[S1]", "[S99]")))

    return damaged


def _drop_first_source(result: dict[str, Any]) -> None:
    result["sources"] = result["sources"][1:]


def _flip_first_claim(result: dict[str, Any]) -> None:
    result["claims"][0]["verified"] = not result["claims"][0]["verified"]


# advanced-optimized: one subagent a round, so its second round reaches the gap detector and the
# model's falling reading shows (with more, a subagent that finds no new page on the small local
# web ends the loop early, and the early stop keeps the coverage it had).
FALLING = {"advanced-optimized": {**SETTINGS, "max_subagents": 1}}


def asked(runs: PipelineRuns, settings: dict[str, Any] = DETAILED) -> RunRequest:
    return RunRequest(QUERY, runs.pipeline, settings)


BEHAVIORAL: dict[str, tuple[Scenario, Scenario]] = {
    "config_effectiveness": (
        lambda runs, _: behavioral.config_effectiveness(runs.run, asked(runs, SETTINGS)),
        lambda runs, _: behavioral.config_effectiveness(
            dropping(runs.run, lambda r: r.with_settings(report_structure="detailed")),
            asked(runs, SETTINGS),
        ),
    ),
    "gap_loop_improvement": (
        lambda runs, _: behavioral.gap_loop_improvement(runs.run, asked(runs)),
        lambda runs, _: behavioral.gap_loop_improvement(
            dropping(runs.run, _rounds_ignored), asked(runs)
        ),
    ),
    "mode_comparison": (
        lambda runs, _: behavioral.mode_comparison(runs.run, asked(runs)),
        lambda runs, _: behavioral.mode_comparison(_single_cites_unknown(runs.run), asked(runs)),
    ),
    "ambiguity_detection": (
        lambda runs, _: behavioral.ambiguity_detection(runs.run, [AMBIGUOUS], asked(runs)),
        # A clear question taken for an ambiguous one: the run rightly does not ask back.
        lambda runs, _: behavioral.ambiguity_detection(runs.run, [QUERY], asked(runs, SETTINGS)),
    ),
    "state_consistency": (
        lambda runs, _: _aw(behavioral.check_state_consistency(runs.base.result)),
        lambda runs, _: _aw(
            behavioral.check_state_consistency(with_result(runs.base, _drop_first_source).result)
        ),
    ),
    "iteration_convergence": (
        lambda runs, _: behavioral.iteration_convergence(runs.run, asked(runs)),
        lambda runs, _: behavioral.iteration_convergence(
            runs.falling, asked(runs, FALLING.get(runs.pipeline.name, SETTINGS))
        ),
    ),
    "verified_claims_ratio": (
        lambda runs, _: _aw(behavioral.check_verified_claims_ratio(runs.base.result)),
        lambda runs, _: _aw(
            behavioral.check_verified_claims_ratio(with_result(runs.base, _flip_first_claim).result)
        ),
    ),
}


# --- judges and citations: a judge that reads the prompt (scripted text, code counts) ----------


def _harsh(schema: str | None, prompt: str) -> dict[str, Any]:
    """A judge that rates everything 1 and grounds claims in evidence the run does not have."""
    fair = fair_verdict(schema, prompt)
    if schema == "RelevanceVerdict":
        return {"sections": [{**item, "score": 1} for item in fair["sections"]]}
    if schema == "GroundednessVerdict":
        return {
            "claims": [
                {"claim": f"claim {n}", "grounded": True, "evidence_ids": ["E999"]}
                for n in range(3)
            ]
        }
    if schema == "CompletenessVerdict":
        return {"covered": [], "missed": [1], "score": 1}
    if schema == "QualityVerdict":
        return dict.fromkeys(fair, 1)
    if schema == "FaithfulnessVerdict":
        return {"score": 1, "problems": ["every citation overstates its source"]}
    return fair


def judge(tmp: Path, harsh: bool = False) -> Judge:
    model = ScriptedChatModel(
        fallback=lambda request: (_harsh if harsh else fair_verdict)(
            request.schema_name, request.prompt
        )
    )
    use_scripted_model(model, "judge")
    return Judge("scripted:judge", Configuration(cache_dir=tmp / "judge-cache"))


JUDGED = {
    "relevance": judge_relevance,
    "groundedness": judge_groundedness,
    "quality": judge_quality,
    "citation_faithfulness": judge_citation_faithfulness,
}


def _judged(name: str) -> tuple[Scenario, Scenario]:
    def scenario(harsh: bool) -> Scenario:
        async def run(runs: PipelineRuns, tmp: Path) -> Check:
            if name == "completeness":
                return await judge_completeness(judge(tmp, harsh), runs.base, None)
            return await JUDGED[name](judge(tmp, harsh), runs.base, None)

        return run

    return scenario(False), scenario(True)


async def _citation(name: str, output: RunOutput, tmp: Path) -> Check:
    figures = await citation_accuracy(judge(tmp), output)
    return next(c for c in citation_checks(figures, judged=True) if c.name == name)


async def _pages_lost(runs: PipelineRuns, tmp: Path) -> Check:
    """The kept page text of every cited source but the least cited one is gone: its pairs
    cannot be judged, and an unjudged pair is not a correct one."""
    output = copied(runs.base, tmp)
    cited: dict[str, int] = {}
    for statement in output.result.get("statements") or []:
        for sid in statement.get("sids") or []:
            cited[sid] = cited.get(sid, 0) + 1
    keep = min(cited, key=lambda sid: cited[sid])
    for sid in cited:
        if sid != keep:
            (output.folder / "sources" / f"{sid}.txt").unlink()
    return await _citation("citation_accuracy", load_output(output.folder), tmp)


async def _page_edited(runs: PipelineRuns, tmp: Path) -> Check:
    output = copied(runs.base, tmp)
    page = next((output.folder / "sources").glob("S*.txt"))
    page.write_text(page.read_text(encoding="utf-8") + " An added sentence.", encoding="utf-8")
    return await _citation("audit", load_output(output.folder), tmp)


CITATIONS: dict[str, tuple[Scenario, Scenario]] = {
    "citation_accuracy": (
        lambda runs, tmp: _citation("citation_accuracy", copied(runs.base, tmp), tmp),
        _pages_lost,
    ),
    "audit": (lambda runs, tmp: _citation("audit", copied(runs.base, tmp), tmp), _page_edited),
}

SCENARIOS: dict[str, tuple[Scenario, Scenario]] = {
    **{name: _structural(name) for name in STRUCTURAL_DEFECTS},
    **CASES,
    **BEHAVIORAL,
    **{name: _judged(name) for name in (*JUDGED, "completeness")},
    **CITATIONS,
}
ACCEPTED = [(item.name, pipeline) for item in EVALUATORS for pipeline in item.pipelines()]
REFUSED = [
    (item.name, pipeline)
    for item in EVALUATORS
    for pipeline in names()
    if pipeline not in item.pipelines()
]


def test_every_declared_evaluator_has_a_pass_and_a_fail_scenario() -> None:
    assert sorted(SCENARIOS) == sorted(item.name for item in EVALUATORS)


def test_the_documented_table_is_the_declared_one() -> None:
    assert applicability_table() in DOCS.read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "pipeline"), ACCEPTED)
async def test_passes(
    runs: dict[str, PipelineRuns], tmp_path: Path, name: str, pipeline: str
) -> None:
    check = await SCENARIOS[name][0](runs[pipeline], tmp_path)
    assert check.name == name and check.passed is True, check.reason


@pytest.mark.parametrize(("name", "pipeline"), ACCEPTED)
async def test_fails(
    runs: dict[str, PipelineRuns], tmp_path: Path, name: str, pipeline: str
) -> None:
    check = await SCENARIOS[name][1](runs[pipeline], tmp_path)
    assert check.name == name and check.passed is False, check.reason


async def _nothing(_request: RunRequest) -> RunOutput:
    raise AssertionError("an evaluator that does not apply must not run anything")


RUN_EVALUATORS = {
    "mode_comparison": behavioral.mode_comparison,
    "verified_claims_ratio": behavioral.verified_claims_ratio,
    "config_effectiveness": behavioral.config_effectiveness,
    "gap_loop_improvement": behavioral.gap_loop_improvement,
    "iteration_convergence": behavioral.iteration_convergence,
}


@pytest.mark.parametrize(("name", "pipeline"), REFUSED)
async def test_is_not_applicable(name: str, pipeline: str) -> None:
    request = RunRequest(QUERY, PipelineChoice(pipeline), SETTINGS)
    check = await RUN_EVALUATORS[name](_nothing, request)
    assert check.passed is None and check.score is None
    assert check.reason.startswith(f"not applicable to the {pipeline} pipeline: ")
    assert evaluator(name).elsewhere in check.reason

"""Every evaluator, declared once: its group and the pipelines it applies to.

An evaluator asked about a pipeline it does not apply to says "not applicable" (a check that
was not measured), never "passed". What applies is read from the pipelines' own specs (their
modes, the settings their nodes read), so a new pipeline is placed in every row by its spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from research_studio.evaluation.verdicts import Check, Group, not_measured
from research_studio.pipelines.kit.spec import PipelineSpec
from research_studio.pipelines.registry import spec, specs

# The setting that caps each pipeline's loop, whichever its spec reads.
ROUND_SETTINGS = ("max_iterations", "max_researcher_iterations")


def round_setting(pipeline: PipelineSpec) -> str | None:
    """The setting that caps the pipeline's research loop (None: it does not loop)."""
    return next((name for name in ROUND_SETTINGS if name in pipeline.settings), None)


def _every(_pipeline: PipelineSpec) -> bool:
    return True


def _loops(pipeline: PipelineSpec) -> bool:
    return round_setting(pipeline) is not None


def _has_modes(pipeline: PipelineSpec) -> bool:
    return pipeline.single_worker


def _formats(pipeline: PipelineSpec) -> bool:
    return "report_structure" in pipeline.settings


def _claim_ratio(pipeline: PipelineSpec) -> bool:
    # Its metadata confidence (or claim figures) is a ratio of its verified claims, as its spec
    # says; the supervisor's confidence is the PASS share of its evidence snippets.
    return pipeline.claim_ratio


@dataclass(frozen=True)
class Evaluator:
    """One evaluator: its name and group, which pipelines it applies to, and why not elsewhere."""

    name: str
    group: Group
    applies: Callable[[PipelineSpec], bool] = _every
    elsewhere: str = ""  # why it does not apply where `applies` says no

    def pipelines(self) -> tuple[str, ...]:
        """The registered pipelines it applies to."""
        return tuple(item.name for item in specs() if self.applies(item))


_STRUCTURAL = (
    "report_has_markdown_structure",
    "citations_present",
    "citations_map_to_sources",
    "metadata_complete",
    "evidence_populated",
    "scores_in_bounds",
    "report_minimum_length",
    "evidence_fields",
    "sources_have_urls",
    "no_empty_report",
)
_CASE = ("expected_ambiguity", "min_sources", "min_evidence", "mentions", "local_sources_only")
_JUDGE = ("relevance", "groundedness", "completeness", "quality", "citation_faithfulness")

EVALUATORS: tuple[Evaluator, ...] = (
    *(Evaluator(name, "structural") for name in _STRUCTURAL),
    *(Evaluator(name, "case") for name in _CASE),
    Evaluator(
        "config_effectiveness",
        "behavioral",
        _formats,
        "it does not read report_structure",
    ),
    Evaluator("gap_loop_improvement", "behavioral", _loops, "it has no research loop"),
    Evaluator("mode_comparison", "behavioral", _has_modes, "it has no single/multi modes"),
    Evaluator("ambiguity_detection", "behavioral"),
    Evaluator("state_consistency", "behavioral"),
    Evaluator("iteration_convergence", "behavioral", _loops, "it has no research loop"),
    Evaluator(
        "verified_claims_ratio",
        "behavioral",
        _claim_ratio,
        "its confidence is the share of evidence snippets that passed, not a claim ratio",
    ),
    *(Evaluator(name, "judge") for name in _JUDGE),
    Evaluator("citation_accuracy", "citations"),
    Evaluator("audit", "citations"),
)


def evaluator(name: str) -> Evaluator:
    """The declared evaluator of that name."""
    return next(item for item in EVALUATORS if item.name == name)


def not_applicable(name: str, pipeline: str) -> Check | None:
    """A 'not applicable' check when the evaluator does not apply to the pipeline, else None.

    `pipeline` is a name or a label with its mode ("standard:single").
    """
    declared = evaluator(name)
    found = spec(pipeline.partition(":")[0])
    if declared.applies(found):
        return None
    return not_measured(
        name, declared.group, f"not applicable to the {found.name} pipeline: {declared.elsewhere}"
    )


def applicability_table() -> str:
    """The evaluator × pipeline table of docs/evaluation.md (✓ applies, n/a does not)."""
    pipelines = [item.name for item in specs()]
    lines = [
        "| Evaluator | Group | " + " | ".join(pipelines) + " |",
        "|---|---|" + "---|" * len(pipelines),
    ]
    for item in EVALUATORS:
        cells = ["✓" if name in item.pipelines() else "n/a" for name in pipelines]
        lines.append(f"| `{item.name}` | {item.group} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

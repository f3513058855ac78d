"""The evaluation as Markdown: a summary table (case × pipeline × score), costs, then details."""

from __future__ import annotations

from research_studio.evaluation.suite import CaseResult, EvalReport, pipeline_means
from research_studio.evaluation.verdicts import Check

DASH = "–"
_JUDGE_COLUMNS = (
    ("relevance", "Relevance"),
    ("groundedness", "Grounded"),
    ("completeness", "Complete"),
    ("quality", "Quality"),
    ("citation_faithfulness", "Faithful"),
)
HEADER = (
    "Case",
    "Pipeline",
    "Structural",
    "Checks",
    *(title for _name, title in _JUDGE_COLUMNS),
    "Cite acc.",
    "Eff. cites",
    "Audit",
    "Score",
)


def _row(cells: list[str] | tuple[str, ...]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"


def _ratio(checks: list[Check]) -> str:
    judged = [check for check in checks if check.passed is not None]
    return f"{sum(1 for c in judged if c.passed)}/{len(judged)}" if judged else DASH


def _judge_cell(result: CaseResult, name: str) -> str:
    check = next((c for c in result.checks if c.name == name), None)
    if check is None:
        return DASH
    if check.score is None:
        return "err" if check.details.get("error_kind") else DASH
    if name == "groundedness":
        return f"{check.details.get('grounded')}/{check.details.get('claims')}"
    rating = check.details.get("rating")
    return f"{rating:.1f}" if isinstance(rating, int | float) else f"{check.score:.2f}"


def _number(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def summary_row(result: CaseResult) -> list[str]:
    """One line of the summary table."""
    if result.status != "completed" and not result.checks:
        reason = (result.error or result.status).splitlines()[0][:80]
        filler = [DASH] * (len(HEADER) - 4)
        return [result.case_id, result.pipeline, f"FAILED: {reason}", *filler, DASH]
    figures = result.citations
    audit = figures.audit if figures else None
    audit_cell = DASH
    if audit is not None and audit.error is None:
        audit_cell = f"{audit.statements_held}/{audit.statements}" + ("" if audit.ok else " ✗")
    effective = figures.effective_citations if figures else None
    return [
        result.case_id,
        result.pipeline,
        _ratio(result.group("structural")),
        _ratio(result.group("case", "behavioral")),
        *(_judge_cell(result, name) for name, _title in _JUDGE_COLUMNS),
        _number(figures.citation_accuracy if figures else None),
        DASH if effective is None else str(effective),
        audit_cell,
        _number(result.score),
    ]


def summary_table(report: EvalReport) -> str:
    """The case × pipeline table."""
    lines = [_row(HEADER), _row(["---"] * len(HEADER))]
    lines += [_row(summary_row(result)) for result in report.results]
    return "\n".join(lines)


def costs_lines(report: EvalReport) -> list[str]:
    """Runs and judging, separately."""
    runs = report.run_costs.describe()
    if report.source == "snapshots":
        runs += " (spent when the snapshots were made; no pipeline ran now)"
    judging = report.judging_costs.describe()
    if report.verdicts_reused:
        judging += f"; {report.verdicts_reused} verdict(s) reused from the snapshots"
    judges = ", ".join(report.judges) or "none"
    return [f"- Runs: {runs}", f"- Judging ({judges}): {judging}"]


def _behavioral(report: EvalReport) -> list[str]:
    if not report.behavioral:
        return []
    labels = list(report.behavioral)
    names = list(dict.fromkeys(c.name for checks in report.behavioral.values() for c in checks))
    lines = [
        "",
        "## Behavioral evaluators",
        "",
        _row(["Evaluator", *labels]),
        _row(["---"] * (len(labels) + 1)),
    ]
    for name in names:
        cells = []
        for label in labels:
            check = next((c for c in report.behavioral[label] if c.name == name), None)
            cells.append(DASH if check is None else f"{_mark(check)}: {check.reason}")
        lines.append(_row([name, *cells]))
    return lines


def _mark(check: Check) -> str:
    return "n/a" if check.passed is None else ("PASS" if check.passed else "FAIL")


def details(result: CaseResult) -> list[str]:
    """Every check of one case and pipeline, with its reason."""
    lines = [f"### {result.case_id} × {result.pipeline}", "", f"Query: {result.query}"]
    lines.append(f"Snapshot: `{result.folder}`")
    lines.append(f"Run cost: {result.run_costs.describe()}")
    if result.error:
        lines.append(f"Error: {result.error}")
    lines.append("")
    figures = result.citations
    for check in result.checks:
        lines.append(f"- {_mark(check)} {check.group}/{check.name}: {check.reason}")
        for key in ("missed", "ungrounded"):
            items = check.details.get(key)
            if items:
                lines.append(f"  - {key}: " + "; ".join(str(item) for item in items[:8]))
        if check.name == "citation_accuracy" and figures is not None:
            unsupported = [pair for pair in figures.results if pair.supported is False]
            for pair in unsupported[:8]:
                why = f" ({pair.reason})" if pair.reason else ""
                lines.append(f"  - not supported by {pair.sid}: {pair.statement[:140]}{why}")
    return [*lines, ""]


def markdown(report: EvalReport) -> str:
    """The whole evaluation: summary, per-pipeline means, behavioral, costs, details."""
    lines = [
        f"# Evaluation ({report.source}, {report.created})",
        "",
        summary_table(report),
        "",
        _row(["Pipeline", "Cases", "Failed", "Mean score"]),
        _row(["---"] * 4),
    ]
    for label, figures in pipeline_means(report).items():
        lines.append(
            _row([label, str(figures["cases"]), str(figures["failed"]), _number(figures["score"])])
        )
    lines += _behavioral(report)
    lines += ["", "## Costs", "", *costs_lines(report), "", "## Details", ""]
    for result in report.results:
        lines += details(result)
    return "\n".join(lines).rstrip() + "\n"

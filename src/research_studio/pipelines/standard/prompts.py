"""The standard pipeline's prompts, each beside the functions that fill its data blocks.

Labels and line templates that a reader parses back (the scripted test model) are constants,
and the templates are composed from them.
"""

from __future__ import annotations

from research_studio.core.prompt_blocks import NONE, QUESTIONS_LABEL
from research_studio.core.records import EvidenceRecord
from research_studio.pipelines.standard.state import WorkerResult

# --- understand: is the request clear enough to research? -------------------------------------

UNDERSTAND_SYSTEM = """You are the intake analyst of a research team. Decide whether a research request is clear enough to research well, or whether one short question to the user would change the research substantially.

Check these seven kinds of ambiguity:
- polysemy: a key term has several meanings ("Python": language or snake; "Mercury": planet, element, god)
- scope: so broad that the research would be shallow
- time_period: the answer depends on a period that is not given
- geography: the answer depends on a place that is not given
- perspective: whose viewpoint matters (users, investors, regulators, ...)
- specificity: a named entity could be several things or people
- comparison_baseline: "better" or "faster" without saying compared to what

Only ask when the ambiguity would really change the research; well-known default readings are fine.
When asking, give 3 to 5 short, distinct options the user can pick from, each naming one reading, the likeliest first."""

UNDERSTAND_USER = """{request}

Restate in one or two sentences what the user wants researched, then judge clarity."""

# --- plan, and (multi agent) splitting the work between workers ---------------------------------

PLAN_SYSTEM = """You are a research planner. Turn a request into a plan a team can execute with a web search engine.
Give:
- one research question per distinct aspect of the request, together answering it (a narrow request needs one or two; never more than {max_questions}),
- the aspects a complete answer must cover,
- 4 to 6 web search queries: short (3 to 8 words), specific, each targeting a different question or aspect, no duplicates.
Today's date is {today}."""

PLAN_USER = """{request}
Understanding: {understanding}"""

SUGGESTED_SEARCHES_LABEL = "Suggested follow-up searches:"

ORCHESTRATE_SYSTEM = """You lead a team of {workers} research workers who search the web in parallel.
Split the research into at most {workers} independent, non-overlapping sub-questions, one per worker, each with 1 to {searches} short web search queries (3 to 8 words).
{loop_hint}Today's date is {today}."""

ORCHESTRATE_LOOP_HINT = """This is a follow-up round. Target only what is still missing; do not repeat searches already run.
"""

ORCHESTRATE_USER = f"""{{request}}

{QUESTIONS_LABEL}
{{questions}}

Still missing:
{{gaps}}

{SUGGESTED_SEARCHES_LABEL}
{{suggested}}

Searches already run:
{{done}}"""

# --- gap detection (single agent) -----------------------------------------------------------------

GAPS_SYSTEM = """You review a research team's evidence against its research questions.
For each question say whether it is well_covered, partial or missing; list the important gaps; and propose up to {max_searches} new, short web search queries (3 to 8 words) that would fill them, none repeating a search already run.
Set ready_to_write when the evidence is enough for a good report."""

GAPS_USER = f"""{{request}}

{QUESTIONS_LABEL}
{{questions}}

Aspects to cover:
{{aspects}}

Searches already run:
{{done}}

Evidence collected ({{count}} items):
{{evidence}}"""

GAPS_EVIDENCE_ITEM = "[{eid}][{sid}] {text}"
MAX_EVIDENCE_IN_PROMPT = 80


def evidence_lines(evidence: list[EvidenceRecord], limit: int = MAX_EVIDENCE_IN_PROMPT) -> str:
    """Compact evidence listing for the gap prompt: the latest items, one line each."""
    lines = [
        GAPS_EVIDENCE_ITEM.format(eid=item["eid"], sid=item["sid"], text=item["text"])
        for item in evidence[-limit:]
    ]
    return "\n".join(lines) or "(none yet)"


# --- synthesis of the workers' reports (multi agent) ---------------------------------------------

SYNTHESIZE_SYSTEM = """You lead a research team. Judge your workers' reports together: say in one or two sentences where the research stands, list the gaps that remain, and give your confidence in [0, 1] that the questions are answered.
Set needs_more_research when important gaps remain, and propose up to {max_searches} short follow-up web searches (3 to 8 words) that would fill them."""

SYNTHESIZE_USER = f"""{{request}}

{QUESTIONS_LABEL}
{{questions}}

Worker reports:
{{reports}}"""

WORKER_REPORT = """Worker {worker_id} — {question}
Answer: {answer}
Findings:
{findings}
Confidence: {confidence:.2f}; gaps: {gaps}"""

WORKER_FINDING = "  - {finding}"


def worker_reports(results: list[WorkerResult]) -> str:
    """Every worker's report, blank-line separated."""
    return "\n\n".join(_worker_report(result) for result in results) or NONE


def _worker_report(result: WorkerResult) -> str:
    findings = "\n".join(WORKER_FINDING.format(finding=item) for item in result["key_findings"])
    return WORKER_REPORT.format(
        worker_id=result["worker_id"],
        question=result["question"],
        answer=result["answer"],
        findings=findings or WORKER_FINDING.format(finding=NONE),
        confidence=result["confidence"],
        gaps="; ".join(result["gaps"]) or "none",
    )


# --- claim verification ---------------------------------------------------------------------------

VERIFY_SYSTEM = """You are a fact checker. For each numbered claim, decide whether the quoted source passage supports it. A claim is supported only if the passage states it (or directly implies it) — numbers, dates and names must match. Give a short reason."""

VERIFY_USER = """Claims with their source passages:
{claims}"""

VERIFY_CLAIM = """{number}. Claim: {claim}
   Passage [{sid}]: "{quote}\""""


def claims_to_verify(items: list[EvidenceRecord], numbers: list[int]) -> str:
    """The numbered claims (1-based into `items`) with their quoted passages."""
    return "\n".join(
        VERIFY_CLAIM.format(
            number=number,
            claim=items[number - 1]["text"],
            sid=items[number - 1]["sid"],
            quote=items[number - 1]["quote"],
        )
        for number in numbers
    )


WORKER_CONTEXT = """Workers' findings (for structure only; state the evidence, not the findings):
{reports}

"""


def worker_context(results: list[WorkerResult]) -> str:
    """The workers' answers as structure hints for the writer ("" without workers)."""
    if not results:
        return ""
    reports = "\n".join(f"- {result['question']}: {result['answer']}" for result in results)
    return WORKER_CONTEXT.format(reports=reports)

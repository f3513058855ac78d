"""Report rendering (structure enforced in code), run metadata and the result.json document."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from research_studio.core.config import Configuration, ReportStructure
from research_studio.core.languages import heading as localized
from research_studio.core.queries import content_words
from research_studio.core.records import (
    ErrorRecord,
    EvidenceRecord,
    ModelCallRecord,
    RunSummary,
    SourceRecord,
)
from research_studio.core.words import is_wide, keys, match_key
from research_studio.grounding.addressing import contact_data
from research_studio.grounding.printed import GroundedSection
from research_studio.grounding.quotes import escape_markdown
from research_studio.grounding.statements import GroundedReport


def source_index(sources: Sequence[SourceRecord]) -> dict[str, tuple[str, str]]:
    """sid -> (title, url), as citation repair needs it."""
    return {source["sid"]: (source["title"], source["url"]) for source in sources}


def token_totals(calls: Sequence[ModelCallRecord]) -> tuple[int, int]:
    """Prompt and completion tokens over the calls that reported them."""
    prompt = sum(call["prompt_tokens"] or 0 for call in calls)
    completion = sum(call["completion_tokens"] or 0 for call in calls)
    return prompt, completion


def build_metadata(
    state: Mapping[str, Any],
    summary: RunSummary,
    config: Configuration,
    *,
    search_provider: str,
    final_calls: Sequence[ModelCallRecord] = (),
    final_errors: Sequence[ErrorRecord] = (),
) -> dict[str, Any]:
    """The run's metadata, computed from state and the pipeline's summary (never from a model).

    `final_calls` and `final_errors` are the last node's own, not yet merged into state.
    """
    calls: list[ModelCallRecord] = [*state.get("llm_calls", []), *final_calls]
    prompt_tokens, completion_tokens = token_totals(calls)
    evidence: list[EvidenceRecord] = state.get("evidence", [])
    started = state.get("started_at") or time.time()
    metadata: dict[str, Any] = {
        "iterations": summary["iterations"],
        "stop_reason": state.get("stop_reason", ""),
        "coverage": round(float(summary["coverage"]), 3),
        "confidence": round(float(summary["confidence"]), 3),
        "sources_count": len(state.get("sources", [])),
        "evidence_count": len(evidence),
        "verified_quotes": sum(1 for item in evidence if item["quote_verified"]),
        "cited_sources": len(summary["cited_sources"]),
        "searches": len(state.get("searches_done", [])),
        "fetches": state.get("fetch_count", 0),
        "llm_calls": len(calls),
        "llm_calls_by_node": _count_by_node(calls),
        "llm_calls_failed": sum(1 for call in calls if not call["ok"]),
        "llm_faults_by_kind": _faults_by_kind(calls),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        **cost_figures(calls),
        "elapsed_s": round(time.time() - started, 3),
        "model": config.model,
        "fast_model": config.fast_model or config.model,
        "search_provider": search_provider,
        "grounding": summary["grounding"],
        **summary["figures"],
        "errors": [*state.get("errors", []), *final_errors],
    }
    metadata["budgets"] = budget_spend(config, metadata)
    return metadata


def cost_figures(calls: Sequence[ModelCallRecord]) -> dict[str, Any]:
    """Cost in USD of the calls, in all and by node; `cost_known` is False if a price is missing."""
    by_node: dict[str, float] = {}
    known = True
    for call in calls:
        cost = call.get("cost_usd")
        if cost is None:
            known = known and not call["prompt_tokens"]
            continue
        by_node[call["node"]] = round(by_node.get(call["node"], 0.0) + cost, 6)
    return {
        "cost_usd": round(sum(by_node.values()), 6),
        "cost_by_node": by_node,
        "cost_known": known,
    }


def budget_spend(config: Configuration, metadata: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Spend against each configured budget (limit None: no budget)."""
    return {
        "llm_calls": {"spent": metadata["llm_calls"], "limit": config.max_llm_calls},
        "tokens": {
            "spent": metadata["prompt_tokens"] + metadata["completion_tokens"],
            "limit": config.max_tokens,
        },
        "cost_usd": {"spent": metadata["cost_usd"], "limit": config.max_cost_usd},
        "wall_s": {"spent": metadata["elapsed_s"], "limit": config.max_wall_s},
    }


def _faults_by_kind(calls: Sequence[ModelCallRecord]) -> dict[str, int]:
    """Model calls that went wrong (failed, or were cut off and repaired), by what went wrong."""
    counts: dict[str, int] = {}
    for call in calls:
        kind = call.get("error_kind")
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _count_by_node(calls: Sequence[ModelCallRecord]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for call in calls:
        counts[call["node"]] = counts.get(call["node"], 0) + 1
    return counts


def result_document(output: Mapping[str, Any], *, pipeline: str) -> dict[str, Any]:
    """result.json, from the shared output schema only (no pipeline-specific keys)."""
    return {
        "query": output.get("query", ""),
        "pipeline": pipeline,
        "mode": output.get("mode", ""),
        "clarification": {
            "question": output.get("clarification_question", ""),
            "options": output.get("clarification_options", []),
            "answer": output.get("user_clarification", ""),
        },
        "report": output.get("report", ""),
        "sources": list(output.get("sources", [])),
        "evidence": list(output.get("evidence", [])),
        "claims": list(output.get("claims", [])),
        "statements": list(output.get("statements", [])),
        "metadata": dict(output.get("metadata", {})),
    }


# --- Does the report answer its question? (code decides, from the cited quotes) ---------------

ANSWER_COVERAGE = "answer_coverage"
NOT_ANSWERED_NOTICE = (
    "The sources read do not answer this question: the passages cited below do not mention "
    "{terms}. Read them as what was found, not as an answer."
)
# When the question's own terms are there but most research questions are left open.
QUESTIONS_OPEN_NOTICE = (
    "The sources read do not answer this question: the passages cited below leave most of its "
    "research questions unanswered (listed at the end). Read them as what was found, not as an "
    "answer."
)
QUESTIONS_HEADING = "Research questions"
ANSWERED, NOT_ANSWERED = "answered by cited statements", "not answered by the sources read"


class QuestionAnswer(TypedDict):
    """Whether the cited quotes address one question's key terms, and which terms they miss."""

    question: str
    answered: bool
    missing_terms: list[str]


class AnswerCoverage(TypedDict):
    """The report's coverage of its question and of each research question."""

    answered: bool
    missing_terms: list[str]
    questions_asked: list[str]
    questions: list[QuestionAnswer]


def _stem(word: str) -> str:
    """A crude stem, so "roofs", "cooling" and "heated" meet "roof", "cool" and "heat"."""
    return word[: max(4, len(word) - 3)] if len(word) > 5 else word


def _found(term: str, words: set[str]) -> bool:
    """A question's term among the quotes' words (match keys): by its stem, or inside a run of a
    script written without spaces."""
    key = match_key(term)
    if is_wide(key):
        return any(key in word for word in words)
    if len(key) <= 2:  # "uv" is no stem: the word itself, never the start of another
        return key in words
    return any(word.startswith(_stem(key)) for word in words)


def _answer(question: str, words: set[str]) -> QuestionAnswer:
    terms = content_words(question)
    missing = [term for term in terms if not _found(term, words)]
    # Most key terms must be there: "python" asked of urban-heat pages has none of its one term.
    answered = bool(terms) and len(missing) * 2 <= len(terms) and len(missing) < len(terms)
    return QuestionAnswer(question=question, answered=answered, missing_terms=missing)


def question_coverage(
    query: str, questions: Sequence[str], records: Iterable[Mapping[str, Any]]
) -> AnswerCoverage:
    """Whether the cited quotes of the printed statements address the question's key terms.

    No cited statement answers nothing: zero statements never count as coverage.
    """
    words = _quote_words(record for record in records if record.get("sids"))
    main = _answer(query, words)
    asked = [question for question in dict.fromkeys(questions) if question.strip()]
    answers = [_answer(question, words) for question in asked]
    # One verdict for every face: the question is answered when its own key terms are there
    # and most of its research questions are answered too, so the table never says otherwise.
    return AnswerCoverage(
        answered=main["answered"] and not _mostly_open(answers),
        missing_terms=main["missing_terms"],
        questions_asked=asked,
        questions=answers,
    )


def _mostly_open(answers: Sequence[QuestionAnswer]) -> bool:
    return sum(1 for item in answers if not item["answered"]) * 2 > len(answers)


def answer_line(answered: bool | None, asked: int = 0, unanswered: int = 0) -> str:
    """The verdict on the question in one line, as the CLI, the audit, MCP and the web page all
    print it: answered or not, and how many of the research questions cited statements answer."""
    if answered is None:
        return "whether the question is answered is not known"
    said = (
        "the cited sources address the question"
        if answered
        else "the sources read do not answer the question"
    )
    if asked:
        plural = "s" if asked != 1 else ""
        said += f" ({asked - unanswered} of {asked} research question{plural} answered)"
    return said


def coverage_line(grounding: Mapping[str, Any]) -> str:
    """`answer_line` of a run's grounding figures (result.json's metadata)."""
    coverage = grounding.get(ANSWER_COVERAGE) or {}
    questions = list(coverage.get("questions") or [])
    return answer_line(
        grounding.get("question_answered"),
        len(questions),
        sum(1 for item in questions if not item.get("answered")),
    )


def coverage_notice(coverage: AnswerCoverage, language: str = "en") -> str:
    """The plain notice a report opens with when its sources do not answer the question, in the
    report's language."""
    if coverage["answered"]:
        return ""
    missing = coverage["missing_terms"]
    if not missing and _mostly_open(coverage["questions"]):
        return localized(QUESTIONS_OPEN_NOTICE, language)
    terms = ", ".join(f'"{escape_markdown(term)}"' for term in missing)
    return localized(NOT_ANSWERED_NOTICE, language).format(
        terms=terms or localized("its key terms", language)
    )


def questions_section(
    coverage: AnswerCoverage,
    heading: str = QUESTIONS_HEADING,
    *,
    bullets: bool = False,
    language: str = "en",
) -> str:
    """Code-written: each research question and whether cited statements answer it, as a table
    (or as bullets, in a bullet-point report), labelled in the report's language."""
    if not coverage["questions"]:
        return ""
    answered, unanswered = localized(ANSWERED, language), localized(NOT_ANSWERED, language)
    answers = [
        (escape_markdown(item["question"]), answered if item["answered"] else unanswered)
        for item in coverage["questions"]
    ]
    if bullets:
        return f"## {heading}\n\n" + "\n".join(f"- {q}: {a}" for q, a in answers)
    rows = "\n".join(f"| {question} | {answer} |" for question, answer in answers)
    question, answer = localized("Question", language), localized("Answer", language)
    return f"## {heading}\n\n| {question} | {answer} |\n|---|---|\n{rows}"


def unanswered_section(coverage: AnswerCoverage, heading: str, language: str = "en") -> str:
    """The research questions the cited statements leave open (code-written "Remaining gaps")."""
    open_questions = [item["question"] for item in coverage["questions"] if not item["answered"]]
    if not open_questions:
        return ""
    unanswered = localized(NOT_ANSWERED, language)
    return f"## {heading}\n\n" + "\n".join(
        f"- {escape_markdown(question)}: {unanswered}" for question in open_questions
    )


def report_grounding(figures: Mapping[str, object], coverage: AnswerCoverage) -> dict[str, object]:
    """The grounding figures with the answer coverage beside them (citations ≠ answered)."""
    grounding = dict(figures)
    if not grounding.get("cited_statements"):
        grounding["citation_coverage"] = 0.0  # nothing cited is not 100 % cited
    grounding[ANSWER_COVERAGE] = dict(coverage)
    grounding["question_answered"] = coverage["answered"]
    return grounding


# --- What the report prints around its statements: all of it written by code --------------------

ABOUT_HEADING = "About this report"
CODE_HEADINGS = frozenset(
    {ABOUT_HEADING, "Summary", "Conclusion", "Verified Findings", "Other findings", "Findings"}
)


def report_title(query: str) -> str:
    """A report's title: the question itself (never model prose), as one literal line."""
    return escape_markdown(query) or "Research report"


def _heading_holds(heading: str, records: Sequence[Mapping[str, Any]], title: str) -> bool:
    """A heading stays when it is no address, does not repeat the title, and its section's cited
    quotes carry most of its key terms."""
    if contact_data(heading) or " ".join(heading.lower().split()) == " ".join(
        title.lower().split()
    ):
        return False
    return _answer(heading, _quote_words(records))["answered"]


def _quote_words(records: Iterable[Mapping[str, Any]]) -> set[str]:
    """The match keys of every word the records' quotes hold."""
    return keys(
        str(quote.get("quote", "")) for record in records for quote in record.get("quotes", [])
    )


def checked_headings(report: GroundedReport, questions: Sequence[str], title: str) -> int:
    """Headings from the research questions, or checked against their section's cited quotes.

    A heading that fails becomes the research question its quotes address best (else
    "Findings"). Returns how many headings were replaced.
    """
    replaced = 0
    asked = [question for question in questions if question.strip()]
    for section in report.sections:
        if section.heading in CODE_HEADINGS or section.heading in asked:
            continue
        records = section.records()
        if _heading_holds(section.heading, records, title):
            continue
        words = _quote_words(records)
        answering = [q for q in asked if _answer(q, words)["answered"] and q != title]
        section.heading = escape_markdown(answering[0]) if answering else "Findings"
        replaced += 1
    merged: dict[str, GroundedSection] = {}
    for section in report.sections:  # renamed sections that now share a heading become one
        kept = merged.setdefault(section.heading, section)
        if kept is not section:
            kept.paragraphs += section.paragraphs
            kept.bullets += section.bullets
            kept.intro = kept.intro or section.intro
    report.sections = list(merged.values())
    return replaced


def open_with_notice(report: GroundedReport, notice: str) -> None:
    """A code-written notice (escaped by its writer) at the top of the report: the summary
    moves below it, as a section. Later notices go above earlier ones."""
    if not notice:
        return
    if report.summary:
        summary = GroundedSection(heading="Summary", paragraphs=[report.summary])
        report.sections.insert(0, summary)
        report.summary = []
    about = next((s for s in report.sections if s.heading == ABOUT_HEADING), None)
    if about is None:
        about = GroundedSection(heading=ABOUT_HEADING)
    report.sections = [about, *(s for s in report.sections if s is not about)]
    about.intro = f"{notice}\n\n{about.intro}" if about.intro else notice


def close_report(
    report: GroundedReport,
    structure: ReportStructure,
    *,
    query: str,
    questions: Sequence[str],
    language: str,
) -> AnswerCoverage:
    """Code's part of every report: checked headings, the coverage notice and question list.

    Call it after the statements are final and before rendering.
    """
    report.title = report_title(query)
    checked_headings(report, questions, query)
    coverage = question_coverage(query, questions, report.printed(structure))
    open_with_notice(report, coverage_notice(coverage, language))
    listing = questions_section(
        coverage,
        localized(QUESTIONS_HEADING, language),
        bullets=structure == "bullet_points",
        language=language,
    )
    if listing:
        report.appendix.insert(0, listing)
    return coverage


def count_note(
    report: GroundedReport, template: str, structure: ReportStructure, sources_read: int
) -> None:
    """The "About this report" note, counted from what the report prints (so "5 of 9 sources"
    agrees with the Sources list), once its statements are final."""
    printed = report.printed(structure)
    cited = {sid for record in printed for sid in record["sids"]}
    note = template.format(
        passages=sum(1 for record in printed if record["sids"]),
        used=len(cited),
        sources=sources_read,
    )
    about = next((s for s in report.sections if s.heading == ABOUT_HEADING), None)
    if about is None:
        report.sections.insert(0, GroundedSection(heading=ABOUT_HEADING, intro=note))
    else:
        about.intro = note

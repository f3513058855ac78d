"""Ten deterministic checks of a run's result.json: structure, citations, metadata, evidence."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from research_studio.core.words import words
from research_studio.evaluation.verdicts import Check, verdict
from research_studio.grounding.quotes import strip_sources_section

Document = Mapping[str, Any]
StructuralCheck = Callable[[Document], Check]

MIN_WORDS = 200
_CITATION = re.compile(r"\[(S\d+)\]")
_LISTED = re.compile(r"^\s*[-*]\s*\[(S\d+)\]", re.MULTILINE)
_INT, _NUMBER = (int,), (int, float)
# Metadata every run records (report.build_metadata), with the type each must have.
METADATA_FIELDS: dict[str, tuple[type, ...]] = {
    "iterations": _INT,
    "stop_reason": (str,),
    "coverage": _NUMBER,
    "confidence": _NUMBER,
    "sources_count": _INT,
    "evidence_count": _INT,
    "verified_quotes": _INT,
    "cited_sources": _INT,
    "searches": _INT,
    "fetches": _INT,
    "llm_calls": _INT,
    "llm_calls_by_node": (dict,),
    "llm_calls_failed": _INT,
    "prompt_tokens": _INT,
    "completion_tokens": _INT,
    "elapsed_s": _NUMBER,
    "model": (str,),
    "search_provider": (str,),
    "grounding": (dict,),
    "errors": (list,),
}


def report_text(document: Document) -> str:
    """The report, '' when it is missing or not text."""
    report = document.get("report")
    return report if isinstance(report, str) else ""


def report_body(document: Document) -> str:
    """The report without its Sources section."""
    return strip_sources_section(report_text(document))


def report_prose(document: Document) -> str:
    """The report body without its title: the title repeats the query, so it proves nothing."""
    lines = report_body(document).splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start < len(lines) and lines[start].lstrip().startswith("# "):
        lines = lines[start + 1 :]
    return "\n".join(lines)


def word_count(text: str) -> int:
    """Words in prose, with markdown markers and citation markers left out."""
    return len(words(_CITATION.sub(" ", text.replace("#", " "))))


def _records(document: Document, key: str) -> list[Any]:
    value = document.get(key)
    return value if isinstance(value, list) else []


def _source_ids(document: Document) -> set[str]:
    return {
        source["sid"]
        for source in _records(document, "sources")
        if isinstance(source, Mapping) and isinstance(source.get("sid"), str)
    }


def _filled(record: Any, key: str) -> bool:
    return (
        isinstance(record, Mapping)
        and isinstance(record.get(key), str)
        and bool(record[key].strip())
    )


def _listing(problems: Sequence[str], limit: int = 5) -> str:
    more = f" (+{len(problems) - limit} more)" if len(problems) > limit else ""
    return "; ".join(problems[:limit]) + more


def _headed_sections(text: str) -> list[tuple[str, list[str]]]:
    """('## ' heading, its non-empty lines) for each second-level section."""
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if re.match(r"##\s+\S", line):
            sections.append((line[2:].strip(), []))
        elif sections and line.strip():
            sections[-1][1].append(line)
    return sections


def _is_source_list(lines: list[str]) -> bool:
    """A section that only lists sources ([S<n>] entries), whatever its heading's language."""
    return bool(lines) and all(_LISTED.match(line) for line in lines)


def check_report_has_markdown_structure(document: Document) -> Check:
    """A '# ' title first, at least one '## ' section, and a Sources section listing sources."""
    name = "report_has_markdown_structure"
    text = report_text(document)
    lines = [line for line in text.splitlines() if line.strip()]
    missing = []
    if not lines or not re.match(r"#\s+\S", lines[0]):
        missing.append("a '# ' title on the first line")
    sections = _headed_sections(text)
    content = [heading for heading, body in sections if not _is_source_list(body)]
    if not content:
        missing.append("a '## ' section")
    if not any(_is_source_list(body) for _heading, body in sections):
        missing.append("a Sources section listing [S<n>] entries")
    if missing:
        return verdict(name, "structural", False, "missing " + ", ".join(missing))
    return verdict(
        name, "structural", True, f"title, {len(content)} section(s) and a Sources section"
    )


def check_citations_present(document: Document) -> Check:
    """The report body cites at least one source ([S<n>])."""
    cited = set(_CITATION.findall(report_body(document)))
    if not cited:
        return verdict("citations_present", "structural", False, "no [S<n>] marker in the report")
    return verdict(
        "citations_present", "structural", True, f"{len(cited)} distinct source(s) cited"
    )


def check_citations_map_to_sources(document: Document) -> Check:
    """Every [S<n>] in the report, body or Sources section, names a source of the run."""
    known = _source_ids(document)
    text = report_text(document)
    cited = list(dict.fromkeys(_CITATION.findall(text)))
    unknown = [sid for sid in cited if sid not in known]
    if unknown:
        return verdict(
            "citations_map_to_sources",
            "structural",
            False,
            f"cites {', '.join(unknown)} but the run has only {len(known)} source(s)",
            unknown=unknown,
        )
    return verdict(
        "citations_map_to_sources",
        "structural",
        True,
        f"all {len(cited)} cited id(s) are among {len(known)} source(s)",
    )


def check_metadata_complete(document: Document) -> Check:
    """Every metadata field a run records is there, with the right type."""
    metadata = document.get("metadata")
    if not isinstance(metadata, Mapping):
        return verdict("metadata_complete", "structural", False, "metadata is missing")
    problems = []
    for key, types in METADATA_FIELDS.items():
        if key not in metadata:
            problems.append(f"{key} missing")
        elif isinstance(metadata[key], bool) or not isinstance(metadata[key], types):
            wanted = " or ".join(kind.__name__ for kind in types)
            problems.append(f"{key} is {type(metadata[key]).__name__}, not {wanted}")
    if problems:
        return verdict("metadata_complete", "structural", False, _listing(problems))
    return verdict(
        "metadata_complete", "structural", True, f"{len(METADATA_FIELDS)} fields, well typed"
    )


def check_evidence_populated(document: Document) -> Check:
    """The run collected evidence."""
    count = len(_records(document, "evidence"))
    if not count:
        return verdict("evidence_populated", "structural", False, "the evidence list is empty")
    return verdict("evidence_populated", "structural", True, f"{count} evidence item(s)")


def _bounded_scores(document: Document) -> list[tuple[str, Any]]:
    metadata = document.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    scores: list[tuple[str, Any]] = [
        (key, metadata[key])
        for key in ("coverage", "confidence", "overall_confidence", "hallucination_score")
        if key in metadata
    ]
    grounding = metadata.get("grounding")
    if isinstance(grounding, Mapping) and "citation_coverage" in grounding:
        scores.append(("grounding.citation_coverage", grounding["citation_coverage"]))
    for claim in _records(document, "claims"):
        if isinstance(claim, Mapping):
            scores += [
                (f"{claim.get('cid', '?')}.{key}", claim[key])
                for key in ("confidence", "span_match")
                if key in claim
            ]
    for source in _records(document, "sources"):
        if isinstance(source, Mapping) and "credibility" in source:
            scores.append((f"{source.get('sid', '?')}.credibility", source["credibility"]))
    return scores


def check_scores_in_bounds(document: Document) -> Check:
    """Coverage, confidence and every other 0–1 score lie in [0, 1]."""
    scores = _bounded_scores(document)
    if not scores:
        return verdict("scores_in_bounds", "structural", False, "no coverage or confidence found")
    bad = [
        f"{name}={value!r}"
        for name, value in scores
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1
    ]
    if bad:
        return verdict("scores_in_bounds", "structural", False, "out of [0, 1]: " + _listing(bad))
    return verdict("scores_in_bounds", "structural", True, f"{len(scores)} score(s) in [0, 1]")


def check_report_minimum_length(document: Document, min_words: int = MIN_WORDS) -> Check:
    """The report body has at least `min_words` words."""
    words = word_count(report_body(document))
    passed = words >= min_words
    relation = "at least" if passed else "fewer than"
    return verdict(
        "report_minimum_length",
        "structural",
        passed,
        f"{words} words, {relation} {min_words}",
        words=words,
    )


def _lacking(records: list[Any], id_key: str, keys: Sequence[str]) -> list[str]:
    """'<id> lacks <keys>' for each record with an unfilled key (its position when it has no id)."""
    problems = []
    for index, record in enumerate(records, 1):
        if missing := [key for key in keys if not _filled(record, key)]:
            name = record.get(id_key, f"#{index}") if isinstance(record, Mapping) else f"#{index}"
            problems.append(f"{name} lacks {', '.join(missing)}")
    return problems


def check_evidence_fields(document: Document) -> Check:
    """Every evidence item has its fact, quote, source id, source URL and source title."""
    evidence = _records(document, "evidence")
    problems = _lacking(evidence, "eid", ("text", "quote", "sid", "url", "title"))
    if not evidence:
        return verdict("evidence_fields", "structural", False, "no evidence to check")
    if problems:
        return verdict("evidence_fields", "structural", False, _listing(problems))
    return verdict(
        "evidence_fields", "structural", True, f"{len(evidence)} item(s) with fact, quote, source"
    )


def check_sources_have_urls(document: Document) -> Check:
    """Every source has an id, a URL and a title."""
    sources = _records(document, "sources")
    problems = _lacking(sources, "sid", ("sid", "url", "title"))
    if not sources:
        return verdict("sources_have_urls", "structural", False, "the run has no sources")
    if problems:
        return verdict("sources_have_urls", "structural", False, _listing(problems))
    return verdict("sources_have_urls", "structural", True, f"{len(sources)} source(s) complete")


def check_no_empty_report(document: Document) -> Check:
    """The report is not empty or whitespace."""
    if not report_text(document).strip():
        return verdict("no_empty_report", "structural", False, "the report is empty")
    return verdict("no_empty_report", "structural", True, "the report has text")


STRUCTURAL_CHECKS: tuple[StructuralCheck, ...] = (
    check_report_has_markdown_structure,
    check_citations_present,
    check_citations_map_to_sources,
    check_metadata_complete,
    check_evidence_populated,
    check_scores_in_bounds,
    check_report_minimum_length,
    check_evidence_fields,
    check_sources_have_urls,
    check_no_empty_report,
)


def structural_checks(document: Document, *, min_words: int = MIN_WORDS) -> list[Check]:
    """All ten structural checks of one result document."""
    checks = [
        check(document) for check in STRUCTURAL_CHECKS if check is not check_report_minimum_length
    ]
    checks.insert(6, check_report_minimum_length(document, min_words))
    return checks

"""Re-checking a finished run from its folder alone: citations, quotes, numbers, cross-validation."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from research_studio.core.errors import ResearchStudioError
from research_studio.grounding.quotes import (
    quote_in_text,
    strip_sources_section,
    unsupported_numbers,
)
from research_studio.grounding.statements import cited_segments, statement_finder
from research_studio.grounding.verification import CROSS_VALIDATION_SOURCES, verifying_sources
from research_studio.run.runs import REPORT_FILE, RESULT_FILE
from research_studio.sources.archive import kept_page_path

Verdict = Literal["holds", "fails"]
_LISTED_SOURCE = re.compile(r"^- \[(S\d+)\]", re.MULTILINE)
_MARKER = re.compile(r"\[(S\d+)\]")


class StatementCheck(BaseModel):
    """The verdict on one cited statement of the report."""

    statement: str
    sources: list[str]
    verdict: Verdict
    why: str


class ClaimAudit(BaseModel):
    """The verdict on one cross-validated (✓✓) claim."""

    cid: str
    claim: str
    verifying_sources: list[str]
    verdict: Verdict
    why: str


class AuditReport(BaseModel):
    """Everything the audit checked, and whether all of it holds."""

    run: str
    ok: bool
    statements: list[StatementCheck] = Field(default_factory=list)
    claims: list[ClaimAudit] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    def summary(self) -> str:
        held = sum(1 for check in self.statements if check.verdict == "holds")
        claims_held = sum(1 for claim in self.claims if claim.verdict == "holds")
        verdict = "all checks hold" if self.ok else "FAILED"
        return (
            f"audit {verdict}: {held}/{len(self.statements)} cited statements hold, "
            f"{claims_held}/{len(self.claims)} cross-validated claims hold, "
            f"{len(self.problems)} other problem(s)"
        )


class _Run:
    """What the audit reads from a run folder."""

    def __init__(self, path: Path) -> None:
        report_file, result_file = path / REPORT_FILE, path / RESULT_FILE
        if not report_file.is_file() or not result_file.is_file():
            raise ResearchStudioError(f"{path} has no finished report to audit")
        try:
            self.result: dict[str, Any] = json.loads(result_file.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ResearchStudioError(f"{result_file} is damaged: {exc}") from exc
        self.path = path
        self.report = report_file.read_text(encoding="utf-8")
        self.sources = {source["sid"]: source for source in self.result.get("sources", [])}
        self.evidence = {item["eid"]: item for item in self.result.get("evidence", [])}
        self._pages: dict[str, str | None] = {}

    def page(self, sid: str) -> str | None:
        if sid not in self._pages:
            file = kept_page_path(self.path, sid)
            self._pages[sid] = file.read_text(encoding="utf-8") if file.is_file() else None
        return self._pages[sid]


def _citation_problems(run: _Run, body: str) -> list[str]:
    problems = []
    cited = list(dict.fromkeys(_MARKER.findall(body)))
    listed = _LISTED_SOURCE.findall(run.report[len(body) :])
    for sid in cited:
        if sid not in run.sources:
            problems.append(f"[{sid}] is cited but the run has no such source")
        elif sid not in listed:
            problems.append(f"[{sid}] is cited but missing from the Sources section")
        elif run.page(sid) is None:
            problems.append(f"[{sid}] is cited but its page text was not kept")
    problems += [
        f"[{sid}] is listed in Sources but never cited" for sid in listed if sid not in cited
    ]
    return problems


def _check_record(run: _Run, record: Mapping[str, Any], sids: list[str]) -> tuple[Verdict, str]:
    if sids != record["sids"]:
        return "fails", (
            f"cites {', '.join(sids)} but its evidence is in {', '.join(record['sids'])}"
        )
    for quote in record["quotes"]:
        page = run.page(quote["sid"])
        if page is None:
            return "fails", f"the page of {quote['sid']} was not kept"
        if not quote_in_text(quote["quote"], page):
            return "fails", f'quote not found in {quote["sid"]}: "{quote["quote"][:60]}…"'
    numbers = unsupported_numbers(record["text"], (quote["quote"] for quote in record["quotes"]))
    if numbers:
        return "fails", f"numbers not in its quotes: {', '.join(numbers)}"
    return "holds", f"{len(record['quotes'])} quote(s) found verbatim in the kept pages"


def _check_statements(run: _Run, body: str) -> list[StatementCheck]:
    records = [record for record in run.result.get("statements", []) if record.get("sids")]
    find = statement_finder(records)
    checks = []
    for text, sids in cited_segments(body):
        found = find(text)
        if found is None:
            quotes = [
                quote["quote"]
                for record in records
                for quote in record["quotes"]
                if quote["sid"] in sids
            ]
            numbers = unsupported_numbers(text, quotes)
            why = "not a statement this run wrote (edited by hand?)"
            if numbers:
                why += f"; numbers not in the cited sources: {', '.join(numbers)}"
            verdict: Verdict = "fails"
        else:
            verdict, why = _check_record(run, found[1], sids)
        checks.append(StatementCheck(statement=text, sources=sids, verdict=verdict, why=why))
    return checks


def _check_claims(run: _Run) -> list[ClaimAudit]:
    audits = []
    for claim in run.result.get("claims", []):
        if not claim.get("cross_validated"):
            continue
        quotes_by_sid: dict[str, list[str]] = {}
        for eid in claim.get("supporting_eids", []):
            item = run.evidence.get(eid)
            page = run.page(item["sid"]) if item else None
            if item and page is not None and quote_in_text(item["quote"], page):
                quotes_by_sid.setdefault(item["sid"], []).append(item["quote"])
        sids, _score = verifying_sources(
            claim.get("evidence_span", ""), claim.get("text", ""), quotes_by_sid
        )
        holds = len(sids) >= CROSS_VALIDATION_SOURCES
        audits.append(
            ClaimAudit(
                cid=claim["cid"],
                claim=claim["text"],
                verifying_sources=sids,
                verdict="holds" if holds else "fails",
                why=f"{len(sids)} distinct source(s) whose kept quotes match the claim",
            )
        )
    return audits


def audit_run(path: Path) -> AuditReport:
    """Every check of the run folder; `ok` only when all of them hold."""
    run = _Run(path)
    body = strip_sources_section(run.report)
    problems = _citation_problems(run, body)
    statements = _check_statements(run, body)
    claims = _check_claims(run)
    if not statements and run.result.get("sources"):
        problems.append("the report cites nothing")
    ok = (
        not problems
        and all(check.verdict == "holds" for check in statements)
        and all(claim.verdict == "holds" for claim in claims)
    )
    return AuditReport(
        run=str(path), ok=ok, statements=statements, claims=claims, problems=problems
    )


def audit_rows(report: AuditReport) -> Sequence[tuple[str, str, str, str]]:
    """(statement, sources, verdict, why) rows for a table."""
    return [
        (check.statement, ", ".join(check.sources), check.verdict, check.why)
        for check in report.statements
    ]

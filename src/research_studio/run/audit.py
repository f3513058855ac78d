"""Re-checking a finished run from its folder alone, with code of its own (not the writer's).

Three kinds of check, all on the folder:
- the seal (`manifest.json`): every line of report.md is the line the run printed (code-written
  text by hash, statement lines by the ids of the statements they print, in any order within the
  line); every record of result.json and every kept page text has the hash it had;
- the grounding of each printed statement, by id: each cited source has a quote that is one
  contiguous span of its kept page text, and every figure of the statement is in its quotes;
- cross-validation (✓✓): at least two sources, each with such a quote carrying the claim's figures.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from research_studio.core.errors import ResearchStudioError
from research_studio.core.words import words as words_of_text
from research_studio.pipelines.kit.report import ANSWER_COVERAGE, answer_line, question_coverage
from research_studio.run.audit_checks import clip, figures, folded, quote_on_page
from research_studio.run.audit_files import AuditedRun
from research_studio.run.audit_seal import seal_problems
from research_studio.run.manifest import MANIFEST_FILE
from research_studio.sources.fetch import Fetcher

Verdict = Literal["holds", "fails"]
CROSS_VALIDATION_SOURCES = 2
_LISTED_SOURCE = re.compile(r"^- \[(S\d+)\]", re.MULTILINE)
_MARKER = re.compile(r"\[(S\d+)\]")


class StatementCheck(BaseModel):
    """The verdict on one printed statement of the report, found by its id."""

    tid: str = ""
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


class SourceDrift(BaseModel):
    """How a source's page today compares with the text the run kept (`audit --live`)."""

    sid: str
    url: str
    status: Literal["same", "changed", "quotes_gone", "unreachable", "not_kept"]
    detail: str = ""


class AuditReport(BaseModel):
    """Everything the audit checked, whether it all holds, and whether the question is answered."""

    run: str
    ok: bool
    statements: list[StatementCheck] = Field(default_factory=list)
    claims: list[ClaimAudit] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    answered: bool | None = None
    asked: list[str] = Field(default_factory=list, description="The research questions.")
    unanswered: list[str] = Field(default_factory=list)
    drift: list[SourceDrift] = Field(default_factory=list)

    def summary(self) -> str:
        held = sum(1 for check in self.statements if check.verdict == "holds")
        claims_held = sum(1 for claim in self.claims if claim.verdict == "holds")
        verdict = "all checks hold" if self.ok else "FAILED"
        answer = answer_line(self.answered, len(self.asked), len(self.unanswered))
        return (
            f"audit {verdict}: {held}/{len(self.statements)} cited statements hold, "
            f"{claims_held}/{len(self.claims)} cross-validated claims hold, "
            f"{len(self.problems)} other problem(s); {answer}"
        )


def _citation_problems(run: AuditedRun, body: str, tail: str) -> list[str]:
    problems = []
    cited = list(dict.fromkeys(_MARKER.findall(body)))
    listed = _LISTED_SOURCE.findall(tail)
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


def _grounding(
    run: AuditedRun, record: Mapping[str, Any], printed: str | None
) -> tuple[Verdict, str]:
    """Whether a printed statement stands on its kept quotes (own checks, no writer code)."""
    sids = [str(sid) for sid in record.get("sids", [])]
    if printed is not None:
        marks = _MARKER.findall(printed)
        if marks != sids:
            return (
                "fails",
                f"printed with {', '.join(marks) or 'no citation'} but its record cites {', '.join(sids)}",
            )
        words = words_of_text(folded(_MARKER.sub("", printed)))
        if words != words_of_text(folded(str(record.get("text", "")))):
            return "fails", "the printed words differ from the statement's record"
    quotes: list[Mapping[str, Any]] = list(record.get("quotes", []))
    for sid in sids:
        own = [quote for quote in quotes if quote.get("sid") == sid]
        if not own:
            return "fails", f"cites {sid} without a quote of it"
        page = run.page(sid)
        if page is None:
            return "fails", f"the page text of {sid} was not kept"
        for quote in own:
            if not quote_on_page(str(quote.get("quote", "")), page):
                return (
                    "fails",
                    f'quote not on the kept page of {sid}: "{str(quote.get("quote"))[:60]}…"',
                )
    if any(quote.get("sid") not in sids for quote in quotes):
        return "fails", "rests on a quote of a source it does not cite"
    missing = figures(str(record.get("text", ""))) - set().union(
        *(figures(str(quote.get("quote", ""))) for quote in quotes)
    )
    if missing:
        return "fails", f"figures not in its quotes: {', '.join(sorted(missing))}"
    return "holds", f"{len(quotes)} quote(s) found as contiguous spans of the kept pages"


def _check_statements(run: AuditedRun, manifest: Mapping[str, Any] | None) -> list[StatementCheck]:
    """Each printed, cited statement by id (every cited record when there is no seal)."""
    if manifest is not None:
        sealed: Mapping[str, Any] = manifest.get("statements", {})
        tids = [tid for entry in manifest.get("layout", []) for tid in entry.get("statements", [])]
        printed = {tid: sealed.get(tid, {}).get("printed") for tid in tids}
    else:
        printed = {tid: None for tid in run.records}
    checks = []
    for tid, form in printed.items():
        record = run.records.get(tid)
        if record is None:
            checks.append(
                StatementCheck(
                    tid=tid,
                    statement=str(form or ""),
                    sources=[],
                    verdict="fails",
                    why="its record is missing from result.json",
                )
            )
            continue
        if not record.get("sids"):
            continue
        verdict, why = _grounding(run, record, form)
        checks.append(
            StatementCheck(
                tid=tid,
                statement=str(record.get("text", "")),
                sources=list(record["sids"]),
                verdict=verdict,
                why=why,
            )
        )
    return checks


def _check_claims(run: AuditedRun) -> list[ClaimAudit]:
    """Each ✓✓ claim: two distinct sources, each with a kept quote that carries its figures."""
    audits = []
    for claim in run.result.get("claims", []):
        if not claim.get("cross_validated"):
            continue
        needed = figures(str(claim.get("text", "")))
        sids: list[str] = []
        for eid in claim.get("supporting_eids", []):
            item = run.evidence.get(eid)
            if not item or item["sid"] in sids:
                continue
            page = run.page(item["sid"])
            quote = str(item.get("quote", ""))
            if page is not None and quote_on_page(quote, page) and needed <= figures(quote):
                sids.append(item["sid"])
        holds = len(sids) >= CROSS_VALIDATION_SOURCES
        audits.append(
            ClaimAudit(
                cid=claim["cid"],
                claim=claim["text"],
                verifying_sources=sids,
                verdict="holds" if holds else "fails",
                why=f"{len(sids)} distinct source(s) whose kept quote carries the claim's figures",
            )
        )
    return audits


def _split_sources(report: str) -> tuple[str, str]:
    """(body, Sources section) of the report: the section is the last one listing `- [S<n>]`."""
    headings = [match.start() for match in re.finditer(r"^## ", report, re.MULTILINE)]
    for start in reversed(headings):
        if _LISTED_SOURCE.search(report[start:]):
            return report[:start], report[start:]
    return report, ""


def audit_run(path: Path) -> AuditReport:
    """Every check of the run folder; `ok` only when all of them hold."""
    run = AuditedRun(path)
    body, tail = _split_sources(run.report)
    problems = _citation_problems(run, body, tail)
    if run.manifest is None:
        problems.append(f"no {MANIFEST_FILE}: edits of this run's outputs cannot be detected")
    else:
        problems += seal_problems(run, run.manifest)
    statements = _check_statements(run, run.manifest)
    claims = _check_claims(run)
    if not statements and run.result.get("sources"):
        problems.append("the report cites nothing")
    grounding = run.result.get("metadata", {}).get("grounding") or {}
    coverage = question_coverage(
        str(run.result.get("query", "")),
        list((grounding.get(ANSWER_COVERAGE) or {}).get("questions_asked", [])),
        [run.records[check.tid] for check in statements if check.verdict == "holds"],
    )
    ok = (
        not problems
        and all(check.verdict == "holds" for check in statements)
        and all(claim.verdict == "holds" for claim in claims)
    )
    return AuditReport(
        run=str(path),
        ok=ok,
        statements=statements,
        claims=claims,
        problems=problems,
        answered=coverage["answered"],
        asked=coverage["questions_asked"],
        unanswered=[item["question"] for item in coverage["questions"] if not item["answered"]],
    )


async def live_drift(path: Path, fetcher: Fetcher) -> list[SourceDrift]:
    """Each cited source's page fetched again and compared with the text the run kept."""
    run = AuditedRun(path)
    cited = list(dict.fromkeys(str(sid) for r in run.records.values() for sid in r.get("sids", [])))
    quotes: dict[str, list[str]] = {}
    for record in run.records.values():
        for quote in record.get("quotes", []):
            quotes.setdefault(str(quote.get("sid")), []).append(str(quote.get("quote", "")))

    async def one(sid: str) -> SourceDrift:
        url = str(run.sources.get(sid, {}).get("url", ""))
        kept = run.page(sid)
        if kept is None:
            return SourceDrift(sid=sid, url=url, status="not_kept", detail="no kept text")
        try:
            page = await fetcher.fetch(url)
        except ResearchStudioError as exc:
            return SourceDrift(sid=sid, url=url, status="unreachable", detail=str(exc))
        if folded(page.text) == folded(kept):
            return SourceDrift(sid=sid, url=url, status="same")
        gone = [quote for quote in quotes.get(sid, []) if not quote_on_page(quote, page.text)]
        if gone:
            return SourceDrift(
                sid=sid,
                url=url,
                status="quotes_gone",
                detail=f"{len(gone)} cited quote(s) no longer on the page: {clip(gone[0], 60)}",
            )
        return SourceDrift(
            sid=sid, url=url, status="changed", detail="the page changed; its cited quotes remain"
        )

    return list(await asyncio.gather(*(one(sid) for sid in cited)))


def audit_rows(report: AuditReport) -> Sequence[tuple[str, str, str, str, str]]:
    """(id, statement, sources, verdict, why) rows for a table."""
    return [
        (check.tid, check.statement, ", ".join(check.sources), check.verdict, check.why)
        for check in report.statements
    ]

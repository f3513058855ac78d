"""Constructed run outputs: a well-formed result.json and a run folder that passes the audit."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from research_studio.core.records import StatementRecord
from research_studio.evaluation.snapshots import RunOutput, SnapshotInfo, load_output, save_info
from research_studio.grounding.printed import rendered
from research_studio.run.runs import write_outputs

QUERY = "How do cool roofs and trees reduce urban heat?"
PAGES = {
    "S1": (
        "Cool Roofs: What the Evidence Shows",
        "https://example.org/cool-roofs",
        [
            "Cool roofs reflect most of the sunlight that reaches them and release the heat they absorb quickly.",
            "A conventional dark roof can reach temperatures far above the surrounding air on a sunny summer afternoon.",
            "In a pilot study, coated roofs lowered peak roof surface temperatures by an average of 26 degrees.",
            "Top-floor rooms under cool roofs stayed cooler in buildings that had no air conditioning at all.",
            "Buildings with air conditioning used 14 percent less cooling electricity than their matched controls.",
            "Reflective coatings lose part of their reflectance as dust and grime build up over several years.",
            "City programmes often require new low-slope roofs on commercial buildings to meet a reflectance standard.",
        ],
    ),
    "S2": (
        "Street Trees and Urban Canopy Cooling",
        "https://example.org/street-trees",
        [
            "Urban trees cool streets by shading surfaces and people from direct sunlight during the hottest hours.",
            "Leaves also cool the air through evapotranspiration, in which water evaporates and absorbs heat from the air.",
            "Shaded surfaces may be 11 to 25 degrees cooler than the peak temperatures of unshaded materials nearby.",
            "Neighbourhoods with more tree canopy tend to have lower afternoon air temperatures than treeless blocks.",
            "Young trees need watering and care for several years before their canopy provides much useful shade.",
            "Planting programmes often focus on the hottest neighbourhoods, where residents face the greatest heat risk.",
            "Trees also bring other benefits to cities, such as managing stormwater and improving the look of streets.",
        ],
    ),
}


def _statement(section: str, sid: str, text: str) -> StatementRecord:
    return StatementRecord(
        section=section,
        text=text,
        ids=[],
        sids=[sid],
        quotes=[{"sid": sid, "quote": text}],
        indicator="",
        kind="passage",
    )


def good_document() -> dict[str, Any]:
    """A result.json every structural check passes: cited report, sources, evidence, metadata."""
    sources, evidence, statements = [], [], []
    sections = {"S1": "How cool roofs lower temperatures", "S2": "How trees cool streets"}
    for sid, (title, url, sentences) in PAGES.items():
        sources.append(
            {
                "sid": sid,
                "url": url,
                "title": title,
                "snippet": sentences[0],
                "provider": "searxng",
                "published": None,
            }
        )
        for sentence in sentences:
            eid = f"E{len(evidence) + 1}"
            evidence.append(
                {
                    "eid": eid,
                    "sid": sid,
                    "url": url,
                    "title": title,
                    "text": sentence,
                    "quote": sentence,
                    "quote_verified": True,
                    "question": sections[sid],
                }
            )
            statements.append(_statement(sections[sid], sid, sentence))
    body = [f"# {QUERY}"]
    for sid, heading in sections.items():
        lines = [rendered(record) for record in statements if record["sids"] == [sid]]
        body += ["", f"## {heading}", "", *lines]
    listing = [f"- [{s['sid']}] {s['title']} — {s['url']}" for s in sources]
    report = "\n".join([*body, "", "## Sources", "", *listing]) + "\n"
    claims = [
        {
            "cid": f"C{number}",
            "text": item["text"],
            "section": item["question"],
            "supporting_eids": [item["eid"]],
            "supporting_sids": [item["sid"]],
            "evidence_span": item["quote"],
            "span_match": 1.0,
            "verified": number != 3,
            "cross_validated": False,
            "confidence": 0.9,
            "indicator": "✓",
        }
        for number, item in enumerate(evidence[:4], 1)
    ]
    metadata = {
        "iterations": 2,
        "stop_reason": "ready",
        "coverage": 0.8,
        "confidence": 0.75,
        "sources_count": len(sources),
        "evidence_count": len(evidence),
        "verified_quotes": len(evidence),
        "cited_sources": len(sources),
        "searches": 4,
        "fetches": 2,
        "llm_calls": 9,
        "llm_calls_by_node": {"plan": 1, "write_report": 1},
        "llm_calls_failed": 0,
        "prompt_tokens": 1200,
        "completion_tokens": 300,
        "elapsed_s": 1.5,
        "model": "scripted:default",
        "search_provider": "searxng",
        "grounding": {"citation_coverage": 1.0},
        "errors": [],
    }
    return {
        "query": QUERY,
        "pipeline": "standard",
        "mode": "multi",
        "clarification": {"question": "", "options": [], "answer": ""},
        "report": report,
        "sources": sources,
        "evidence": evidence,
        "claims": claims,
        "statements": statements,
        "metadata": metadata,
    }


def bad(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy with top-level keys replaced."""
    copied = copy.deepcopy(document)
    copied.update(changes)
    return copied


def write_run(
    folder: Path,
    document: dict[str, Any] | None = None,
    *,
    plan: list[str] | None = None,
    history: list[float] | None = None,
) -> RunOutput:
    """A finished run's folder (report.md, result.json, sources/S<n>.txt, eval.json)."""
    document = document or good_document()
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    for sid, (_title, _url, sentences) in PAGES.items():
        (folder / "sources" / f"{sid}.txt").write_text(" ".join(sentences), encoding="utf-8")
    # Written as a run writes them: statement ids and manifest.json, so the audit can check it.
    write_outputs(folder, document["report"], document)
    info = SnapshotInfo(
        case_id="constructed",
        pipeline="standard",
        query=document["query"],
        plan=plan
        if plan is not None
        else ["How do cool roofs lower temperatures?", "How do trees cool streets?"],
        coverage_history=history if history is not None else [0.5, 0.8],
    )
    save_info(folder, info)
    return load_output(folder)

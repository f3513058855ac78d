"""The full 7-node trust engine against the batched one: calls per node, identical verdicts, the ranker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced.graph import (
    build_trust_engine_graph,
    build_trust_engine_subgraph,
)
from research_studio.pipelines.advanced.trust_engine.ranker import follow_evidence, rank_sources
from research_studio.services.clients import open_services
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model

pytestmark = pytest.mark.e2e
TRUST_NODES = ("credibility_scorer", "claim_extractor", "cite", "span_verify", "cross_validate")
VERDICT = ("cid", "text", "verified", "cross_validated", "supporting_sids", "span_match")


def verdicts(claims: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (*(claim[key] for key in VERDICT), claim["confidence"], claim["indicator"])
        for claim in claims
    ]


SHARED = "Green roofs lowered the peak roof surface temperature by about 20 degrees in the trial."


def documents(folder: Path) -> Path:
    """Three documents; two state the same finding, so their quotes can cross-validate."""
    folder.mkdir()
    (folder / "trial.md").write_text(
        f"# Green roof trial\n\n{SHARED}\n\nGreen roofs hold rainwater in their soil layer for hours.\n"
    )
    (folder / "review.md").write_text(
        f"# Green roof review\n\n{SHARED}\n\nGreen roofs need a stronger structure to carry wet soil.\n"
    )
    (folder / "costs.md").write_text(
        "# Green roof costs\n\nGreen roofs cost more to install than plain membranes on flat roofs.\n"
    )
    return folder


async def test_the_full_engine_calls_once_per_node_and_reaches_the_batched_verdicts(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    # Varied verdicts: one span is fabricated, two sources state the same finding.
    script = ResearchScript(coverage=[0.9], ready=[True], fabricated_spans={2})
    model = script.model()
    config = make_config(
        model=use_scripted_model(model), search="local", docs=[documents(tmp_path / "docs")]
    )
    graph = build_trust_engine_graph(checkpointer=InMemorySaver(), interrupt_on_clarify=False)
    thread: Any = {"configurable": {"thread_id": "full"}}
    async with open_services(config):
        await graph.ainvoke({"query": "green roofs temperature trial"}, thread, context=config)
        final = dict((await graph.aget_state(thread)).values)
        history = [snapshot async for snapshot in graph.aget_state_history(thread)]
        before = next(s.values for s in history if s.next == ("credibility_scorer",))
        batched = await build_trust_engine_subgraph("single").ainvoke(dict(before), context=config)
        split = await build_trust_engine_subgraph("batched").ainvoke(dict(before), context=config)

    by_node = final["metadata"]["llm_calls_by_node"]
    assert all(by_node[node] == 1 for node in TRUST_NODES), by_node
    # Code decides: the ranker asks no model on a topic query, the confidence scorer never does.
    assert "ranker" not in by_node and "confidence_scorer" not in by_node
    claims = final["claims"]
    assert verdicts(claims) == verdicts(batched["claims"]) == verdicts(split["claims"])
    assert not claims[1]["verified"] and claims[1]["indicator"] == "⚠"
    assert any(c["cross_validated"] for c in claims) and any(c["indicator"] == "✓✓" for c in claims)
    assert final["hallucination_score"] == batched["hallucination_score"]
    assert final["overall_confidence"] == batched["overall_confidence"] > 0
    sections = {c["section"] for c in claims if c["verified"]}
    assert set(final["section_confidence"]) == sections
    assert final["metadata"]["verified_claims"] == sum(c["verified"] for c in claims)


async def test_the_ranker_drops_a_same_name_source_about_someone_else(
    make_config: Callable[..., Configuration],
) -> None:
    def source(sid: str, title: str, snippet: str) -> dict[str, Any]:
        return {
            "sid": sid,
            "url": f"https://example.org/{sid}",
            "title": title,
            "snippet": snippet,
            "provider": "searxng",
            "published": "2024-01-01",
        }

    def evidence(eid: str, sid: str) -> dict[str, Any]:
        text = f"Jane Roe fact number {eid} from source {sid} stated plainly here."
        return {
            "eid": eid,
            "sid": sid,
            "url": f"https://example.org/{sid}",
            "title": "",
            "text": text,
            "quote": text,
            "quote_verified": True,
            "question": "Background",
        }

    state = {
        "query": "Research Jane Roe at Amherst College",
        "query_analysis": {"query_class": "person_profile"},
        "selected_entity": {
            "name": "Jane Roe",
            "description": "Professor of economics at Amherst College",
            "identifiers": ["Amherst College", "economics"],
            "confidence": 0.9,
        },
        "plan": {"outline": ["Background"]},
        "sources": [
            source("S1", "Jane Roe | Amherst College", "Jane Roe teaches economics at Amherst."),
            source("S2", "Jane Roe, landscape painter", "Jane Roe paints rivers in Ohio."),
        ],
        "evidence": [evidence("E1", "S1"), evidence("E2", "S2")],
    }
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model))
    async with open_services(config):
        result = await build_trust_engine_subgraph("full").ainvoke(state, context=config)
    assert [s["sid"] for s in result["sources"]] == ["S1"]
    assert result["sources_excluded"] == ["S2"] and result["sources_dropped"] == 1
    assert {item["sid"] for item in result["evidence"]} == {"S1"}
    assert all(claim["supporting_sids"] in ([], ["S1"]) for claim in result["claims"])
    assert len(model.calls_for("SourceRelevance")) == 1
    prompt = model.calls_for("SourceRelevance")[0].prompt
    assert "TARGET PERSON: Jane Roe" in prompt and "Amherst College" in prompt


def test_ranking_sorts_by_quality_and_cuts_to_top_n() -> None:
    sources = [
        {"sid": "S1", "url": "https://www.reddit.com/r/x", "published": None},
        {"sid": "S2", "url": "https://example.org/report.pdf", "published": "2025-01-01"},
        {"sid": "S3", "url": "https://news.example.com/a", "published": "2010-01-01"},
    ]
    credibility = {"S1": 0.4, "S2": 0.8, "S3": 0.6}
    ranked = rank_sources(sources, credibility, top_n=2)  # type: ignore[arg-type]
    assert [s["sid"] for s in ranked] == ["S2", "S3"]


def test_claims_follow_their_evidence() -> None:
    claim = {"cid": "C1", "supporting_eids": ["E1", "E2"]}
    kept = follow_evidence([claim, {"cid": "C2", "supporting_eids": ["E3"]}], {"E2"})  # type: ignore[list-item]
    assert [(c["cid"], c["supporting_eids"]) for c in kept] == [("C1", ["E2"])]


FINDINGS = {
    "S1": (SHARED, "Green roofs hold rainwater in their soil layer for hours."),
    "S2": (SHARED, "Green roofs need a stronger structure to carry wet soil."),
    "S3": ("Green roofs cost more to install than plain membranes on flat roofs.",),
}


def consolidated() -> dict[str, Any]:
    """The trust engine's input: three sources, five verified quotes, two sources sharing one."""
    sources, evidence = [], []
    for sid, texts in FINDINGS.items():
        url = f"https://www.example.org/{sid.lower()}"
        sources.append(
            {
                "sid": sid,
                "url": url,
                "title": f"Green roofs {sid}",
                "snippet": texts[0],
                "provider": "local",
                "published": None,
            }
        )
        for text in texts:
            eid = f"E{len(evidence) + 1}"
            evidence.append(
                {
                    "eid": eid,
                    "sid": sid,
                    "url": url,
                    "title": "",
                    "text": text,
                    "quote": text,
                    "quote_verified": True,
                    "question": "Findings",
                }
            )
    return {
        "query": "green roofs temperature trial",
        "query_analysis": {"query_class": "comprehensive_overview"},
        "plan": {"outline": ["Findings"]},
        "sources": sources,
        "evidence": evidence,
    }


class WaywardJudge(ResearchScript):
    """A judge that calls every claim verified, but C1's span names evidence C1 does not cite,
    it doubts C3's match, and C4's span is another source's words."""

    def claim_verification(self, prompt: str) -> dict[str, Any]:
        answer = super().claim_verification(prompt)
        for check in answer["checks"]:
            if check["cid"] == "C1":
                check["source_eid"] = "E999"
            elif check["cid"] == "C3":
                check["match_confidence"] = 0.3
            elif check["cid"] == "C4":
                check["evidence_span"] = "cost more to install than plain membranes"
        return answer


@pytest.mark.parametrize("judge", [ResearchScript, WaywardJudge])
async def test_full_and_batched_engines_reach_the_same_verdicts_whatever_the_judge_says(
    make_config: Callable[..., Configuration], judge: type[ResearchScript]
) -> None:
    results = {}
    for engine in ("full", "batched", "single"):
        config = make_config(model=use_scripted_model(judge().model()))
        async with open_services(config):
            subgraph = build_trust_engine_subgraph(engine)  # type: ignore[arg-type]
            results[engine] = await subgraph.ainvoke(consolidated(), context=config)
    full = verdicts(results["full"]["claims"])
    assert full == verdicts(results["batched"]["claims"]) == verdicts(results["single"]["claims"])
    verified = {claim["cid"] for claim in results["full"]["claims"] if claim["verified"]}
    if judge is ResearchScript:
        assert verified == {"C1", "C2", "C3", "C4", "C5"}
    else:
        # Code overrides the judge identically in every engine: an evidence id the claim does
        # not cite, a match the judge itself doubts, a span not in the named evidence.
        assert verified == {"C2", "C5"}


NAMED = "Green roofs lowered peak roof temperatures by about 20 degrees in the summer trial."


def _two_sources(named_quote: str) -> dict[str, Any]:
    """S1 and S2 both cited for claim 1; the judge names E1 (S1), S2's quote holds the span."""

    def source(sid: str) -> dict[str, Any]:
        return {
            "sid": sid,
            "url": f"https://{sid.lower()}.example.org/trial",
            "title": f"Green roof trial {sid}",
            "snippet": NAMED,
            "provider": "searxng",
            "published": "2024-01-01",
        }

    def evidence(eid: str, sid: str, quote: str) -> dict[str, Any]:
        return {
            "eid": eid,
            "sid": sid,
            "url": f"https://{sid.lower()}.example.org/trial",
            "title": "",
            "text": NAMED,
            "quote": quote,
            "quote_verified": True,
            "question": "Findings",
        }

    return {
        "query": "green roofs temperature trial",
        "query_analysis": {"query_class": "scientific_research"},
        "plan": {"outline": ["Findings"]},
        "sources": [source("S1"), source("S2")],
        "evidence": [evidence("E1", "S1", named_quote), evidence("E2", "S2", NAMED)],
    }


async def _first_claim(
    make_config: Callable[..., Configuration], engine: str, named_quote: str
) -> dict[str, Any]:
    model = ResearchScript().model()
    config = make_config(model=use_scripted_model(model))
    state = _two_sources(named_quote)
    async with open_services(config):
        result = await build_trust_engine_subgraph(engine).ainvoke(state, context=config)
    first: dict[str, Any] = result["claims"][0]
    return first


@pytest.mark.parametrize("engine", ["single", "batched", "full"])
async def test_a_verdict_rests_on_the_evidence_the_judge_named_not_a_closer_match(
    make_config: Callable[..., Configuration], engine: str
) -> None:
    # The span is found in E1 (7 of its 10 words in a row); S2's quote holds it word for word.
    quote = NAMED.replace("lowered peak", "lowered the peak")
    first = await _first_claim(make_config, engine, quote)
    assert first["supporting_eids"][0] == "E1", first  # claim 1 is drawn from E1
    assert first["verified"] and first["cross_validated"]
    assert first["supporting_sids"] == ["S1", "S2"]
    assert first["span_match"] == 0.7  # the span's match where it was found, not S2's 1.0


async def test_a_named_source_that_does_not_support_the_claim_is_not_rescued_by_another(
    make_config: Callable[..., Configuration],
) -> None:
    # The span is found in E1 (8 of 10 words), but E1 says 5 degrees: the judge's source fails.
    first = await _first_claim(make_config, "single", NAMED.replace("20 degrees", "5 degrees"))
    assert not first["verified"] and not first["cross_validated"]

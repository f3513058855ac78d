"""The page rules hold on the advanced and supervisor pipelines too (issues 24 and 28):
page furniture (a byline, a dateline) is never printed as a finding, even when the model offers
it as evidence or writes it as a statement; a passage opening with a pronoun carries the sentence
that gives it its referent. The scripted models only supply text; code decides."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from research_studio.core.config import Configuration
from research_studio.pipelines.advanced import prompts as advanced
from tests.conftest import full_state
from tests.doubles.prompt_reader import ANY, readings
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript

pytestmark = pytest.mark.e2e

BYLINE = "By Jane Doe, staff writer"
DATELINE = "Published 3 May 2024"
REFERENT = (
    "Cool roofs are roofs coated with white paint or covered by reflective membranes that "
    "send most sunlight back to the sky."
)
PRONOUN = (
    "They lowered indoor temperatures in the pilot homes of Ahmedabad by up to two degrees "
    "during the hottest weeks of the summer heat waves."
)
QUESTION = "How much did cool roofs lower indoor temperatures in the pilot homes?"


def _documents(folder: Path) -> Path:
    folder.mkdir()
    (folder / "cool-roofs.md").write_text(
        f"# Cool roofs and indoor heat\n\n{BYLINE}\n\n{DATELINE}\n\n{REFERENT} {PRONOUN}\n\n"
        "Street trees shade pavements and walls, and the air beneath their canopies stays "
        "cooler than open streets on hot afternoons in the city centre.\n"
    )
    return folder


def _body(report: str) -> str:
    return report.split("## Sources", 1)[0]


def _furniture_decisions(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        decision
        for decision in state["metadata"]["grounding"]["decisions"]
        if any("page furniture" in reason for reason in decision["reasons"])
    ]


def _leads_with_referent(text: str) -> bool:
    """Where the pronoun sentence appears, the referent sentence comes right before it."""
    flat = " ".join(re.sub(r"\\", "", text).split())
    return all(
        flat[: match.start()].rstrip().endswith(REFERENT[-40:])
        for match in re.finditer(re.escape(PRONOUN[:40]), flat)
    )


@dataclass
class FurnitureResearchScript(ResearchScript):
    """Subagents offer the byline and the dateline as evidence, and the pronoun sentence alone;
    the writer states the byline and the dateline citing a real claim."""

    def subagent_extraction(self, prompt: str) -> dict[str, Any]:
        result = super().subagent_extraction(prompt)
        pages = readings(advanced.SUBAGENT_PAGE, prompt, number=r"\d+", excerpt=ANY)
        offered = [
            {"page": int(page["number"]), "text": text, "quote": text}
            for page in pages
            if BYLINE in page["excerpt"]
            for text in (BYLINE, DATELINE, PRONOUN)
        ]
        result["evidence"] = offered + result["evidence"]
        return result

    def advanced_report(self, prompt: str) -> dict[str, Any]:
        draft = super().advanced_report(prompt)
        cid = readings(advanced.WRITER_CLAIM_ITEM, prompt, cid=r"C\d+")[0]["cid"]
        furniture = [{"text": f"{text}.", "ids": [cid]} for text in (BYLINE, DATELINE)]
        draft["sections"][0]["paragraphs"][0]["statements"] += furniture
        return draft


async def test_advanced_never_prints_furniture_and_leads_pronouns_with_their_referent(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = FurnitureResearchScript(coverage=[0.9], ready=[True])
    config = make_config(
        model=use_scripted_model(script.model()), search="local", docs=[_documents(tmp_path / "d")]
    )
    state = await full_state("advanced", {"query": QUESTION, "mode": "single"}, config)
    body = _body(state["report"])
    assert "Jane Doe" not in body and "3 May 2024" not in body
    # Extraction keeps no furniture, and the pronoun quote carries its referent.
    quotes = [finding["quote"] for finding in state["findings"]]
    assert not any("Jane Doe" in quote or DATELINE in quote for quote in quotes)
    assert any(PRONOUN in quote for quote in quotes)
    assert all(_leads_with_referent(quote) for quote in quotes), quotes
    assert _leads_with_referent(body), body
    # The writer's furniture statements reached grounding and were dropped, with the reason.
    dropped = {decision["text"] for decision in _furniture_decisions(state)}
    assert {f"{BYLINE}.", f"{DATELINE}."} <= dropped
    assert state["metadata"]["grounding"]["furniture_dropped"] >= 2


@dataclass
class FurnitureSupervisorScript(SupervisorScript):
    """Page summaries offer the byline, the dateline and the pronoun sentence as excerpts."""

    def page_summary(self, prompt: str) -> dict[str, Any]:
        result = super().page_summary(prompt)
        if BYLINE in prompt:
            result["key_excerpts"] = [BYLINE, DATELINE, PRONOUN]
        return result


async def test_supervisor_never_prints_furniture_and_leads_pronouns_with_their_referent(
    make_config: Callable[..., Configuration], tmp_path: Path
) -> None:
    script = FurnitureSupervisorScript(writer_unsupported_claim=f"{BYLINE}, {DATELINE}.")
    config = make_config(
        model=use_scripted_model(script.model()), search="local", docs=[_documents(tmp_path / "d")]
    )
    state = await full_state("supervisor", {"query": QUESTION}, config, store=InMemoryStore())
    body = _body(state["report"])
    assert "Jane Doe" not in body and "3 May 2024" not in body
    passed = [s["quote"] for s in state["evidence_snippets"] if s["status"] == "PASS"]
    assert any(PRONOUN in quote for quote in passed)
    assert all(_leads_with_referent(quote) for quote in passed), passed
    assert PRONOUN[:40] in " ".join(body.split()) and _leads_with_referent(body)
    assert any(d["text"].startswith(BYLINE) for d in _furniture_decisions(state))

"""The Verified Findings block is immutable: code restores it whatever the writer did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research_studio.pipelines.supervisor.render import (
    enforce_verified_section,
    section_text,
    verified_records,
    verified_section,
)
from tests.doubles.supervisor_script import SupervisorScript

BLOCK = section_text(
    verified_section(verified_records([("S1", "Corals bleach when the water stays warm.")])),
    "detailed",
)
REPORT = f"# Title\n\n## Summary\n\nText [S1].\n\n{BLOCK}\n\n## Details\n\nMore [S1].\n"


def test_an_untouched_block_is_left_alone() -> None:
    assert enforce_verified_section(REPORT, BLOCK) == (REPORT, False)


def test_a_changed_block_is_restored_exactly_once() -> None:
    tampered = REPORT.replace("stays warm", "stays a little warm (experts say)")
    restored, changed = enforce_verified_section(tampered, BLOCK)
    assert changed and restored.count(BLOCK) == 1 and "experts say" not in restored
    assert restored.index("## Summary") < restored.index(BLOCK) < restored.index("## Details")


def test_a_missing_or_repeated_block_comes_back_once() -> None:
    missing = REPORT.replace(BLOCK + "\n\n", "")
    restored, changed = enforce_verified_section(missing, BLOCK)
    assert changed and restored.count(BLOCK) == 1
    repeated, changed = enforce_verified_section(REPORT + "\n" + BLOCK + "\n", BLOCK)
    assert changed and repeated.count("## Verified Findings") == 1


def test_a_disabled_section_says_why() -> None:
    text = section_text(verified_section([], "no store"), "concise")
    assert text.startswith(
        "## Verified Findings\n\nVerified Findings are disabled for this run: no store."
    )


@pytest.mark.e2e
async def test_a_writer_that_rewrites_the_block_is_overridden(
    run_supervisor: Callable[..., Any],
) -> None:
    state, _ = await run_supervisor(SupervisorScript(writer_rewrites_block=True))
    report = state["report"]
    assert report.count("## Verified Findings") == 1 and state["verified_section"] in report
    assert "Reportedly," not in report
    assert state["metadata"]["verified_section_restored"] is True

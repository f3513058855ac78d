"""The bench command end to end, with tiny latencies: results.json, the page, and the targets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app

pytestmark = pytest.mark.e2e


def test_quick_bench_writes_results_and_the_performance_page(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "--quick",
            "--llm-latency",
            "0.01",
            "--token-latency",
            "0",
            "--search-latency",
            "0.01",
            "--page-latency",
            "0.01",
            "--out",
            str(tmp_path / "results.json"),
            "--markdown",
            str(tmp_path / "performance.md"),
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "results.json").read_text())
    variants = results["pipelines"]["variants"]
    assert set(variants) == {
        "standard-single",
        "standard-multi",
        "advanced",
        "advanced-full",
        "advanced-optimized",
    }
    # The full trust engine costs more calls than the batched one, both well under the seed's.
    assert variants["advanced-optimized"]["llm_calls"] < variants["advanced-full"]["llm_calls"] < 21
    for row in variants.values():
        assert (
            row["llm_calls"] > 0
            and row["critical_path_s"] > 0
            and row["wall_s"] >= row["critical_path_s"] * 0.9
        )
        assert row["llm_calls_by_node"] and row["prompt_tokens"] > 0
    assert variants["advanced"]["llm_calls"] <= 12
    assert "speedup_vs_single" in variants["standard-multi"]
    assert results["local_search"]["chunks"] >= 1000 and results["local_search"]["query_p95_ms"] > 0
    page = (tmp_path / "performance.md").read_text()
    assert "## Targets" in page and results["machine"]["python"] in page and "Amdahl" in page

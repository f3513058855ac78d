"""The results files keep what a bench run did not measure: skipped suites and hand sections."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.results import machine, write_results

PREVIOUS_PAGE = """# Performance

Latest run: an older one.

## Targets

| Target | Measured | Goal | Status | Load average |
|---|---|---|---|---|
| an old row | 1 | <= 2 | met | 3 |

## Support check (`research-studio bench verify`)

| Check | Claims |
|---|---|
| held-out half | 172 |

### How it works

Measured by hand.

## Notes

- an old note
"""


def test_a_skipped_suite_and_the_hand_sections_are_kept(tmp_path: Path) -> None:
    results_file, page_file = tmp_path / "results.json", tmp_path / "performance.md"
    previous = {
        "date": "2026-11-26T02:15:00+00:00",
        "mcp_local_search": {"mcp": {"p95_ms": 14.3}, "load_before": 4.2},
    }
    results_file.write_text(json.dumps(previous))
    page_file.write_text(PREVIOUS_PAGE)

    write_results(
        {"date": "2026-11-27T18:00:00+00:00", "machine": machine()}, results_file, page_file
    )

    results = json.loads(results_file.read_text())
    assert results["mcp_local_search"]["mcp"]["p95_ms"] == 14.3
    assert results["mcp_local_search"]["measured"] == previous["date"]
    page = page_file.read_text()
    assert (
        "| MCP `search` over a documents folder of 100,000 chunks, p95 per call (ms) (measured "
        "2026-11-26T02:15:00+00:00, kept: not rerun) | 14.3 | <= 20.0 | met | 4.2 |" in page
    )
    # The hand section and its subsection stay whole, once; the generated ones are rewritten.
    assert page.count("## Support check") == 1 and "Measured by hand." in page
    assert "an old row" not in page and "an old note" not in page
    assert "Latest run: 2026-11-27T18:00:00+00:00" in page

    # A second run that measured the suite itself replaces it, date and all.
    fresh = {"date": "2026-11-28T00:00:00+00:00", "machine": machine()}
    fresh["mcp_local_search"] = {"mcp": {"p95_ms": 9.0}, "load_before": 1.0}
    write_results(fresh, results_file, page_file)
    assert "measured" not in json.loads(results_file.read_text())["mcp_local_search"]
    assert page_file.read_text().count("Measured by hand.") == 1

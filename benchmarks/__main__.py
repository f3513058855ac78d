"""Run every benchmark and write benchmarks/results.json and docs/performance.md."""

from __future__ import annotations

import sys

from research_studio.faces.cli import app

if __name__ == "__main__":
    sys.exit(
        app(
            [
                "bench",
                "--out",
                "benchmarks/results.json",
                "--markdown",
                "docs/performance.md",
                *sys.argv[1:],
            ]
        )
    )

"""The bench command end to end, with tiny latencies: results.json, the page, and the targets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.local_search import run_local_search
from typer.testing import CliRunner

import research_studio
from research_studio.faces.cli import COMMANDS, app

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
            "--skip-local",
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
    multi = variants["standard-multi"]
    assert multi["cpu_s"] > 0 and multi["peak_pss_mb"] > 0 and multi["load"] >= 0
    assert 0 < multi["paired_wall_ratio"] < 5
    page = (tmp_path / "performance.md").read_text()
    cold = results["cold_start"]
    assert all(cold[name]["cpu_s"] > 0 and cold[name]["rss_mb"] > 0 for name in ("help", "version"))
    # Every command's --help, and verify of a local file, cold, each with the load beside it.
    assert set(cold["commands_help"]) == set(COMMANDS)
    assert cold["help_max"]["command"] in COMMANDS and cold["help_max"]["load"] >= 0
    assert cold["verify"]["cpu_s"] > 0 and cold["verify"]["load"] >= 0
    # A cold run as its own process: the whole tree's CPU and PSS, and its first model call.
    run = results["cold_run"]
    assert run["completed"] == 1 and run["runs"][0]["exit"] == 0
    assert run["cpu_s"] > 0 and run["peak_pss_mb"] > 0 and run["model_calls"] > 0
    assert 0 < run["main_cpu_s"] <= run["cpu_s"]  # the run's own process, within the tree
    assert 0 < run["first_model_call_s"] < run["wall_s"] and run["load"] >= 0
    assert "## Cold run: what a user pays" in page and "In-process standard multi run" in page
    # Cold single and multi paired on the same question: the ratio a user waits, with the load.
    pairs = results["cold_pairs"]
    assert pairs["completed"] == 1 and pairs["pairs"][0]["single"]["exit"] == 0
    assert pairs["pairs"][0]["multi"]["model_calls"] > 0 and pairs["load"] >= 0
    assert 0 < pairs["paired_wall_ratio"] < 5 and 0 < pairs["after_start_ratio"] < 5
    assert "### Multi against single, cold (paired)" in page
    assert "| Multi/single wall, paired, each a cold `research-studio run`" in page
    steps = results["serve"]["steps"]
    assert [row["runs"] for row in steps.values()] == [1, 2]
    assert all(
        row["completed"] == row["runs"] and row["runs_per_min"] > 0 for row in steps.values()
    )
    assert all(row["peak_pss_mb"] > 0 and row["load"] >= 0 for row in steps.values())
    # The quick bench runs 1 and 2 at once: the 8-at-once target says so, never the 2's ratio.
    assert (
        "| `serve`: throughput of 8 standard multi runs at once / one run | None | >= 4.0 | not run |"
        in page
    )
    assert "## Serve throughput" in page and "× one run" in page
    assert "## Targets" in page and results["machine"]["python"] in page and "Amdahl" in page
    assert "Load average" in page and "## Cold start" in page
    assert (
        "| Local search p95 at 100,000 chunks of real text (ms) | None | <= 20.0 | not run |"
        in page
    )


def test_local_search_bench_grows_real_text_and_times_questions() -> None:
    results = run_local_search((1_000, 3_000), queries=20)
    small, large = results["sizes"]["1000"], results["sizes"]["3000"]
    assert 900 <= small["chunks"] < large["chunks"] and large["chunks"] >= 2700
    assert large["added_documents"] < large["documents"]  # the second size was indexed on top
    assert all(row["queries"] == 20 and row["query_p95_ms"] > 0 for row in (small, large))
    assert results["unchanged_on_recheck"] == large["documents"]
    assert all(question.endswith("?") for question in results["example_questions"])


def test_the_bench_outside_a_source_checkout_says_so_in_one_line(tmp_path: Path) -> None:
    # The package alone, as a wheel installs it: no benchmarks folder beside it.
    site = tmp_path / "site"
    shutil.copytree(
        Path(research_studio.__file__).parent,
        site / "research_studio",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    done = subprocess.run(
        [sys.executable, "-c", "from research_studio.faces.cli import main; main()", "bench"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "the bench needs a source checkout" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_benchmarks_package_in_the_working_directory_is_never_run(tmp_path: Path) -> None:
    planted = tmp_path / "benchmarks"
    planted.mkdir()
    marker = tmp_path / "ran"
    for name in ("__init__", "bench", "harness", "results"):
        (planted / f"{name}.py").write_text(f"open({str(marker)!r}, 'w').write('{name}')\n")
    source = Path(research_studio.__file__).parents[1]
    skipped = ["--skip-pipelines", "--skip-local", "--skip-serve"]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from research_studio.faces.cli import main; main()",
            "bench",
            *skipped,
            "--out",
            str(tmp_path / "results.json"),
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(source)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert not marker.exists(), "the working directory's benchmarks package ran"
    assert done.returncode == 0, done.stderr


def test_the_console_script_finds_the_bench_of_the_checkout_it_runs_in(tmp_path: Path) -> None:
    """`research-studio bench` from the repository root, as the README says: a console
    script's import path starts at its own folder, so the checkout is looked in explicitly."""
    root = Path(__file__).resolve().parents[2]
    script = Path(sys.executable).with_name("research-studio")
    results = tmp_path / "results.json"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    skipped = ["--skip-pipelines", "--skip-local", "--skip-serve"]
    done = subprocess.run(
        [str(script), "bench", *skipped, "--out", str(results)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(results.read_text())["cold_start"]["help"]["cpu_s"] > 0

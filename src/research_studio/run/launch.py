"""What a run is checked and prepared with before research: one set of rules for CLI and server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from research_studio.core.config import (
    SECRET_FIELDS,
    Configuration,
    ReportStructure,
    SearchProviderName,
    load_configuration,
)
from research_studio.core.errors import ConfigError, ResearchStudioError
from research_studio.core.timerange import TimeRange, time_range
from research_studio.core.urls import is_masked_url, redact_url
from research_studio.llm.models import split_spec
from research_studio.pipelines.registry import (
    PipelineName,
    graph_builder,
    initial_state,
    plan_review_names,
    single_worker_names,
)
from research_studio.run.persistence import check_checkpoints
from research_studio.run.runs import RunFolder, RunRecord, check_query, new_run_id
from research_studio.services.resolution import ModelChoice, choose_model, choose_search
from research_studio.sources.docindex import DocumentIndex, IndexReport
from research_studio.sources.search import SearchChoice


class RequestError(ConfigError):
    """A user mistake in one field of a research request (the web form shows it beside it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@contextmanager
def blame(field: str) -> Iterator[None]:
    """Our errors raised inside are attributed to this field."""
    try:
        yield
    except RequestError:
        raise
    except ResearchStudioError as exc:
        raise RequestError(field, str(exc)) from None


def _settings_field(message: str, overrides: dict[str, Any]) -> str:
    """The override a configuration error names (the first one it mentions), else "settings"."""
    named = [name for name in overrides if overrides[name] is not None and name in message]
    return min(named, key=message.index) if named else "settings"


@dataclass(frozen=True)
class CheckedRun:
    """Settings with the user's values on top, the question as it will run, and its time range."""

    config: Configuration
    question: str
    window: TimeRange | None


def check_docs(paths: list[Path]) -> None:
    """Fail early, in the user's terms, on a --docs path that does not exist."""
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise ConfigError(f"no such file or folder: {', '.join(missing)}")


def check_run(
    query: str,
    pipeline: str,
    overrides: dict[str, Any],
    config_file: Path | None,
    docs: list[Path],
) -> CheckedRun:
    """Every check `run` makes before any work, so a mistake leaves no run folder behind."""
    try:
        config = load_configuration(overrides, config_file=config_file).config
    except ResearchStudioError as exc:
        raise RequestError(_settings_field(str(exc), overrides), str(exc)) from None
    if config.review_plan and pipeline not in plan_review_names():
        raise RequestError(
            "pipeline",
            f"plan review works with the {' and '.join(plan_review_names())} pipelines, "
            f"not {pipeline}",
        )
    with blame("question"):
        question = check_query(query, max_chars=config.max_query_chars)
    with blame("docs"):
        check_docs(docs)
    with blame("since"):
        window = time_range(config.since, config.until)  # bad dates: one line
    with blame("pipeline"):
        graph_builder(pipeline)  # an unavailable pipeline fails before any work
    with blame("checkpoints"):
        check_checkpoints(config)  # an unreachable PostgreSQL leaves no failed run behind
    return CheckedRun(config, question, window)


def resolve_choices(config: Configuration) -> tuple[Configuration, ModelChoice, SearchChoice]:
    """resolution.resolve, with a model or search mistake attributed to its field."""
    with blame("model"):
        model = choose_model(config)
        split_spec(model.model)  # an unknown provider fails here, not after the folder exists
    with blame("fast_model"):
        split_spec(model.fast_model)
    with blame("search"):
        search = choose_search(config)
    resolved = config.model_copy(
        update={"model": model.model, "fast_model": model.fast_model, "search": search.name}
    )
    return resolved, model, search


def index_documents(config: Configuration, paths: list[Path]) -> IndexReport:
    """Index the paths (incrementally; blocking). One-line error when no readable document is there."""
    index = DocumentIndex.in_dir(
        config.cache_dir, chunk_size=config.index_chunk_size, max_bytes=config.max_document_bytes
    )
    try:
        report = index.update(paths)
    finally:
        index.close()
    if not report.documents:
        raise ConfigError(
            f"no readable documents in {', '.join(report.empty)} "
            "(Markdown, text, HTML or PDF files inside the folder)"
        )
    return report


def jsonable(values: dict[str, Any]) -> dict[str, Any]:
    """Settings as saved in run.json: paths as text, credentials inside URLs masked."""
    text = {
        name: str(value) if isinstance(value, Path) else value for name, value in values.items()
    }
    return {
        name: redact_url(value) if isinstance(value, str) else value for name, value in text.items()
    }


def new_folder(
    config: Configuration,
    out_dir: Path | None,
    query: str,
    pipeline: str,
    mode: str,
    overrides: dict[str, Any],
    interactive_clarify: bool,
    suffix: str = "",
) -> RunFolder:
    """A new run folder (runs_dir/<run-id>, or out_dir) whose record keeps the overrides, no secrets."""
    run_id = new_run_id() + suffix
    path = (
        (out_dir / suffix.lstrip("-"))
        if (out_dir and suffix)
        else (out_dir or config.runs_dir / run_id)
    )
    saved = {
        name: value
        for name, value in overrides.items()
        if value is not None and name not in SECRET_FIELDS
    }
    record = RunRecord(
        run_id=run_id,
        query=query,
        pipeline=pipeline,
        mode=mode,
        settings=jsonable(saved),
        interactive_clarify=interactive_clarify,
    )
    return RunFolder.create(path, record)


def restore_masked(saved: dict[str, Any], config_file: Path | None) -> dict[str, Any]:
    """Saved settings whose masked URLs come back, with their credentials, from env or file."""
    masked = {
        name for name, value in saved.items() if isinstance(value, str) and is_masked_url(value)
    }
    current = load_configuration(config_file=config_file).config
    for name in masked:
        value = getattr(current, name, None)
        if not isinstance(value, str) or redact_url(value) != saved[name]:
            raise ConfigError(
                f"run.json keeps {name} without its credentials; "
                "set it in the environment or settings file to resume"
            )
    return {name: value for name, value in saved.items() if name not in masked}


def resume_settings(folder: RunFolder, config_file: Path | None) -> Configuration:
    """The configuration a run resumes with: its saved overrides over the current settings."""
    saved = restore_masked(folder.record.settings, config_file)
    return load_configuration(saved, config_file=config_file).config


class ResearchRequest(BaseModel):
    """A research request as a form or an API client sends it (empty text means "not set")."""

    model_config = ConfigDict(extra="forbid")

    question: str
    pipeline: PipelineName = "standard"
    mode: Literal["multi", "single"] = "multi"
    model: str | None = None
    fast_model: str | None = None
    search: SearchProviderName | None = None
    docs: str | None = Field(None, description="A documents folder (the server checks it).")
    report_structure: ReportStructure | None = None
    iterations: int | None = Field(None, ge=1, le=20)
    system_prompt: str | None = None
    no_clarify: bool = False

    @field_validator(
        "model",
        "fast_model",
        "search",
        "docs",
        "report_structure",
        "iterations",
        "system_prompt",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    def overrides(self) -> dict[str, Any]:
        """The configuration values this request sets, as `run` builds them from its flags."""
        return {
            "model": self.model,
            "fast_model": self.fast_model,
            "report_structure": self.report_structure,
            "max_iterations": self.iterations,
            "system_prompt": self.system_prompt,
            "search": self.search,
            "docs": [str(Path(self.docs).resolve())] if self.docs else None,
        }


@dataclass(frozen=True)
class PreparedRun:
    """A run ready to execute: its folder, resolved configuration, first state and choices."""

    folder: RunFolder
    config: Configuration
    initial: dict[str, Any]
    model_choice: ModelChoice
    search_choice: SearchChoice


def prepare_run(request: ResearchRequest, config_file: Path | None) -> PreparedRun:
    """Check, resolve, index local documents and create the run folder (blocking)."""
    if request.mode == "single" and request.pipeline not in single_worker_names():
        raise RequestError(
            "mode", f"the {request.pipeline} pipeline has no single-agent mode; use multi"
        )
    overrides = request.overrides()
    docs = [Path(path) for path in overrides["docs"] or []]
    checked = check_run(request.question, request.pipeline, overrides, config_file, docs)
    config, model_choice, search_choice = resolve_choices(checked.config)
    overrides.update(model=config.model, fast_model=config.fast_model, search=config.search)
    # Saved in run.json (password masked) so resume reopens the same checkpoint backend.
    overrides.update(checkpoints=config.checkpoints or "sqlite")
    if config.search == "local" and config.docs:
        with blame("docs"):
            index_documents(config, [Path(path) for path in config.docs])
    folder = new_folder(
        config,
        None,
        checked.question,
        request.pipeline,
        request.mode,
        overrides,
        not request.no_clarify,
    )
    initial = initial_state(request.pipeline, checked.question, request.mode)
    return PreparedRun(folder, config, initial, model_choice, search_choice)

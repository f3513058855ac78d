"""One run set-up for every face (CLI, web page, MCP): validate, resolve, index, create, save.

Every face asks for a run with a `RunSetup` and gets `PreparedRun`s back from `prepare`; the
checks are the same for all, and a mistake leaves no run folder behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research_studio.core.config import SECRET_FIELDS, Configuration
from research_studio.core.config_loading import load_configuration
from research_studio.core.declarations import DECLARED
from research_studio.core.errors import ConfigError, RequestError, ResearchStudioError
from research_studio.core.timerange import TimeRange, time_range
from research_studio.core.urls import is_masked_url, redact_url
from research_studio.llm.embeddings import hybrid_encoder
from research_studio.llm.models import check_model
from research_studio.pipelines.registry import (
    graph_builder,
    initial_state,
    plan_review_names,
    single_worker_names,
    specs,
)
from research_studio.run.persistence import check_checkpoints
from research_studio.run.runs import RunFolder, RunRecord, check_query, new_run_id
from research_studio.services.extraction import choose_extraction
from research_studio.services.resolution import (
    ModelChoice,
    check_endpoint,
    choose_model,
    choose_search,
    model_endpoint,
    server_choices,
)
from research_studio.sources.docindex import IndexReport
from research_studio.sources.search import SearchChoice
from research_studio.sources.search.local import checked_update, shared_index

Note = Callable[[str], None]
# The single-agent mode as the CLI names it; the other faces name it in their own words.
SINGLE_AGENT = "--single-agent"


def honoured_by() -> dict[str, tuple[str, ...]]:
    """Each setting a face offers that only some pipelines read, and those pipelines.

    Which pipelines read a setting is said once, by each pipeline's spec (the settings its own
    nodes read); every face refuses such a setting for the other pipelines, never ignoring it.
    """
    every = specs()
    readers = {
        name: tuple(item.name for item in every if name in item.settings) for name in DECLARED
    }
    return {name: found for name, found in readers.items() if 0 < len(found) < len(every)}


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
    # A NUL (a web form or an MCP client may send one) is no path: the system refuses to look.
    if nul := [str(path) for path in paths if "\x00" in str(path)]:
        raise ConfigError(f"not a file or folder name (it holds a NUL character): {nul[0]!r}")
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise ConfigError(f"no such file or folder: {', '.join(missing)}")


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def _not_for(setting: str, pipeline: str, pipelines: tuple[str, ...]) -> str:
    return f"{setting} does not apply to the {pipeline} pipeline (only to {_listed(pipelines)})"


def _flag_given(name: str, value: Any) -> str:
    """The flag as the user wrote it: the "--no-" form of a switch turned off (its name when it
    has no flag: the faces reword flags, never names)."""
    on, _, off = (DECLARED[name].flag or name).partition("/")
    return off if value is False and off else on


def check_pipeline(
    pipeline: str, mode: str, overrides: dict[str, Any], single_agent: str = SINGLE_AGENT
) -> None:
    """A mode or setting the pipeline cannot honour is refused, never silently ignored.

    `single_agent` is the single-agent mode in the face's words (its flag, field or parameter);
    settings are named by their flags, which the faces reword.
    """
    if mode == "single" and pipeline not in single_worker_names():
        raise RequestError("mode", _not_for(single_agent, pipeline, single_worker_names()))
    for name, pipelines in honoured_by().items():
        value = overrides.get(name)
        # A switch left at its default asks nothing of the pipeline (--no-review-plan anywhere).
        if value is None or (isinstance(value, bool) and value == DECLARED[name].default):
            continue
        if pipeline not in pipelines:
            raise RequestError(name, _not_for(_flag_given(name, value), pipeline, pipelines))


def check_run(
    query: str,
    pipeline: str,
    overrides: dict[str, Any],
    config_file: Path | None,
    docs: list[Path],
    mode: str = "multi",
    single_agent: str = SINGLE_AGENT,
) -> CheckedRun:
    """Every check made before any work, so a mistake leaves no run folder behind."""
    try:
        config = load_configuration(overrides, config_file=config_file).config
    except ResearchStudioError as exc:
        raise RequestError(_settings_field(str(exc), overrides), str(exc)) from None
    check_pipeline(pipeline, mode, overrides, single_agent)
    if config.review_plan and pipeline not in plan_review_names():
        raise RequestError(
            "review_plan",
            f"plan review works with the {_listed(plan_review_names())} pipelines, not {pipeline}",
        )
    with blame("question"):
        question = check_query(query, max_chars=config.max_query_chars)
    with blame("docs"):
        check_docs(docs)
    with blame("hybrid_search"):
        hybrid_encoder(config)  # on without the embeddings extra: one line, before any work
    with blame("since"):
        window = time_range(config.since, config.until)  # bad dates: one line
    with blame("pipeline"):
        graph_builder(pipeline)  # an unavailable pipeline fails before any work
    with blame("checkpoints"):
        check_checkpoints(config)  # an unreachable PostgreSQL leaves no failed run behind
    return CheckedRun(config, question, window)


# Settings naming a model (besides model and fast_model), checked before any folder exists.
ROLE_MODELS = ("research_model", "summarization_model", "compression_model", "final_report_model")


def _model_settings(config: Configuration, model: ModelChoice) -> list[tuple[str, str]]:
    """Every model a run may use, with the setting that names it."""
    named = [("model", model.model), ("fast_model", model.fast_model)]
    named += [(name, getattr(config, name)) for name in ROLE_MODELS if getattr(config, name)]
    named += [("council_models", spec) for spec in config.council_models]
    return named + [("model_overrides", spec) for spec in config.model_overrides.values()]


def check_model_servers(config: Configuration, model: ModelChoice) -> None:
    """Whether the servers of the run's models answer (each once): Ollama not running is one
    line before the run (or its resumption) starts, not a run that fails at its first call."""
    checked: set[str] = set()
    for name, spec in _model_settings(config, model):
        endpoint = model_endpoint(spec, config)
        if endpoint is not None and endpoint[0] not in checked:
            checked.add(endpoint[0])
            with blame(name):
                check_endpoint(spec, config)


def resolve_choices(config: Configuration) -> tuple[Configuration, ModelChoice, SearchChoice]:
    """resolution.resolve, with a model or search mistake attributed to its field.

    Every model the run may use is checked here (provider known, credentials set), so a
    configuration mistake is one line before the run folder exists, not a failed run. A run
    handed to a LangGraph server keeps its configuration as given: the server resolves.
    """
    if config.langgraph_server:
        return (config, *server_choices(config))
    with blame("model"):
        model = choose_model(config)
        check_model(model.model, config)
    with blame("fast_model"):
        check_model(model.fast_model, config)
    for name in ROLE_MODELS:
        spec = getattr(config, name)
        if spec:
            with blame(name):
                check_model(spec, config)
    with blame("council_models"):
        for spec in config.council_models:
            check_model(spec, config)
    with blame("model_overrides"):
        for spec in config.model_overrides.values():
            check_model(spec, config)
    check_model_servers(config, model)
    with blame("search"):
        search = choose_search(config)
    resolved = config.model_copy(
        update={"model": model.model, "fast_model": model.fast_model, "search": search.name}
    )
    return resolved, model, search


def index_documents(
    config: Configuration, paths: list[Path], note: Note | None = None
) -> IndexReport:
    """Index the paths (incrementally; blocking), noting skipped files and empty folders.

    Fails, in one line, when no readable document was found: research on nothing is not a run.
    """
    index = shared_index(
        config.cache_dir,
        chunk_size=config.index_chunk_size,
        max_bytes=config.max_document_bytes,
        encoder=lambda: hybrid_encoder(config),
    )
    # Checked now, and recorded: the run's first search in this process need not check again.
    report = checked_update(index, paths, 0.0)
    say = note or (lambda _line: None)
    for path, reason in report.skipped:
        say(f"skipped {path}: {reason}")
    if not report.documents:
        raise ConfigError(
            f"no readable documents in {', '.join(report.empty)} "
            "(Markdown, text, HTML or PDF files inside the folder)"
        )
    for root in report.empty:
        say(f"no readable documents in {root}")
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
    config = load_configuration(saved, config_file=config_file).config
    if config.model and not config.langgraph_server:
        check_model_servers(
            config, ModelChoice(config.model, config.fast_model or config.model, "")
        )
    return config


@dataclass(frozen=True)
class RunSetup:
    """What a face asks for: a question, the (pipeline, mode) runs of it, the settings given."""

    question: str
    plans: Sequence[tuple[str, str]]
    overrides: dict[str, Any]
    config_file: Path | None = None
    interactive_clarify: bool = True
    out_dir: Path | None = None
    note: Note | None = None  # what was chosen and why, skipped files: shown by the face
    indexing: Callable[[list[Path]], AbstractContextManager[Any]] | None = None
    single_agent: str = SINGLE_AGENT  # the single-agent mode as the face names it, in refusals


@dataclass(frozen=True)
class PreparedRun:
    """A run ready to execute: its folder, resolved configuration, first state and choices."""

    folder: RunFolder
    config: Configuration
    initial: dict[str, Any]
    model_choice: ModelChoice
    search_choice: SearchChoice
    window: TimeRange | None = None


def _suffixes(plans: Sequence[tuple[str, str]]) -> list[str]:
    """Folder suffixes of compared runs: the mode when one pipeline runs twice, else the pipeline."""
    if len(plans) < 2:
        return [""]
    if len({pipeline for pipeline, _ in plans}) == 1:
        return [f"-{mode}" for _, mode in plans]
    return [f"-{pipeline}" for pipeline, _ in plans]


def _announce(note: Note, config: Configuration, model: ModelChoice, search: SearchChoice) -> None:
    """Say what was chosen and why, before any work."""
    fast = f" (fast: {model.fast_model})" if model.fast_model != model.model else ""
    note(f"model: {model.model}{fast} — {model.reason}")
    note(f"search: {search.name} — {search.reason}")
    extraction = choose_extraction(config, model.fast_model or model.model)
    note(f"extraction: {extraction.describe()}")


def prepare(setup: RunSetup) -> list[PreparedRun]:
    """Validate, resolve choices, index documents, create the run folders and save the choices.

    Blocking. Every check runs before the first folder exists, so a mistake leaves none behind.
    """
    overrides = dict(setup.overrides)
    docs = [Path(path) for path in overrides.get("docs") or []]
    pipeline, mode = setup.plans[0]
    checked = check_run(
        setup.question, pipeline, overrides, setup.config_file, docs, mode, setup.single_agent
    )
    for other, other_mode in setup.plans[1:]:
        with blame("pipeline"):
            graph_builder(other)
        check_pipeline(other, other_mode, overrides, setup.single_agent)
    note = setup.note or (lambda _line: None)
    if checked.window:
        note(f"time range: {checked.window.describe()}; undated sources kept, marked")
    config, model_choice, search_choice = resolve_choices(checked.config)
    _announce(note, config, model_choice, search_choice)
    overrides.update(model=config.model, fast_model=config.fast_model, search=config.search)
    # Saved in run.json (password masked) so resume reopens the same checkpoint backend.
    overrides.update(checkpoints=config.checkpoints or "sqlite")
    if config.search == "local" and config.docs:
        paths = [Path(path) for path in config.docs]
        with blame("docs"), (setup.indexing or (lambda _paths: nullcontext()))(paths):
            index_documents(config, paths, setup.note)
    prepared = []
    for (name, run_mode), suffix in zip(setup.plans, _suffixes(setup.plans), strict=True):
        folder = new_folder(
            config,
            setup.out_dir,
            checked.question,
            name,
            run_mode,
            overrides,
            setup.interactive_clarify,
            suffix=suffix,
        )
        initial = initial_state(name, checked.question, run_mode)
        prepared.append(
            PreparedRun(folder, config, initial, model_choice, search_choice, checked.window)
        )
    return prepared

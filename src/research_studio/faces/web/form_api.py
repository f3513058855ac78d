"""The new research form's API: what it offers, what resolution would pick, and starting a run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from research_studio.core.config import Configuration
from research_studio.core.config_loading import error_message, load_configuration
from research_studio.core.declarations import DECLARED, reword
from research_studio.core.errors import RequestError, ResearchStudioError
from research_studio.faces.web.bodies import field_error, in_web_words, json_body
from research_studio.faces.web.request import FORM_SETTINGS, ResearchRequest, prepare_run
from research_studio.faces.web.settings import EXAMPLE_DOCS
from research_studio.faces.web.state import State, WebState
from research_studio.pipelines.registry import names, single_worker_names
from research_studio.run.launch import honoured_by
from research_studio.services.resolution import check_endpoint, choose_model, choose_search

router = APIRouter(prefix="/api")


def _docs_label(state: WebState, root: Path) -> str:
    """A documents folder as the form shows it: its name, marked when it is the example."""
    name = state.docs_name(root)
    return f"{name} (example)" if root == EXAMPLE_DOCS else name


def _default_docs(state: WebState, config: Configuration) -> str:
    """The folder preselected (by the name the form offers it under): the configured one, else
    the example when no web search is set."""
    for path in config.docs:
        folder = state.allowed_folder(str(path))
        if folder is not None and folder in state.allowed_docs:
            return state.docs_name(folder)
    web_search = (
        config.search not in (None, "local")
        or config.searxng_url
        or config.secret("tavily_api_key")
    )
    if not web_search and EXAMPLE_DOCS in state.allowed_docs:
        return state.docs_name(EXAMPLE_DOCS)
    return ""


@router.get("/options")
async def options(state: State) -> dict[str, Any]:
    """What the new research form offers: choices, and each setting's label, help and bounds."""
    try:
        loaded = await asyncio.to_thread(load_configuration, config_file=state.settings.config_file)
        default_docs = _default_docs(state, loaded.config)
    except ResearchStudioError:
        default_docs = ""  # a broken settings file is reported when a run starts
    return {
        "pipelines": list(names()),
        "single_agent_pipelines": list(single_worker_names()),
        "settings": {name: DECLARED[name].form() for name in FORM_SETTINGS},
        "honoured_by": {name: list(pipelines) for name, pipelines in honoured_by().items()},
        "docs": [
            {"value": state.docs_name(root), "label": _docs_label(state, root)}
            for root in state.allowed_docs
        ],
        "default_docs": default_docs,
    }


def _resolution(
    state: WebState, model: str | None, search: str | None, docs: Path | None
) -> dict[str, Any]:
    overrides = {"model": model, "search": search, "docs": [str(docs)] if docs else None}
    answer: dict[str, Any] = {}
    try:
        config = load_configuration(overrides, config_file=state.settings.config_file).config
    except ResearchStudioError as exc:
        return {"error": reword(str(exc), in_web_words)}
    try:
        choice = choose_model(config)
        for spec in dict.fromkeys((choice.model, choice.fast_model)):
            check_endpoint(spec, config)  # as the run's set-up will: said before it is started
        answer["model"] = {
            "model": choice.model,
            "fast_model": choice.fast_model,
            "reason": choice.reason,
        }
    except ResearchStudioError as exc:
        answer["model"] = {"error": reword(str(exc), in_web_words)}
    try:
        picked = choose_search(config)
        answer["search"] = {"name": picked.name, "reason": picked.reason}
    except ResearchStudioError as exc:
        answer["search"] = {"error": reword(str(exc), in_web_words)}
    return answer


@router.get("/resolution")
async def resolution(
    state: State, model: str | None = None, search: str | None = None, docs: str | None = None
) -> Any:
    """What resolve would pick for these choices, and why."""
    folder = state.allowed_folder(docs) if docs else None
    if docs and folder is None:
        return field_error("docs", "this documents folder is not in the allowed list")
    return await asyncio.to_thread(_resolution, state, model or None, search or None, folder)


@router.post("/runs", status_code=201)
async def start_run(request: Request, state: State) -> Any:
    """Validate with the CLI's rules, create the run folder, and start the run."""
    body = await json_body(request)
    try:
        research = ResearchRequest.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first.get("loc") else None
        return field_error(field, error_message(first))
    if research.docs:
        folder = state.allowed_folder(research.docs)
        if folder is None:
            return field_error("docs", "this documents folder is not in the allowed list")
        research = research.model_copy(update={"docs": str(folder)})
    try:
        prepared = await asyncio.to_thread(prepare_run, research, state.settings.config_file)
    except RequestError as exc:
        return field_error(exc.field, str(exc))
    except ResearchStudioError as exc:
        return field_error(None, str(exc))
    state.manager.start(prepared.folder, prepared.config, prepared.initial)
    run_id = prepared.folder.record.run_id
    return JSONResponse(
        {
            "run_id": run_id,
            "url": f"/runs/{run_id}",
            "model": prepared.model_choice.model,
            "search": prepared.search_choice.name,
        },
        status_code=201,
    )

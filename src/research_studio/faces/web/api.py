"""The JSON and SSE API the pages use: new runs, status, events, report, sources, runs list."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import ValidationError
from sse_starlette.sse import EventSourceResponse

from research_studio.core.config import SECRET_FIELDS, Configuration
from research_studio.core.config_loading import error_message, load_configuration
from research_studio.core.declarations import DECLARED, Declared, reword
from research_studio.core.errors import (
    NotFound,
    RequestError,
    ResearchStudioError,
    RunConflict,
)
from research_studio.faces.web.progress import follow, result_metadata
from research_studio.faces.web.report_view import report_fragment, source_card
from research_studio.faces.web.settings import EXAMPLE_DOCS
from research_studio.faces.web.state import WebState, check_sid, web_state
from research_studio.pipelines.registry import names, single_worker_names
from research_studio.run.audit import audit_run
from research_studio.run.launch import (
    FORM_SETTINGS,
    ResearchRequest,
    honoured_by,
    prepare_run,
)
from research_studio.run.runs import list_runs, run_folders
from research_studio.run.steps import after_loop, step_table
from research_studio.services.resolution import choose_model, choose_search

if TYPE_CHECKING:
    from research_studio.export import Export

router = APIRouter(prefix="/api")
State = Annotated[WebState, Depends(web_state)]
# As research_studio.export.ExportFormat (imported lazily: PDF and DOCX libraries load slowly).
ExportName = Literal["md", "html", "pdf", "docx", "bib", "ris"]
# The form sends a flat object; deeper bodies are refused before anything walks them.
MAX_JSON_DEPTH = 16
TOO_DEEP = f"the body nests deeper than {MAX_JSON_DEPTH} levels"
# A form's body (a question, settings, an answer) is small; more is refused before it is read.
MAX_BODY_BYTES = 1_000_000
TOO_LARGE = f"the body is larger than {MAX_BODY_BYTES:,} bytes"


def _in_web_words(declared: Declared) -> str:
    """A setting as a web user can set it: a field of the form, or the server's settings."""
    if declared.name in (*FORM_SETTINGS, "docs"):
        return f"the {declared.label} field"
    return f"the server's {declared.name} setting"


def field_error(field: str | None, message: str, status: int = 422) -> JSONResponse:
    """The error shape the page shows beside a field (or above the form without one).

    Messages name CLI flags where they give advice; the page says them in its own words.
    """
    return JSONResponse(
        {"field": field, "message": reword(message, _in_web_words)}, status_code=status
    )


async def _json_body(request: Request) -> dict[str, Any]:
    # JSON only: a cross-site form cannot send it without a preflight this server never allows.
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise HTTPException(415, "send JSON (application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise HTTPException(413, TOO_LARGE)
    raw = bytearray()
    async for chunk in request.stream():  # a body sent in chunks declares no length
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise HTTPException(413, TOO_LARGE)
    try:
        body = json.loads(raw)
    except RecursionError:  # the decoder recursed through nesting no form ever sends
        raise HTTPException(422, TOO_DEEP) from None
    except ValueError:
        raise HTTPException(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the body must be a JSON object")
    if _nesting(body) > MAX_JSON_DEPTH:
        raise HTTPException(422, TOO_DEEP)
    return body


def _nesting(value: Any) -> int:
    """How deeply lists and objects nest in a decoded JSON value (without recursing)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                stack.extend(
                    (child, depth + 1)
                    for child in (item.values() if isinstance(item, dict) else item)
                )
    return deepest


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
        "settings": {name: DECLARED[name].form() for name in (*FORM_SETTINGS, "docs")},
        "honoured_by": {name: list(pipelines) for name, pipelines in honoured_by().items()},
        "docs": [
            {"value": state.docs_name(root), "label": _docs_label(state, root)}
            for root in state.allowed_docs
        ],
        "default_docs": default_docs,
    }


@router.get("/steps")
async def steps() -> dict[str, Any]:
    """Graph nodes in words (the same table as the terminal's progress) and the post-loop steps."""
    return {"words": step_table(), "after_loop": sorted(after_loop())}


@router.get("/config")
async def config(state: State) -> dict[str, Any]:
    """The server's settings without any secret (keys dropped, credentials in URLs masked)."""
    loaded = await asyncio.to_thread(load_configuration, config_file=state.settings.config_file)
    data = loaded.config.redacted()  # one redaction for the CLI and the web
    return {name: value for name, value in data.items() if name not in SECRET_FIELDS}


def _resolution(
    state: WebState, model: str | None, search: str | None, docs: Path | None
) -> dict[str, Any]:
    overrides = {"model": model, "search": search, "docs": [str(docs)] if docs else None}
    answer: dict[str, Any] = {}
    try:
        config = load_configuration(overrides, config_file=state.settings.config_file).config
    except ResearchStudioError as exc:
        return {"error": reword(str(exc), _in_web_words)}
    try:
        choice = choose_model(config)
        answer["model"] = {
            "model": choice.model,
            "fast_model": choice.fast_model,
            "reason": choice.reason,
        }
    except ResearchStudioError as exc:
        answer["model"] = {"error": reword(str(exc), _in_web_words)}
    try:
        picked = choose_search(config)
        answer["search"] = {"name": picked.name, "reason": picked.reason}
    except ResearchStudioError as exc:
        answer["search"] = {"error": reword(str(exc), _in_web_words)}
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
    body = await _json_body(request)
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


def _cost(folder: Path) -> float | None:
    cost = (result_metadata(folder) or {}).get("cost_usd")
    return float(cost) if isinstance(cost, int | float) else None


def _listing(state: WebState) -> list[dict[str, Any]]:
    rows = []
    folders = run_folders(state.runs_dir)
    for record in list_runs(state.runs_dir):
        rows.append(
            {
                "run_id": record.run_id,
                "status": record.status,
                "pipeline": record.pipeline,
                "mode": record.mode,
                "query": record.query,
                "created": record.created,
                "error": record.error,
                "cost_usd": _cost(folders.get(record.run_id, state.runs_dir / record.run_id)),
                "running_here": state.manager.running(record.run_id),
            }
        )
    return rows


@router.get("/runs")
async def runs(state: State) -> list[dict[str, Any]]:
    """Every run in runs_dir, newest first."""
    return await asyncio.to_thread(_listing, state)


@router.get("/runs/{run_id}")
async def run_detail(run_id: str, state: State) -> dict[str, Any]:
    """The run record, its status (and pending question), and its metadata when finished."""
    folder = await asyncio.to_thread(state.folder, run_id)
    record = folder.record.model_dump(mode="json", exclude={"owner"})
    if record["settings"].get("docs"):  # by name, as the form offers them: no server path
        record["settings"]["docs"] = [Path(root).name for root in record["settings"]["docs"]]
    metadata = await asyncio.to_thread(result_metadata, folder.path)
    return {"record": record, **state.status(folder), "metadata": metadata}


@router.get("/runs/{run_id}/events")
async def events(
    run_id: str, request: Request, state: State, after: Annotated[int, Query(ge=0)] = 0
) -> EventSourceResponse:
    """Server-Sent Events from events.jsonl (after Last-Event-ID, else `after`), then live."""
    folder = await asyncio.to_thread(state.folder, run_id)
    # The page passes `after` when it follows again (Resume); a reconnect sends Last-Event-ID.
    last = request.headers.get("last-event-id", str(after))
    after = int(last) if last.isdigit() else 0
    stream = follow(
        folder.path,
        after,
        state.status,
        lambda: state.manager.running(folder.record.run_id),
    )
    return EventSourceResponse(stream, ping=10)


@router.get("/runs/{run_id}/report", response_class=HTMLResponse)
async def report(run_id: str, state: State) -> HTMLResponse:
    """The report body as HTML; each citation is <a class="cite" data-sid data-statement>."""
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        return HTMLResponse(await asyncio.to_thread(report_fragment, folder.path))
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None


@router.get("/runs/{run_id}/audit")
async def audit(run_id: str, state: State) -> dict[str, Any]:
    """The audit verdict of the finished run."""
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        verdict = await asyncio.to_thread(audit_run, folder.path)
    except ResearchStudioError as exc:
        raise HTTPException(404, str(exc)) from None
    return {
        "ok": verdict.ok,
        "summary": verdict.summary(),
        "problems": verdict.problems,
        "failing": [check.statement for check in verdict.statements if check.verdict == "fails"],
        "answered": verdict.answered,
        "unanswered": verdict.unanswered,
    }


@router.get("/runs/{run_id}/sources/{sid}")
async def source(
    run_id: str, sid: str, state: State, statement: Annotated[int | None, Query(ge=0)] = None
) -> dict[str, Any]:
    """A citation's source card: the quotes backing the statement, located in the kept text."""
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        return await asyncio.to_thread(
            source_card, folder.path, check_sid(sid), statement, folder.record.documents_folders()
        )
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from None


def _export(path: Path, fmt: ExportName) -> Export:
    # Imported here, off the event loop: the PDF and DOCX libraries take a while to load.
    from research_studio.export import export_run

    return export_run(path, fmt)


@router.get("/runs/{run_id}/export/{fmt}")
async def export(run_id: str, fmt: ExportName, state: State) -> Response:
    """The report or its sources in a download format (md, html, pdf, docx, bib, ris)."""
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        made = await asyncio.to_thread(_export, folder.path, fmt)
    except ImportError:
        raise HTTPException(501, "exports are not available in this version") from None
    except ResearchStudioError as exc:
        raise HTTPException(409, str(exc)) from None
    disposition = f'attachment; filename="{made.filename}"'
    return Response(
        made.content, media_type=made.media_type, headers={"content-disposition": disposition}
    )


@router.post("/runs/{run_id}/answer")
async def answer(run_id: str, request: Request, state: State) -> Any:
    """Answer a paused run's question (clarification or review); the run continues."""
    body = await _json_body(request)
    text = body.get("answer")
    if not isinstance(text, str):
        return field_error("answer", "the answer must be text")
    folder = await asyncio.to_thread(state.folder, run_id)
    if not folder.record.status.startswith("awaiting"):
        return field_error(
            "answer", f"the run is {folder.record.status}, not waiting for an answer", 409
        )
    return await _resume(state, run_id, text.strip())


@router.post("/runs/{run_id}/resume")
async def resume(run_id: str, request: Request, state: State) -> Any:
    """Continue an interrupted, failed or paused run from its last checkpoint."""
    await _json_body(request)  # JSON only, as every POST: no cross-site form can send it
    return await _resume(state, run_id, None)


async def _resume(state: WebState, run_id: str, text: str | None) -> Any:
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        await state.manager.resume(folder, text)
    except RunConflict as exc:
        return field_error(None, str(exc), 409)
    except ResearchStudioError as exc:
        return field_error(None, str(exc))
    return JSONResponse({"run_id": run_id, "status": "running"}, status_code=202)


@router.post("/runs/{run_id}/cancel")
async def cancel(run_id: str, request: Request, state: State) -> Any:
    """Cancel a run this server runs; it is saved as interrupted and can resume."""
    await _json_body(request)
    folder = await asyncio.to_thread(state.folder, run_id)
    try:
        state.manager.cancel(folder.record.run_id)
    except RunConflict as exc:
        return field_error(None, str(exc), 409)
    return JSONResponse({"run_id": run_id, "status": "cancelling"}, status_code=202)


@router.delete("/runs/{run_id}")
async def delete(run_id: str, state: State) -> Any:
    """Delete a run folder that is not running (only inside runs_dir)."""
    folder = await asyncio.to_thread(state.folder, run_id)
    if state.manager.running(run_id) or folder.record.status == "running":
        return field_error(None, f"run {run_id} is running; cancel it first", 409)
    with state.manager.reserve(run_id):  # no resume starts it while its folder goes
        await asyncio.to_thread(shutil.rmtree, folder.path)
        state.manager.pending.pop(run_id, None)
    return {"run_id": run_id, "deleted": True}

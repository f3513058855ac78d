"""The JSON and SSE API of the runs: status, events, report, sources, exports, answers, the list.

The new research form's part (options, resolution, starting a run) is form_api.py."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sse_starlette.sse import EventSourceResponse

from research_studio.core.config import SECRET_FIELDS
from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import (
    NotFound,
    ResearchStudioError,
    RunConflict,
)
from research_studio.faces.web.bodies import field_error, json_body
from research_studio.faces.web.progress import follow, result_metadata
from research_studio.faces.web.report_view import report_fragment, source_card
from research_studio.faces.web.state import State, WebState, check_sid
from research_studio.run.audit import audit_run
from research_studio.run.runs import list_runs, run_folders
from research_studio.run.steps import after_loop, step_table

if TYPE_CHECKING:
    from research_studio.export import Export

router = APIRouter(prefix="/api")
# As research_studio.export.ExportFormat (imported lazily: PDF and DOCX libraries load slowly).
ExportName = Literal["md", "html", "pdf", "docx", "bib", "ris"]


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
                "error": state.said_error(record.error),
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
    record["error"] = state.said_error(record["error"])
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
    body = await json_body(request)
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
    await json_body(request)  # JSON only, as every POST: no cross-site form can send it
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
    await json_body(request)
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

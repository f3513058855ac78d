"""The web app: pages from web/static, the API, the access guard, and the run manager's life."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.requests import Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from research_studio.core.config_loading import load_configuration
from research_studio.core.errors import NotFound, ResearchStudioError
from research_studio.faces.web.access import AccessGuard
from research_studio.faces.web.api import router as runs_router
from research_studio.faces.web.form_api import router as form_router
from research_studio.faces.web.manager import RunManager
from research_studio.faces.web.pages import STATIC, render
from research_studio.faces.web.settings import ServeSettings
from research_studio.faces.web.state import WebState

# Static text only: the unknown run id is not echoed back.
NOT_FOUND_PAGE = (
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>No such run</title>'
    '<link rel="stylesheet" href="/static/style.css"></head><body><main><h1>No such run</h1>'
    '<p>This run does not exist (it may have been deleted). <a href="/runs">All runs</a></p>'
    "</main></body></html>\n"
)


def create_app(settings: ServeSettings) -> FastAPI:
    """The ASGI app serving the research pages for these settings (blocking set-up: call early)."""
    config = load_configuration(config_file=settings.config_file).config
    runs_dir = config.runs_dir.resolve()
    runs_dir.mkdir(parents=True, exist_ok=True)
    manager = RunManager(settings.config_file)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await manager.shutdown()  # runs are saved as interrupted and can resume

    app = FastAPI(
        title="Research Studio",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.web = web = WebState(settings, runs_dir, settings.allowed_docs(), manager)
    app.include_router(form_router)
    app.include_router(runs_router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    said = web.said  # the page never shows the server's paths

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(
            {"field": None, "message": said(str(exc.detail))}, status_code=exc.status_code
        )

    @app.exception_handler(ResearchStudioError)
    async def run_error(_request: Request, exc: ResearchStudioError) -> JSONResponse:
        # A run folder a reader finds damaged (half-written, edited by hand): its reason in
        # one line, not a bare 500.
        status = 404 if isinstance(exc, NotFound) else 409
        return JSONResponse({"field": None, "message": said(str(exc))}, status_code=status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # A bad path or query value (an unknown export format) in the one error shape.
        first = exc.errors()[0] if exc.errors() else {}
        location = [str(part) for part in first.get("loc", ()) if part not in ("path", "query")]
        message = str(first.get("msg") or "invalid request")
        field = location[-1] if location else None
        return JSONResponse({"field": field, "message": message}, status_code=422)

    @app.get("/", include_in_schema=False)
    async def new_research() -> HTMLResponse:
        return HTMLResponse(render("index"))

    @app.get("/runs", include_in_schema=False)
    async def runs_page() -> HTMLResponse:
        return HTMLResponse(render("runs"))

    @app.get("/runs/{run_id}", include_in_schema=False)
    async def run_page(run_id: str, request: Request) -> HTMLResponse:
        state: WebState = request.app.state.web
        try:
            await asyncio.to_thread(state.folder, run_id)
        except HTTPException:
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        return HTMLResponse(render("run"))

    app.add_middleware(AccessGuard, token=settings.token)
    return app

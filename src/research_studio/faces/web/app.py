"""The web app: pages from web/static, the API, the access guard, and the run manager's life."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.requests import Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from research_studio.core.config import load_configuration
from research_studio.faces.web.access import AccessGuard
from research_studio.faces.web.api import router
from research_studio.faces.web.manager import RunManager
from research_studio.faces.web.settings import ServeSettings
from research_studio.faces.web.state import WebState

STATIC = Path(__file__).parent / "static"


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
    app.state.web = WebState(settings, runs_dir, settings.allowed_docs(), manager)
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(
            {"field": None, "message": str(exc.detail)}, status_code=exc.status_code
        )

    @app.get("/", include_in_schema=False)
    async def new_research() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/runs", include_in_schema=False)
    async def runs_page() -> FileResponse:
        return FileResponse(STATIC / "runs.html")

    @app.get("/runs/{run_id}", include_in_schema=False)
    async def run_page(run_id: str) -> FileResponse:
        return FileResponse(STATIC / "run.html")

    app.add_middleware(AccessGuard, token=settings.token)
    return app

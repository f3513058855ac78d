"""What every route shares: the settings, the run manager, and the safe way to a run folder."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from research_studio.core.errors import ResearchStudioError
from research_studio.faces.web.manager import PENDING_KINDS, Pending, RunManager
from research_studio.faces.web.settings import ServeSettings
from research_studio.run.runs import RECORD_FILE, RunFolder, run_path

# Run ids as new_run_id makes them (and --out names): no separators, no "..", nothing hidden.
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_SID = re.compile(r"^S\d{1,6}$")


@dataclass
class WebState:
    """The server's settings, its runs folder, allowed document folders and run manager."""

    settings: ServeSettings
    runs_dir: Path
    allowed_docs: list[Path]
    manager: RunManager

    def said(self, message: str) -> str:
        """Text as a page shows it: never the server's paths (a run folder by its run id)."""
        runs = str(self.runs_dir)
        return message.replace(f"{runs}/", "").replace(runs, "the runs folder")

    def said_error(self, error: str | None) -> str | None:
        """A run's saved error (run.json) as a page shows it, or None."""
        return None if error is None else self.said(error)

    def folder(self, run_id: str) -> RunFolder:
        """The run folder of this id inside runs_dir; 404 for anything else."""
        if not _RUN_ID.match(run_id) or ".." in run_id:
            raise HTTPException(404, "no such run")
        found = run_path(self.runs_dir, run_id)  # by the id the runs list links to
        path = found.resolve() if found is not None else None
        if path is None or path.parent != self.runs_dir or not (path / RECORD_FILE).is_file():
            raise HTTPException(404, "no such run")
        try:
            return RunFolder.open(path)
        except ResearchStudioError as exc:
            raise HTTPException(404, str(exc)) from None

    def docs_name(self, root: Path) -> str:
        """How the page names an allowed documents folder (never by its path on the server):
        its name, with its parent's when two allowed folders share one."""
        names = [other.name for other in self.allowed_docs]
        return root.name if names.count(root.name) == 1 else f"{root.parent.name}/{root.name}"

    def allowed_folder(self, docs: str) -> Path | None:
        """The documents folder the page names (`docs_name`), or an absolute path of one of the
        allowed folders (or inside one); else None."""
        for root in self.allowed_docs:
            if docs == self.docs_name(root):
                return root
        path = Path(docs).expanduser()
        if not path.is_absolute():
            return None
        resolved = path.resolve()
        if any(resolved == root or resolved.is_relative_to(root) for root in self.allowed_docs):
            return resolved
        return None

    def status(self, folder: RunFolder) -> dict[str, Any]:
        """The run's status as the page shows it, with the question a paused run asks."""
        record = folder.record
        status = record.status
        pending = self.manager.pending.get(record.run_id) if status.startswith("awaiting") else None
        if pending is None and record.pending_question is not None:
            # Paused by an earlier server or the CLI: the question is kept in run.json.
            kind = PENDING_KINDS.get(status)
            pending = kind and Pending(kind, record.pending_question, record.pending_options)
        return {
            "status": status,
            "error": self.said_error(record.error),
            "running_here": self.manager.running(record.run_id),
            "pending": None
            if pending is None
            else {"kind": pending.kind, "question": pending.question, "options": pending.options},
        }


def web_state(request: Request) -> WebState:
    state: WebState = request.app.state.web
    return state


# An endpoint's parameter: the app's state.
State = Annotated[WebState, Depends(web_state)]


def check_sid(sid: str) -> str:
    if not _SID.match(sid):
        raise HTTPException(404, "no such source")
    return sid

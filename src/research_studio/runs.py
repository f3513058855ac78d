"""Run folders: the run record, events.jsonl, checkpoints, and atomically written outputs."""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from research_studio.errors import ResearchStudioError

RunStatus = Literal["running", "awaiting_clarification", "interrupted", "failed", "completed"]
RECORD_FILE = "run.json"
EVENTS_FILE = "events.jsonl"
CHECKPOINTS_FILE = "checkpoints.sqlite"
REPORT_FILE = "report.md"
RESULT_FILE = "result.json"
PAGES_FILE = "pages.sqlite"


class RunRecord(BaseModel):
    """What a run folder says about its run; enough to resume it."""

    run_id: str
    query: str
    pipeline: str
    mode: str
    status: RunStatus = "running"
    created: str = Field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    )
    updated: str = ""
    settings: dict[str, Any] = Field(
        default_factory=dict, description="Configuration overrides, no secrets."
    )
    interactive_clarify: bool = True
    error: str | None = None


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a crash never leaves a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class RunFolder:
    """One run's folder: record, events, checkpoints and outputs."""

    def __init__(self, path: Path, record: RunRecord) -> None:
        self.path = path
        self.record = record

    @classmethod
    def create(cls, path: Path, record: RunRecord) -> RunFolder:
        """A new folder for a new run (an existing run's folder is never reused)."""
        if (path / RECORD_FILE).exists():
            raise ResearchStudioError(f"{path} already holds a run; choose another --out")
        path.mkdir(parents=True, exist_ok=True)
        folder = cls(path, record)
        folder.save()
        return folder

    @classmethod
    def open(cls, path: Path) -> RunFolder:
        """An existing run's folder."""
        try:
            record = RunRecord.model_validate_json((path / RECORD_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ResearchStudioError(f"no run found at {path}") from None
        except ValueError as exc:
            raise ResearchStudioError(f"the run record in {path} is damaged: {exc}") from exc
        return cls(path, record)

    @property
    def checkpoints(self) -> Path:
        return self.path / CHECKPOINTS_FILE

    def save(self, **changes: Any) -> None:
        """Update the record and write it atomically."""
        for name, value in changes.items():
            setattr(self.record, name, value)
        self.record.updated = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        write_atomically(self.path / RECORD_FILE, self.record.model_dump_json(indent=2))

    def event(
        self, node: str, kind: str, message: str, counts: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Append one event line (flushed at once, so a killed run keeps its events)."""
        entry = {
            "time": round(time.time(), 3),
            "node": node,
            "kind": kind,
            "message": message,
            "counts": counts or {},
        }
        with (self.path / EVENTS_FILE).open("a", encoding="utf-8") as stream:
            stream.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")
        return entry

    def write_outputs(self, report: str, result: dict[str, Any]) -> None:
        """report.md and result.json, each written atomically."""
        write_atomically(self.path / REPORT_FILE, report)
        write_atomically(
            self.path / RESULT_FILE, json.dumps(result, indent=2, ensure_ascii=False, default=str)
        )


def find_run(runs_dir: Path, run: str) -> RunFolder:
    """A run by id (inside runs_dir) or by folder path."""
    candidate = Path(run)
    path = candidate if (candidate / RECORD_FILE).exists() else runs_dir / run
    return RunFolder.open(path)


def list_runs(runs_dir: Path) -> list[RunRecord]:
    """Every run under runs_dir, newest first; damaged folders are skipped."""
    records = []
    for record_file in sorted(runs_dir.glob(f"*/{RECORD_FILE}")):
        try:
            records.append(RunRecord.model_validate_json(record_file.read_text(encoding="utf-8")))
        except ValueError:
            continue
    return sorted(records, key=lambda record: record.created + record.run_id, reverse=True)

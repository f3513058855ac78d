"""Snapshots: one run folder per case and pipeline, with what the evaluation needs beside it.

A snapshot is the run's own folder (report.md, result.json, sources/S<n>.txt, events.jsonl,
calls.jsonl) plus eval.json (the case, how the run went, its plan and coverage history, its
cost) and judgements.json (judge verdicts by prompt, so re-scoring calls no model twice).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from research_studio.core.errors import ResearchStudioError
from research_studio.core.files import write_atomically
from research_studio.evaluation.verdicts import Costs
from research_studio.run.runs import (
    CHECKPOINTS_FILE,
    PAGES_FILE,
    RECORD_FILE,
    RESULT_FILE,
)
from research_studio.sources.archive import kept_page_path

EVAL_FILE = "eval.json"
JUDGEMENTS_FILE = "judgements.json"
# Resumable state and the page cache: not needed to score a run, and large.
_TRIMMED = (CHECKPOINTS_FILE, f"{CHECKPOINTS_FILE}-wal", f"{CHECKPOINTS_FILE}-shm", PAGES_FILE)


class SnapshotInfo(BaseModel):
    """How one case ran through one pipeline (eval.json)."""

    case_id: str
    pipeline: str
    query: str
    case: dict[str, Any] = Field(default_factory=dict, description="The case as it was run.")
    status: str = "completed"
    error: str | None = None
    flagged_ambiguous: bool = False
    plan: list[str] = Field(default_factory=list)
    coverage_history: list[float] = Field(default_factory=list)
    model: str | None = None
    search: str | None = None
    judge: str | None = None
    created: str = Field(
        default_factory=lambda: dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    )
    elapsed_s: float = 0.0
    costs: Costs = Field(default_factory=Costs)


@dataclass
class RunOutput:
    """A finished (or failed) run as the evaluators read it."""

    folder: Path
    info: SnapshotInfo
    result: dict[str, Any] = field(default_factory=dict)
    _pages: dict[str, str | None] = field(default_factory=dict, repr=False)

    @property
    def completed(self) -> bool:
        return self.info.status == "completed" and bool(self.result)

    def page(self, sid: str) -> str | None:
        """The kept text of a source, None when the run kept none."""
        if sid not in self._pages:
            path = kept_page_path(self.folder, sid)
            self._pages[sid] = path.read_text(encoding="utf-8") if path.is_file() else None
        return self._pages[sid]


def snapshot_folder(root: Path, case_id: str, pipeline_folder: str) -> Path:
    """Where one case's run through one pipeline is kept."""
    return root / case_id / pipeline_folder


def clear_snapshot(folder: Path) -> None:
    """Remove an earlier snapshot before a new run takes its place; never a folder it did not make."""
    if not folder.exists():
        return
    if not (folder / EVAL_FILE).is_file() and not (folder / RECORD_FILE).is_file():
        raise ResearchStudioError(f"{folder} exists but is not an eval snapshot; move it away")
    shutil.rmtree(folder)


def trim(folder: Path) -> None:
    """Drop checkpoints and the page cache: the kept source texts are what scoring reads."""
    for name in _TRIMMED:
        (folder / name).unlink(missing_ok=True)


def save_info(folder: Path, info: SnapshotInfo) -> None:
    """Write eval.json atomically."""
    write_atomically(folder / EVAL_FILE, info.model_dump_json(indent=2))


def load_output(folder: Path) -> RunOutput:
    """A snapshot folder as a RunOutput; a one-line error when it is not one."""
    try:
        info = SnapshotInfo.model_validate_json((folder / EVAL_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResearchStudioError(f"no snapshot in {folder} ({EVAL_FILE} missing)") from None
    except (ValidationError, ValueError) as exc:
        raise ResearchStudioError(f"{folder / EVAL_FILE} is damaged: {exc}") from None
    result: dict[str, Any] = {}
    result_file = folder / RESULT_FILE
    if result_file.is_file():
        try:
            result = json.loads(result_file.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise ResearchStudioError(f"{result_file} is damaged: {exc}") from None
    return RunOutput(folder=folder, info=info, result=result)


def find_snapshots(root: Path) -> list[Path]:
    """Every snapshot folder under root (<case>/<pipeline>/eval.json), sorted."""
    return sorted(path.parent for path in root.glob(f"*/*/{EVAL_FILE}"))


class VerdictStore:
    """Judge verdicts of one snapshot, keyed by judge model, schema and prompt."""

    def __init__(self, folder: Path | None, *, reuse: bool = True) -> None:
        self._file = folder / JUDGEMENTS_FILE if folder is not None else None
        self._verdicts: dict[str, Any] = {}
        if reuse and self._file is not None and self._file.is_file():
            try:
                loaded = json.loads(self._file.read_text(encoding="utf-8"))
            except ValueError:
                loaded = {}  # a damaged cache only costs calls
            self._verdicts = loaded if isinstance(loaded, dict) else {}
        self._changed = False

    @staticmethod
    def key(spec: str, schema: dict[str, Any], prompt: list[tuple[str, str]]) -> str:
        """A stable key: the same judge asked the same thing in the same form."""
        payload = json.dumps([spec, schema, prompt], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Any | None:
        return self._verdicts.get(key)

    def put(self, key: str, value: Any) -> None:
        self._verdicts[key] = value
        self._changed = True

    def save(self) -> None:
        """Write the verdicts when new ones came in."""
        if self._file is not None and self._changed:
            write_atomically(
                self._file, json.dumps(self._verdicts, indent=1, ensure_ascii=False, sort_keys=True)
            )
            self._changed = False

"""Run folders: the run record, events.jsonl, checkpoints, and atomically written outputs."""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from research_studio.core.errors import ResearchStudioError
from research_studio.core.files import write_atomically
from research_studio.core.question import check_query as check_query  # where it always was
from research_studio.core.urls import display_nested

RunStatus = Literal[
    "running",
    "awaiting_clarification",
    "awaiting_plan_review",
    "awaiting_review",
    "cancelled",
    "interrupted",
    "failed",
    "completed",
]
RECORD_FILE = "run.json"
EVENTS_FILE = "events.jsonl"
CHECKPOINTS_FILE = "checkpoints.sqlite"
REPORT_FILE = "report.md"
RESULT_FILE = "result.json"
PAGES_FILE = "pages.sqlite"
STORE_FILE = "store.sqlite"  # the LangGraph store (the supervisor pipeline keeps its sources there)
CALLS_FILE = "calls.jsonl"


def _process_start_time(pid: int) -> float | None:
    """When a process started (seconds since the epoch), from /proc; None where unknown or gone.

    With the pid it identifies a process even after the pid is reused. A zombie counts as gone.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        boot = next(
            line.split()[1]
            for line in Path("/proc/stat").read_text(encoding="ascii").splitlines()
            if line.startswith("btime ")
        )
    except (OSError, StopIteration, UnicodeDecodeError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the command name in parentheses may hold spaces
    if fields[0] in ("Z", "X"):
        return None
    return round(int(boot) + int(fields[19]) / os.sysconf("SC_CLK_TCK"), 2)


def _pid_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


class RunOwner(BaseModel):
    """The process executing a run, so others can tell a live run from a dead one."""

    model_config = ConfigDict(defer_build=True)  # built on first use, not by every --help

    pid: int
    host: str
    started: float | None = Field(None, description="Process start time, where the OS tells it.")

    @classmethod
    def current(cls) -> RunOwner:
        """This process."""
        return cls(
            pid=os.getpid(), host=socket.gethostname(), started=_process_start_time(os.getpid())
        )

    def alive(self) -> bool | None:
        """Whether the owner still runs; None when it cannot be told (another host, Windows)."""
        if self.host != socket.gethostname() or sys.platform == "win32":
            return None
        if self.started is not None:  # pid and start time: a reused pid is not the owner
            return _process_start_time(self.pid) == self.started
        return _pid_exists(self.pid)


class RunRecord(BaseModel):
    """What a run folder says about its run; enough to resume it."""

    model_config = ConfigDict(defer_build=True)

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
    owner: RunOwner | None = Field(None, description="The process executing the run.")
    attempts: int = Field(0, description="Executions started: the first and each resume.")
    pending_question: str | None = Field(
        None, description="What a paused run asks (clarification, plan or review), until answered."
    )
    pending_options: list[str] = Field(default_factory=list)

    def documents_folders(self) -> list[str]:
        """The documents folders the run searched (`--docs`), as its settings recorded them."""
        docs = self.settings.get("docs") or []
        return [str(root) for root in (docs if isinstance(docs, list) else [docs])]

    def seen_from_here(self) -> RunRecord:
        """The record with a `running` run whose owner is gone shown as `interrupted`."""
        if self.status != "running" or (self.owner is not None and self.owner.alive() is not False):
            return self
        gone = f"process {self.owner.pid} on {self.owner.host}" if self.owner else "its process"
        return self.model_copy(
            update={"status": "interrupted", "error": self.error or f"{gone} stopped"}
        )


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


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
        if path.exists() and not path.is_dir():
            raise ResearchStudioError(
                f"{path} is a file, not a folder: --out names the run's folder; choose another"
            )
        existed = path.exists()
        path.mkdir(parents=True, exist_ok=True)
        record.owner = RunOwner.current()
        folder = cls(path, record)
        try:
            folder.save()
        except BaseException:
            if not existed:  # never leave an empty run folder behind
                path.rmdir()
            raise
        return folder

    @classmethod
    def open(cls, path: Path) -> RunFolder:
        """An existing run's folder."""
        try:
            record = RunRecord.model_validate_json((path / RECORD_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ResearchStudioError(f"no run found at {path}") from None
        except ValidationError as exc:  # pydantic's own text spans lines and links its docs
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            reason = f"{where}: {error['msg']}" if where else error["msg"]
            raise ResearchStudioError(f"the run record in {path} is damaged: {reason}") from None
        except ValueError as exc:  # not UTF-8
            raise ResearchStudioError(f"the run record in {path} is damaged: {exc}") from None
        return cls(path, record.seen_from_here())

    @property
    def checkpoints(self) -> Path:
        return self.path / CHECKPOINTS_FILE

    def _check_present(self) -> None:
        """A folder removed while its run ran (deleted by hand) is not written again: the run
        stops in one line instead of bringing back a folder its user deleted."""
        if not self.path.is_dir():
            raise ResearchStudioError(
                f"run {self.record.run_id} stopped: its folder was removed while it ran"
            )

    def save(self, **changes: Any) -> None:
        """Update the record and write it atomically."""
        self._check_present()
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
        self._append(EVENTS_FILE, entry)
        return entry

    def log_call(self, entry: dict[str, Any]) -> None:
        """Append one model-call line to calls.jsonl (flushed at once, like events)."""
        if self.path.is_dir():  # else the run's next event stops it, not the model's callback
            self._append(CALLS_FILE, entry)

    def _append(self, name: str, entry: dict[str, Any]) -> None:
        self._check_present()
        with (self.path / name).open("a", encoding="utf-8") as stream:
            stream.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")

    def call_totals(self) -> dict[str, int]:
        """Model calls and tokens over every attempt, from calls.jsonl.

        A call counts when it was sent ("start" line); tokens come from the calls that ended.
        A line cut short by a kill is skipped.
        """
        calls = prompt = completion = 0
        try:
            lines = (self.path / CALLS_FILE).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("phase") == "start":
                calls += 1
            elif entry.get("phase") == "end":
                prompt += entry.get("prompt_tokens") or 0
                completion += entry.get("completion_tokens") or 0
        return {
            "attempts": self.record.attempts,
            "llm_calls_all_attempts": calls,
            "prompt_tokens_all_attempts": prompt,
            "completion_tokens_all_attempts": completion,
        }

    def write_outputs(self, report: str, result: dict[str, Any]) -> dict[str, Any]:
        """report.md, result.json and their manifest (see `write_outputs`); returns the result."""
        return write_outputs(self.path, report, result, self.record.documents_folders())


def write_outputs(
    path: Path, report: str, result: dict[str, Any], roots: Sequence[str] = ()
) -> dict[str, Any]:
    """A finished run's outputs in `path`, each written atomically; returns result.json's content.

    Sources are renumbered by first citation (kept texts, which must be there, included) and the
    outputs sealed by `manifest.json`. A local document is named by its path in its documents
    folder (`roots`), as report.md and the exports name it: never by this machine's path.
    """
    # Both import sources.archive, which imports this module.
    from research_studio.run.manifest import MANIFEST_FILE, seal
    from research_studio.run.numbering import renumber_outputs

    report, result = renumber_outputs(path, report, result)
    result, manifest = seal(report, display_nested(result, roots), path)
    write_atomically(path / REPORT_FILE, report)
    write_atomically(
        path / RESULT_FILE, json.dumps(result, indent=2, ensure_ascii=False, default=str)
    )
    write_atomically(path / MANIFEST_FILE, json.dumps(manifest, indent=2, ensure_ascii=False))
    return result


def find_run(runs_dir: Path, run: str) -> RunFolder:
    """A run by folder path, by id inside runs_dir, or by a unique prefix of its id.

    An ambiguous prefix is a one-line error naming the candidates. No message names a path of
    this machine (a server passes them on to its clients).
    """
    candidate = Path(run).expanduser()
    if run and _is_file(candidate / RECORD_FILE):
        return RunFolder.open(candidate)
    found = run_path(runs_dir, run)
    if found is not None:
        return RunFolder.open(found)
    folders = run_folders(runs_dir) if run and _plain_name(run) else {}
    matches = sorted(run_id for run_id in folders if run_id.startswith(run))
    if len(matches) == 1:
        return RunFolder.open(folders[matches[0]])
    if len(matches) > 1:
        shown = ", ".join(matches[:5]) + (
            f" and {len(matches) - 5} more" if len(matches) > 5 else ""
        )
        raise ResearchStudioError(f"run id prefix {run!r} matches {len(matches)} runs: {shown}")
    raise ResearchStudioError(
        f"no run found: {run!r} is neither a run id nor a run folder "
        "(`research-studio runs` lists the run ids)"
    )


def _is_file(path: Path) -> bool:
    """Whether the path is a file; False for a name the system refuses (too long, a NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _record_id(record_file: Path) -> str | None:
    """The run id a run.json holds; None when it cannot be read."""
    try:
        data = json.loads(record_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    run_id = data.get("run_id") if isinstance(data, dict) else None
    return run_id if isinstance(run_id, str) else None


def run_folders(runs_dir: Path) -> dict[str, Path]:
    """Every run folder directly under runs_dir by the id in its run.json: the id `runs`, the
    web page and MCP show. A folder is named after its id, except one saved with `--out NAME`
    inside runs_dir, which is found by its id all the same."""
    found: dict[str, Path] = {}
    for record_file in sorted(runs_dir.glob(f"*/{RECORD_FILE}")):
        run_id = _record_id(record_file)
        if run_id:
            found.setdefault(run_id, record_file.parent)
    return found


def run_path(runs_dir: Path, run_id: str) -> Path | None:
    """The folder under runs_dir of the run with this id, else the run folder of this name;
    None when there is none.

    The one lookup of a run in runs_dir (CLI, web page): by the id in its run.json (a folder
    named after it first, else a scan), then by folder name (`--out NAME`, a copied folder).
    """
    if not run_id or not _plain_name(run_id):
        return None
    named = runs_dir / run_id
    found = _record_id(named / RECORD_FILE)
    if found == run_id:
        return named
    by_id = run_folders(runs_dir).get(run_id)
    if by_id is not None:
        return by_id
    return named if found is not None else None


def _plain_name(run: str) -> bool:
    """A bare folder name: no separators, no parent references (never leaves runs_dir)."""
    return run not in (".", "..") and not any(sep in run for sep in ("/", "\\", "\0"))


def list_runs(runs_dir: Path, search: str | None = None) -> list[RunRecord]:
    """Every run under runs_dir, newest first (dead owners' runs as interrupted); damaged skipped.

    With `search`, only runs whose question, pipeline, status or id hold it (case ignored).
    """
    records = []
    for record_file in sorted(runs_dir.glob(f"*/{RECORD_FILE}")):
        try:
            record = RunRecord.model_validate_json(record_file.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            continue
        record = record.seen_from_here()
        if search and not matches_search(record, search):
            continue
        records.append(record)
    return sorted(records, key=lambda record: record.created + record.run_id, reverse=True)


def matches_search(record: RunRecord, search: str) -> bool:
    """Whether every word of `search` is in the run's question, pipeline, mode, status or id."""
    haystack = " ".join(
        (record.query, record.pipeline, record.mode, record.status, record.run_id)
    ).casefold()
    return all(word in haystack for word in search.casefold().split())

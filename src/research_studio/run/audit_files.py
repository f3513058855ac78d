"""What the audit reads from a run folder, read as a stranger's files: only regular files inside
the folder, bounded in size, JSON bounded in depth and checked for the shape the audit walks.

A folder copied from elsewhere may hold anything: a report.md that links to /etc/passwd, binary
bytes, a result.json nested 100,000 levels deep or of another shape. Each is one line saying
what is wrong (a `ResearchStudioError`), never a traceback and never the content of a file
outside the folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import (
    Any,
    Required,  # pydantic needs these on Python 3.11
)

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

from research_studio.core.errors import ResearchStudioError, UnreadableDocument
from research_studio.run.manifest import MANIFEST_FILE
from research_studio.run.runs import REPORT_FILE, RESULT_FILE
from research_studio.sources.archive import KEPT_SOURCES_DIR
from research_studio.sources.docfiles import read_bounded, vetted_stat

# Larger than any report, result or kept page a run writes (pages are capped far below this).
MAX_RUN_FILE_BYTES = 64 * 1024 * 1024
# Deeper than anything a run writes; json and the digests recurse, so depth is bounded first.
MAX_JSON_DEPTH = 64


class _Quote(TypedDict, total=False):
    sid: str
    quote: str


class _Statement(TypedDict, total=False):
    tid: str
    text: Required[str]
    sids: list[str]
    quotes: list[_Quote]


class _Source(TypedDict, total=False):
    sid: Required[str]
    url: str
    title: str


class _Evidence(TypedDict, total=False):
    eid: Required[str]
    sid: Required[str]
    quote: str


class _Claim(TypedDict, total=False):
    cid: Required[str]
    text: Required[str]
    cross_validated: bool
    supporting_eids: list[str]


class _Coverage(TypedDict, total=False):
    questions_asked: list[str]


class _Metadata(TypedDict, total=False):
    answer_coverage: _Coverage


class _Result(TypedDict, total=False):
    query: str
    metadata: _Metadata
    sources: list[_Source]
    evidence: list[_Evidence]
    statements: list[_Statement]
    claims: list[_Claim]


class _Line(TypedDict, total=False):
    lead: str
    statements: list[str]


class _Sealed(TypedDict, total=False):
    record: str
    printed: str | None


class _SealedSource(TypedDict, total=False):
    record: str
    kept_text: str | None


class _Manifest(TypedDict, total=False):
    layout: list[_Line]
    statements: dict[str, _Sealed]
    sources: dict[str, _SealedSource]
    evidence: dict[str, str]
    claims: dict[str, str]


_SHAPES: dict[str, TypeAdapter[Any]] = {
    "result": TypeAdapter(_Result),
    "manifest": TypeAdapter(_Manifest),
}


def _decoded(data: bytes) -> str:
    """The text as the run's writer hashed it (`Path.read_text`: UTF-8, universal newlines)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableDocument(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_run_text(folder: Path, name: str) -> str | None:
    """The UTF-8 text of the folder's file `name` (a path inside it); None when there is none.

    Raises a one-line ResearchStudioError for a file that is no regular file inside the folder
    (a link out of it, a pipe), too large, or not UTF-8 text (binary data).
    """
    root = Path(os.path.realpath(folder))
    file = folder / name
    try:
        if not file.is_symlink() and not file.exists():
            return None
        real, info = vetted_stat(file, root, sys.maxsize)  # the size is judged here, for runs
        if info.st_size > MAX_RUN_FILE_BYTES:
            raise UnreadableDocument(
                f"{info.st_size:,} bytes, more than a run writes ({MAX_RUN_FILE_BYTES:,})"
            )
        return _decoded(read_bounded(real, MAX_RUN_FILE_BYTES))
    except UnreadableDocument as exc:
        raise ResearchStudioError(f"{name} of {folder} cannot be audited: {exc}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in a name taken from result.json
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise ResearchStudioError(f"{name} of {folder} cannot be read: {reason}") from None


def _depth_over(value: Any, limit: int) -> bool:
    """True when lists and objects nest deeper than `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def read_run_json(folder: Path, name: str, shape: str) -> dict[str, Any] | None:
    """The folder's JSON file `name` as an object of the `shape` ("result" or "manifest") the
    audit reads; None when there is none; a one-line ResearchStudioError when it is damaged."""
    text = read_run_text(folder, name)
    if text is None:
        return None
    damaged = f"{name} of {folder} is damaged"
    try:
        loaded = json.loads(text)
    except RecursionError:
        raise ResearchStudioError(f"{damaged}: nested too deeply") from None
    except ValueError as exc:
        raise ResearchStudioError(f"{damaged}: {exc}") from None
    if not isinstance(loaded, dict):
        raise ResearchStudioError(f"{damaged}: not a JSON object")
    if _depth_over(loaded, MAX_JSON_DEPTH):
        raise ResearchStudioError(f"{damaged}: nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        _SHAPES[shape].validate_python(loaded, strict=True)  # checked only: digests need it as is
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "top level"
        raise ResearchStudioError(f"{damaged}: {where}: {error['msg']}") from None
    return loaded


class AuditedRun:
    """What the audit reads from a run folder."""

    def __init__(self, path: Path) -> None:
        report = read_run_text(path, REPORT_FILE)
        result = read_run_json(path, RESULT_FILE, "result")
        if report is None or result is None:
            raise ResearchStudioError(f"{path} has no finished report to audit")
        self.result = result
        self.manifest = read_run_json(path, MANIFEST_FILE, "manifest")
        self.path = path
        self.report = report
        self.sources = {source["sid"]: source for source in self.result.get("sources", [])}
        self.evidence = {item["eid"]: item for item in self.result.get("evidence", [])}
        self.records = {
            str(record["tid"]): record
            for record in self.result.get("statements", [])
            if record.get("tid")
        }
        self._pages: dict[str, str | None] = {}

    def page(self, sid: str) -> str | None:
        """The kept page text of a source; None when none was kept."""
        if sid not in self._pages:
            self._pages[sid] = read_run_text(self.path, f"{KEPT_SOURCES_DIR}/{sid}.txt")
        return self._pages[sid]

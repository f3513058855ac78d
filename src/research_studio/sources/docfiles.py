"""Which files of a documents folder may be read, and reading them: inside the folder, bounded."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from research_studio.core.errors import UnreadableDocument
from research_studio.sources.parser_thread import in_parser_thread
from research_studio.sources.parsing import extract_html, extract_pdf

SUPPORTED_SUFFIXES = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
DEFAULT_MAX_DOCUMENT_BYTES = 5_000_000


def _read_text(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise UnreadableDocument("binary data")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableDocument(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_document(path: Path, data: bytes) -> tuple[str, str, str]:
    """(kind, title, text) of a file; raises UnreadableDocument for what cannot be used."""
    kind = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise UnreadableDocument("unsupported file type (Markdown, text, HTML or PDF)")
    title = ""
    if kind == "pdf":
        try:
            title, text = extract_pdf(data)
        except Exception as exc:  # pypdf raises many types for damaged files
            raise UnreadableDocument(f"unreadable PDF ({type(exc).__name__})") from None
    elif kind == "html":
        title, text, _date = in_parser_thread(extract_html, _read_text(data).encode("utf-8"))
    else:
        text = _read_text(data)
        first = text.strip().splitlines()[0].strip() if text.strip() else ""
        if kind == "markdown" and first.startswith("# "):
            title = first[2:].strip()
        elif kind == "text" and 0 < len(first) <= 150:
            title = first
    if not text.strip():
        raise UnreadableDocument("no readable text")
    return kind, title or path.stem.replace("-", " ").replace("_", " "), text


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def document_files(root: Path, skipped: list[tuple[str, str]]) -> Iterator[Path]:
    """Supported, non-hidden files under `root`; folder links leading outside it are reported."""
    if not root.is_dir():
        yield root
        return
    for folder, dirnames, filenames in os.walk(root):  # never descends into folder links
        base = Path(folder)
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        for name in dirnames:
            if not (base / name).is_symlink():
                continue
            # A link to a folder inside the root is skipped silently: its files are indexed anyway.
            target = Path(os.path.realpath(base / name))
            if not _inside(target, root):
                skipped.append((str(base / name), f"links outside the folder (to {target})"))
        for name in sorted(filenames):
            if not name.startswith(".") and Path(name).suffix.lower() in SUPPORTED_SUFFIXES:
                shown = undecodable_name(base / name)
                if shown:
                    skipped.append((shown, NOT_UTF8_NAME))
                    continue
                yield base / name


NOT_UTF8_NAME = "its name is not valid UTF-8; rename it to index it"


def undecodable_name(path: Path) -> str:
    """A path that cannot be stored as text (an undecodable byte in its name, kept by Python
    as a lone surrogate), shown with that byte escaped; "" for any other path."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return str(path).encode("utf-8", "backslashreplace").decode()
    return ""


def _size(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _too_large(size: int, limit: int) -> UnreadableDocument:
    return UnreadableDocument(
        f"{_size(size)} is over max_document_bytes ({_size(limit)}); raise it to index this file"
    )


def vetted_stat(path: Path, root: Path, limit: int) -> tuple[Path, os.stat_result]:
    """The real path and status of a file that may be read: inside `root`, regular, small enough."""
    real = Path(os.path.realpath(path))
    if not _inside(real, root):
        raise UnreadableDocument(f"links outside the folder (to {real})")
    info = os.stat(real)
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableDocument("not a regular file")
    if info.st_size > limit:
        raise _too_large(info.st_size, limit)
    return real, info


def read_bounded(real: Path, limit: int) -> bytes:
    """At most `limit` bytes of a vetted file; no link is followed (it may have been swapped since)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    with os.fdopen(os.open(real, flags), "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableDocument("not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:  # it grew after it was checked
        raise _too_large(max(info.st_size, len(data)), limit)
    return data

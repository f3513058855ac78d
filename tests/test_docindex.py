"""The local document index: incremental updates, bad files skipped, scoped BM25 search."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from research_studio.docindex import DocumentIndex, match_expression
from research_studio.testing.pdf_builder import make_pdf


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "roofs.md").write_text(
        "# Cool roofs\n\nCool roofs reflect sunlight and stay 28 C cooler than dark roofs.\n"
    )
    (root / "trees.txt").write_text(
        "Street trees\nTrees shade streets and cool the air by evapotranspiration.\n"
    )
    (root / "sub" / "water.html").write_text(
        "<html><head><title>Blue spaces</title></head><body><nav>Home</nav><article><h1>Blue spaces</h1>"
        "<p>Rivers and ponds can cool nearby streets by one to two degrees on hot afternoons.</p>"
        "<p>The effect fades within a few hundred metres of the water.</p></article></body></html>"
    )
    (root / "sub" / "pilot.pdf").write_bytes(
        make_pdf("Roof pilot", ["The pilot lowered roof temperatures by 26 C on average."])
    )
    (root / ".hidden.md").write_text("# hidden\n\nnever indexed")
    (root / "notes.docx").write_bytes(b"PK\x03\x04 not supported")
    return root


def index_in(tmp_path: Path) -> DocumentIndex:
    return DocumentIndex.in_dir(tmp_path / "cache", chunk_size=300)


def test_first_index_then_nothing_to_do(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    first = index.update([folder])
    assert len(first.added) == 4 and not first.skipped
    second = index.update([folder])
    assert (second.added, second.updated, len(second.unchanged)) == ([], [], 4)
    assert index.count()[0] == 4


def test_changed_touched_and_removed_files(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    (folder / "trees.txt").write_text(
        "Street trees\nA mature oak transpires hundreds of litres of water a day.\n"
    )
    os.utime(folder / "roofs.md", (1, 1))  # new mtime, same content: recognised by hash
    (folder / "sub" / "water.html").unlink()
    report = index.update([folder])
    assert [Path(p).name for p in report.updated] == ["trees.txt"]
    assert (
        Path(report.unchanged[0]).name in {"roofs.md", "pilot.pdf"} and len(report.unchanged) == 2
    )
    assert [Path(p).name for p in report.removed] == ["water.html"]
    assert index.search("litres oak", 5)
    assert not index.search("evapotranspiration", 5)
    assert not index.search("ponds", 5)


def test_bad_files_are_skipped_with_a_reason(tmp_path: Path, folder: Path) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n this is not really a pdf")
    (folder / "binary.txt").write_bytes(b"\x00\x01\x02 binary \x00")
    (folder / "latin1.md").write_bytes("# Caf\xe9\n\nna\xefve text".encode("latin-1"))
    (folder / "empty.md").write_text("   \n")
    report = index_in(tmp_path).update([folder])
    reasons = {Path(path).name: reason for path, reason in report.skipped}
    assert reasons["broken.pdf"].startswith("unreadable PDF")
    assert reasons["binary.txt"] == "binary data"
    assert reasons["latin1.md"].startswith("not UTF-8 text")
    assert reasons["empty.md"] == "no readable text"
    assert len(report.added) == 4


def test_a_file_that_turns_bad_leaves_the_index(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    (folder / "trees.txt").write_bytes(b"\xff\xfe broken \x00")
    report = index.update([folder])
    assert [Path(p).name for p, _ in report.skipped] == ["trees.txt"]
    assert not index.search("evapotranspiration", 5)


def test_search_ranks_and_scopes(tmp_path: Path, folder: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "roofs-again.md").write_text(
        "# Roofs elsewhere\n\nCool roofs cool roofs cool roofs.\n"
    )
    index = index_in(tmp_path)
    index.update([folder, other])
    everywhere = index.search("cool roofs", 10)
    paths = [Path(hit.uri.removeprefix("file://")) for hit in everywhere]
    assert any(path.is_relative_to(folder) for path in paths) and any(
        path.is_relative_to(other) for path in paths
    )
    scoped = index.search("cool roofs", 10, [folder])
    assert scoped and all(hit.uri.startswith(folder.as_uri()) for hit in scoped)
    assert scoped[0].score >= scoped[-1].score
    document = index.document(scoped[0].uri + "#chunk-0")
    assert document is not None and "28 C" in document.text and document.title == "Cool roofs"


def test_pdf_and_html_are_readable(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    assert index.search("pilot lowered roof temperatures", 3)[0].title == "Roof pilot"
    html = index.search("ponds hot afternoons", 3)[0]
    assert html.title == "Blue spaces" and "Home" not in html.text


def test_query_syntax_never_breaks_fts() -> None:
    assert (
        match_expression('roofs AND "trees" OR NEAR(x) -- * ^')
        == '"roofs" OR "trees" OR "near" OR "x"'
    )
    assert match_expression("the of") == '"the" OR "of"'
    assert match_expression("!!!") == ""

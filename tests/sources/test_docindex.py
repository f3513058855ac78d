"""The local document index: incremental updates, bad files skipped, scoped BM25 search."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from research_studio.sources.docindex import DocumentIndex, query_words
from tests.doubles.pdf_builder import make_pdf


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


def test_a_scope_holding_every_chunk_scopes_again_once_another_folder_is_indexed(
    tmp_path: Path, folder: Path
) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    alone = index.search("cool roofs", 10, [folder])  # the scope holds every chunk: no filter
    assert alone == index.search("cool roofs", 10)
    other = tmp_path / "other"
    other.mkdir()
    (other / "roofs-again.md").write_text("# Roofs elsewhere\n\nCool roofs cool roofs.\n")
    index.update([other])
    assert any(hit.uri.startswith(other.as_uri()) for hit in index.search("cool roofs", 10))
    everywhere = {(hit.uri, hit.ordinal): hit for hit in index.search("cool roofs", 10)}
    scoped = index.search("cool roofs", 10, [folder])
    # The new commit's chunks outside the scope are filtered out; the rest score as unscoped.
    assert [(hit.uri, hit.ordinal) for hit in scoped] == [(hit.uri, hit.ordinal) for hit in alone]
    assert all(hit == everywhere[hit.uri, hit.ordinal] for hit in scoped)
    assert [hit.uri for hit in index.search("cool roofs", 10, [other])] == [
        (other / "roofs-again.md").as_uri()
    ]


def test_pdf_and_html_are_readable(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    assert index.search("pilot lowered roof temperatures", 3)[0].title == "Roof pilot"
    html = index.search("ponds hot afternoons", 3)[0]
    assert html.title == "Blue spaces" and "Home" not in html.text


def test_query_words_are_plain_words() -> None:
    assert query_words('roofs AND "trees" OR NEAR(x) -- * ^') == ["roofs", "trees", "near", "x"]
    assert query_words("the of") == ["the", "of"]
    assert query_words("!!!") == []


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocumentIndex]:
    root = tmp_path_factory.mktemp("any-query")
    (root / "docs").mkdir()
    (root / "docs" / "roofs.md").write_text("# Roofs\n\nCool roofs lower the heat of the city.")
    index = DocumentIndex.in_dir(root / "cache", chunk_size=300)
    index.update([root / "docs"])
    yield index
    index.close()


@settings(max_examples=150, deadline=None)
@given(query=st.text(max_size=200))
def test_any_query_text_searches_without_error(small_index: DocumentIndex, query: str) -> None:
    """Questions come from users and models: no text is query syntax or breaks the search."""
    hits = small_index.search(query, 5)
    assert all(hit.title == "Roofs" for hit in hits)


def test_questions_of_common_words_still_find_the_chunks_that_hold_them(tmp_path: Path) -> None:
    folder = tmp_path / "common"
    folder.mkdir()
    # Every chunk holds "roofs"; only some hold "heat"; one holds "lichen" as well.
    for number in range(52):
        body = "\n\n".join(
            f"Roofs paragraph {number}-{part}" + (" with heat" if part % 3 == 0 else "") + "."
            for part in range(50)
        )
        (folder / f"doc-{number:03}.md").write_text(f"# Doc {number}\n\n{body}\n\nLichen{number}.")
    index = DocumentIndex.in_dir(tmp_path / "cache", chunk_size=40)
    index.update([folder])
    assert index.count()[1] > 2000
    hits = index.search("How do roofs handle heat?", 5)
    assert len(hits) == 5 and all("roofs" in hit.text.lower() for hit in hits)
    assert any("heat" in hit.text for hit in hits)
    [rare] = index.search("Which roofs grow lichen7?", 1)
    assert "Lichen7" in rare.text
    index.close()


def test_links_leading_outside_the_folder_are_skipped(tmp_path: Path, folder: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:secretpassword:/root:/bin/bash\n")
    (outside / "private.md").write_text("# Private\n\nThe vault code is secretpassword.\n")
    (folder / "passwd.txt").symlink_to(outside / "passwd.txt")
    (folder / "elsewhere").symlink_to(outside, target_is_directory=True)
    (folder / "roofs-again.md").symlink_to(folder / "roofs.md")  # inside: fine
    (folder / "sub-again").symlink_to(folder / "sub", target_is_directory=True)  # inside: fine
    index = index_in(tmp_path)
    report = index.update([folder])
    reasons = {Path(path).name: reason for path, reason in report.skipped}
    assert reasons == {
        "passwd.txt": f"links outside the folder (to {outside / 'passwd.txt'})",
        "elsewhere": f"links outside the folder (to {outside})",
    }
    assert sorted(Path(path).name for path in report.added) == [
        "pilot.pdf",
        "roofs-again.md",
        "roofs.md",
        "trees.txt",
        "water.html",
    ]
    assert not index.search("secretpassword vault root", 10)
    assert index.document((folder / "passwd.txt").as_uri()) is None


def test_a_file_swapped_for_an_outside_link_leaves_the_index(tmp_path: Path, folder: Path) -> None:
    index = index_in(tmp_path)
    index.update([folder])
    secret = tmp_path / "secret.txt"
    secret.write_text("Street trees\nsecretpassword\n")
    (folder / "trees.txt").unlink()
    (folder / "trees.txt").symlink_to(secret)
    report = index.update([folder])
    assert [Path(path).name for path, _reason in report.skipped] == ["trees.txt"]
    assert not index.search("evapotranspiration", 5) and not index.search("secretpassword", 5)


def test_files_over_the_size_limit_are_skipped_naming_the_setting(
    tmp_path: Path, folder: Path
) -> None:
    index = DocumentIndex.in_dir(tmp_path / "cache", chunk_size=300, max_bytes=4096)
    index.update([folder])
    (folder / "huge.txt").write_text("Huge file\n" + "megabytes of words " * 500)
    (folder / "trees.txt").write_text("Street trees\n" + "evapotranspiration grows " * 400)
    report = index.update([folder])
    reasons = {Path(path).name: reason for path, reason in report.skipped}
    assert set(reasons) == {"huge.txt", "trees.txt"}
    assert reasons["huge.txt"] == (
        "9,510 bytes is over max_document_bytes (4,096 bytes); raise it to index this file"
    )
    assert not index.search("megabytes", 5), "an oversized file is never indexed"
    assert not index.search("evapotranspiration", 5), "a file that grew too large leaves the index"
    assert index.count()[0] == 3


def test_a_folder_without_readable_documents_is_reported_empty(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / "sub").mkdir(parents=True)
    (empty / "notes.docx").write_bytes(b"PK\x03\x04")
    (empty / "blank.md").write_text("\n")
    full = tmp_path / "full"
    full.mkdir()
    (full / "a.md").write_text("# A\n\nSome text.\n")
    report = index_in(tmp_path).update([empty, full])
    assert report.empty == [str(empty.resolve())] and report.documents == 1


def test_opening_touches_no_disk_until_first_use(tmp_path: Path) -> None:
    index = index_in(tmp_path)
    assert not (tmp_path / "cache").exists()
    assert index.count() == (0, 0)
    assert (tmp_path / "cache" / "documents.sqlite3").is_file()
    index.close()


_INDEXER = """
import json, sys, time
from pathlib import Path
from research_studio.sources.docindex import DocumentIndex
folder, cache, ready, go = map(Path, sys.argv[1:])
index = DocumentIndex.in_dir(cache, chunk_size=300)
ready.touch()
while not go.exists():
    time.sleep(0.001)
report = index.update([folder])
print(json.dumps([len(report.added), len(report.unchanged), report.skipped]))
"""


@pytest.mark.e2e
def test_two_processes_index_one_new_folder_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(60):
        (folder / f"doc-{number:02}.md").write_text(
            f"# Document {number}\n\n" + f"Paragraph {number} about cool roofs. " * 40
        )
    go = tmp_path / "go"
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _INDEXER,
                str(folder),
                str(tmp_path / "cache"),
                str(tmp_path / f"ready-{n}"),
                str(go),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{n}").exists() for n in range(2)):
        assert time.monotonic() < deadline, "the indexers did not start"
        time.sleep(0.01)
    go.touch()  # both create the index and write the same documents at the same moment
    outputs = [process.communicate(timeout=60) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    reports = [json.loads(stdout) for stdout, _stderr in outputs]
    assert all(added + unchanged == 60 and not skipped for added, unchanged, skipped in reports)
    assert sum(added for added, _unchanged, _skipped in reports) == 60, "each document added once"
    index = index_in(tmp_path)
    documents, chunks = index.count()
    single = DocumentIndex.in_dir(tmp_path / "single", chunk_size=300)
    single.update([folder])
    assert (documents, chunks) == single.count() and documents == 60


_INDEX_THEN_SEARCH = """
import json, sys
from pathlib import Path
from research_studio.sources.docindex import DocumentIndex
folder, cache = map(Path, sys.argv[1:])
index = DocumentIndex.in_dir(cache, chunk_size=300)
report = index.update([folder])
hits = [len(index.search("cool roofs heat paragraph", 5)) for _ in range(30)]
print(json.dumps([len(report.added), len(report.unchanged), min(hits)]))
"""


@pytest.mark.e2e
def test_three_runs_index_and_search_one_new_folder_at_once(tmp_path: Path) -> None:
    """Issue 25.6: processes that opened the index while another wrote failed their searches."""
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(400):
        (folder / f"doc-{number:03}.md").write_text(
            f"# Document {number}\n\n" + f"Paragraph {number} about cool roofs and heat. " * 60
        )
    processes = []
    for _ in range(3):  # staggered: each opens the index while another is writing to it
        processes.append(
            subprocess.Popen(
                [sys.executable, "-c", _INDEX_THEN_SEARCH, str(folder), str(tmp_path / "cache")],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        time.sleep(0.3)
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0], outputs
    reports = [json.loads(stdout) for stdout, _stderr in outputs]
    assert sum(added for added, _unchanged, _hits in reports) == 400, "each document added once"
    assert all(added + unchanged == 400 and hits == 5 for added, unchanged, hits in reports)


def test_an_index_of_the_earlier_format_is_rebuilt_with_a_notice(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index written by the FTS5 version (format 1) is rebuilt on open, never a traceback."""
    cache = tmp_path / "cache"
    cache.mkdir()
    old = sqlite3.connect(cache / "documents.sqlite3")
    old.executescript(
        """
        CREATE TABLE documents (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
            uri TEXT NOT NULL UNIQUE, title TEXT NOT NULL, kind TEXT NOT NULL,
            sha256 TEXT NOT NULL, mtime REAL NOT NULL, size INTEGER NOT NULL,
            text TEXT NOT NULL, indexed_at REAL NOT NULL);
        CREATE VIRTUAL TABLE chunks USING fts5(text, title, doc_id UNINDEXED, ordinal UNINDEXED);
        """
    )
    roofs = folder / "roofs.md"
    info = roofs.stat()
    old.execute(
        "INSERT INTO documents VALUES (1, ?, ?, 'Cool roofs', 'markdown', 'x', ?, ?, 'old', 0)",
        (str(roofs), roofs.as_uri(), info.st_mtime, info.st_size),
    )
    old.execute("INSERT INTO chunks VALUES ('old', 'Cool roofs', 1, 0)")
    old.commit()
    old.close()
    index = DocumentIndex.in_dir(cache, chunk_size=300)
    report = index.update([folder])
    notice = capsys.readouterr().err
    assert notice.count("\n") == 1 and "earlier version" in notice and "Traceback" not in notice
    assert str(roofs) in report.added and report.documents == 4
    assert index.search("roofs reflect sunlight", 1)[0].title == "Cool roofs"
    index.close()
    again = DocumentIndex.in_dir(cache, chunk_size=300)
    assert again.update([folder]).documents == 4 and capsys.readouterr().err == ""
    again.close()

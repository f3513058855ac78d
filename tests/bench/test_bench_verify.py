"""`research-studio bench verify FILE.jsonl`: the support check measured on labelled claims."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.faces.cli import app

PAGE = [
    "Cool roofs lowered peak roof temperatures by 28 degrees in the Meridian pilot.",
    "The pilot ran for two summers in 2022 and 2023.",
    "Residents of the pilot district reported cooler upper floors during heat waves.",
]
ROWS = [
    ("Cool roofs cut peak roof temperatures by 28 degrees in the Meridian pilot.", "supported"),
    ("Upper floors felt cooler to residents of the pilot district in heat waves.", "supported"),
    ("Cool roofs lowered peak roof temperatures by 35 degrees in the Meridian pilot.",
     "not_supported"),
    ("The pilot ran for two summers and cost 4 million dollars.", "partially_supported"),
]  # fmt: skip


def _labelled(tmp_path: Path) -> Path:
    path = tmp_path / "claims.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"claim": claim, "evidence": PAGE, "label": label}) for claim, label in ROWS
        )
        + "\n"
    )
    return path


def test_bench_verify_reports_accuracy_recalls_reasons_and_cpu(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "verify", str(_labelled(tmp_path)), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["claims"] == 4 and figures["supported"] == 2
    assert (figures["recall_supported"], figures["recall_unsupported"]) == (1.0, 1.0)
    assert figures["balanced_accuracy"] == 1.0
    assert figures["by_reason"]["not_supported"] == {"figure": 1}
    assert figures["by_reason"]["partially_supported"] == {"figure": 1}
    assert figures["cpu_ms_per_check"]["mean"] > 0
    assert sum(half["claims"] for half in figures["halves"].values()) == 4
    shown = CliRunner().invoke(app, ["bench", "verify", str(_labelled(tmp_path))])
    assert shown.exit_code == 0 and "balanced accuracy" in shown.stdout
    assert "CPU per check" in shown.stdout


def test_bench_verify_mistakes_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"claim": "x", "label": "maybe", "evidence": []}\n')
    for args, message in [
        (["bench", "verify"], "needs a labelled file"),
        (["bench", "verify", str(tmp_path / "none.jsonl")], "cannot read"),
        (["bench", "verify", str(bad)], "label must be one of"),
        (["bench", "other", str(bad)], "unknown bench"),
    ]:
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
        assert "Traceback" not in result.output


@settings(max_examples=20, deadline=None)
@given(st.binary(min_size=1, max_size=200))
def test_bench_verify_reads_any_bytes_as_a_result_or_one_line(
    tmp_path_factory: object, content: bytes
) -> None:
    """A file that is not UTF-8 (a Latin-1 export, binary junk) is one line, not a traceback."""
    folder = tmp_path_factory.mktemp("bytes")  # type: ignore[attr-defined]
    path = folder / "rows.jsonl"
    path.write_bytes(content)
    result = CliRunner().invoke(app, ["bench", "verify", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code == 2:
        assert len(result.output.strip().splitlines()) == 1, result.output


def test_bench_verify_refuses_what_is_no_file_in_one_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"claim": "caf\xe9", "evidence": "x", "label": "supported"}\n')
    for path, message in [
        (latin, "not UTF-8 text (byte 14)"),
        (Path("/dev/zero"), "not a regular file"),  # else read until memory runs out
        (tmp_path, "is a folder, not a file"),
    ]:
        result = CliRunner().invoke(app, ["bench", "verify", str(path)])
        assert result.exit_code == 2, (path, result.output)
        assert result.output.strip().splitlines() == [f"error: cannot read {path}: {message}"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=3), st.text(max_size=120))
def test_bench_verify_reads_any_row_text(
    tmp_path_factory: object, page: list[str], claim: str
) -> None:
    from research_studio.evaluation.support_bench import bench_verify

    folder = tmp_path_factory.mktemp("rows")  # type: ignore[attr-defined]
    path = folder / "rows.jsonl"
    path.write_text(json.dumps({"claim": claim, "evidence": page, "label": "supported"}) + "\n")
    figures = bench_verify(path)
    assert figures["claims"] == 1 and figures["recall_supported"] in (0.0, 1.0)

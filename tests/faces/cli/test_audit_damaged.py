"""`research-studio audit` on a damaged or hostile run folder: it reads only regular files inside
the folder, bounded in size and depth, and says what is wrong in one line (no traceback, nothing
of a file outside the folder printed)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from research_studio.faces.cli import app

pytestmark = pytest.mark.e2e
runner = CliRunner()
DEEP = 100_000
SECRET = "root:x:0:0:this-line-must-never-be-printed"


def binary_report(folder: Path) -> None:
    (folder / "report.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 100)


def deep_manifest(folder: Path) -> None:
    (folder / "manifest.json").write_text("[" * DEEP + "]" * DEEP)


def deep_result(folder: Path) -> None:
    (folder / "result.json").write_text('{"sources": ' + "[" * DEEP + "]" * DEEP + "}")


def deep_object_in_a_record(folder: Path) -> None:
    """Deep enough for json to load but not for the digests that recurse over a record."""
    result = json.loads((folder / "result.json").read_text())
    result["statements"][0]["extra"] = "DEEP"
    deep = '{"a": ' * 990 + "1" + "}" * 990
    (folder / "result.json").write_text(json.dumps(result).replace('"DEEP"', deep, 1))


def manifest_a_list(folder: Path) -> None:
    (folder / "manifest.json").write_text("[1, 2, 3]")


def manifest_statements_a_list(folder: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["statements"] = list(manifest["statements"])
    (folder / "manifest.json").write_text(json.dumps(manifest))


def manifest_layout_of_numbers(folder: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["layout"] = [1, 2, 3]
    (folder / "manifest.json").write_text(json.dumps(manifest))


def result_sources_a_string(folder: Path) -> None:
    result = json.loads((folder / "result.json").read_text())
    result["sources"] = "S1"
    (folder / "result.json").write_text(json.dumps(result))


def report_links_to_a_secret(folder: Path) -> None:
    secret = folder.parent / "passwd"
    secret.write_text(SECRET + "\n")
    (folder / "report.md").unlink()
    (folder / "report.md").symlink_to(secret)


def kept_page_links_to_a_secret(folder: Path) -> None:
    secret = folder.parent / "passwd"
    secret.write_text(SECRET + "\n")
    page = next((folder / "sources").glob("S*.txt"))
    page.unlink()
    page.symlink_to(secret)


def source_id_that_climbs_out(folder: Path) -> None:
    secret = folder.parent / "passwd.txt"
    secret.write_text(SECRET + "\n")
    result = json.loads((folder / "result.json").read_text())
    result["sources"][0]["sid"] = "../../passwd"
    (folder / "result.json").write_text(json.dumps(result))


def report_a_fifo(folder: Path) -> None:
    (folder / "report.md").unlink()
    os.mkfifo(folder / "report.md")


def huge_report(folder: Path) -> None:
    with (folder / "report.md").open("r+b") as handle:  # sparse: no disk is used
        handle.truncate(200 * 1024 * 1024)


DAMAGES: list[Callable[[Path], None]] = [
    binary_report,
    deep_manifest,
    deep_result,
    deep_object_in_a_record,
    manifest_a_list,
    manifest_statements_a_list,
    manifest_layout_of_numbers,
    result_sources_a_string,
    report_links_to_a_secret,
    kept_page_links_to_a_secret,
    source_id_that_climbs_out,
    report_a_fifo,
    huge_report,
]


def _copy(finished_run_folder: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "runs" / "damaged"
    shutil.copytree(finished_run_folder, folder)
    return folder


@pytest.mark.parametrize("damage", DAMAGES, ids=lambda damage: damage.__name__)
def test_a_damaged_run_folder_is_one_line(
    damage: Callable[[Path], None], finished_run_folder: Path, tmp_path: Path
) -> None:
    folder = _copy(finished_run_folder, tmp_path)
    damage(folder)
    result = runner.invoke(app, ["audit", str(folder)])
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code != 0, result.output
    assert SECRET not in result.output and "Traceback" not in result.output
    if result.exit_code == 2:  # the folder cannot be audited: one line says why
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert result.output.startswith("error: ")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    name=st.sampled_from(["result.json", "manifest.json"]),
    key=st.sampled_from(
        ["sources", "statements", "evidence", "claims", "layout", "metadata", "query"]
    ),
    value=JSON_VALUES,
)
def test_any_value_in_any_field_is_a_verdict_or_one_line(
    name: str,
    key: str,
    value: object,
    finished_run_folder: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = _copy(finished_run_folder, tmp_path_factory.mktemp("audit"))
    document = json.loads((folder / name).read_text())
    document[key] = value
    (folder / name).write_text(json.dumps(document))
    result = runner.invoke(app, ["audit", str(folder), "--json"])
    assert isinstance(result.exception, SystemExit) or result.exception is None, repr(
        result.exception
    )
    if result.exit_code == 2:
        assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize(
    ("record", "named"),
    [
        ('{"run_id": 5}', "run_id: Input should be a valid string"),
        ("{", "Invalid JSON"),
    ],
    ids=["wrong-types", "truncated"],
)
@pytest.mark.parametrize("command", [["audit"], ["export", "--format", "md"], ["resume"]])
def test_a_damaged_run_record_is_one_short_line(
    record: str, named: str, command: list[str], finished_run_folder: Path, tmp_path: Path
) -> None:
    """run.json as a hand edit or a crash leaves it: the field and what is wrong, in one line
    (not pydantic's report over lines, with its links)."""
    folder = _copy(finished_run_folder, tmp_path)
    (folder / "run.json").write_text(record)
    result = runner.invoke(app, [*command, str(folder)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: the run record in "), result.output
    assert named in result.output
    assert "errors.pydantic.dev" not in result.output and "␊" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output

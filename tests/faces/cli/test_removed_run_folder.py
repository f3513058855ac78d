"""A run whose folder its user deletes while it runs stops in one line and leaves no folder."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.helpers import cli_env, hold_second_extraction, start_run, wait_for

pytestmark = pytest.mark.e2e


def test_a_run_whose_folder_is_deleted_stops_in_one_line_without_bringing_it_back(
    web: FakeWeb, tmp_path: Path
) -> None:
    release, held = hold_second_extraction(web)
    folder = tmp_path / "runs" / "deleted"
    process = start_run(folder, cli_env(web, tmp_path))
    try:
        wait_for(process, lambda: bool(held), "a held page extraction")
        shutil.rmtree(folder)
    finally:
        release.set()
    _, errors = process.communicate(timeout=120)
    assert process.returncode != 0
    lines = [line for line in errors.splitlines() if line.strip()]
    assert re.fullmatch(r"error: run \S+ stopped: its folder was removed while it ran", lines[-1])
    assert "Traceback" not in errors and "callback" not in errors, errors
    assert not folder.exists()

"""PostgreSQL checkpoints and store: runs, the supervisor's sources, kill and resume, follow-ups, errors."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.faces.cli import app
from research_studio.pipelines.registry import compile_pipeline
from research_studio.run.persistence import open_persistence
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorScript
from tests.helpers import (
    cli_env,
    hold_second_extraction,
    resume,
    run_cli,
    run_id,
    schema_counts,
    start_run,
    wait_for,
)

# Read at import: the autouse fixture hides RESEARCH_STUDIO_* variables from the tests.
ADMIN_URL = os.environ.get("RESEARCH_STUDIO_TEST_POSTGRES_URL", "")
pytestmark = pytest.mark.postgres
runner = CliRunner()
QUERY = "coral bleaching heat stress"


class Database:
    """A fresh database owned by a fresh role, so no test sees another's rows or password."""

    def __init__(self) -> None:
        suffix = secrets.token_hex(4)
        self.name, self.role = f"rs_test_{suffix}", f"rs_role_{suffix}"
        self.password = f"pw-{secrets.token_hex(8)}"
        admin = conninfo_to_dict(ADMIN_URL)
        host, port = admin.get("host") or "127.0.0.1", admin.get("port") or 5432
        self.url = f"postgresql://{self.role}:{self.password}@{host}:{port}/{self.name}"

    def create(self) -> None:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"CREATE ROLE {self.role} LOGIN PASSWORD '{self.password}'")
            admin.execute(f"CREATE DATABASE {self.name} OWNER {self.role}")

    def drop(self) -> None:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")
            admin.execute(f"DROP ROLE IF EXISTS {self.role}")

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        with psycopg.connect(make_conninfo(self.url)) as connection:
            return list(connection.execute(sql, params).fetchall())


@pytest.fixture
def database() -> Iterator[Database]:
    if not ADMIN_URL:
        pytest.skip("RESEARCH_STUDIO_TEST_POSTGRES_URL is unset (.ci/run starts PostgreSQL)")
    db = Database()
    db.create()
    try:
        yield db
    finally:
        db.drop()


def listed(run: str) -> dict[str, Any]:
    listing = runner.invoke(app, ["runs", "--json"])
    assert listing.exit_code == 0, listing.output
    return next(record for record in json.loads(listing.stdout) if record["run_id"] == run)


def files_hold(folder: Path, secret: str) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def thread_messages(url: str, folder: Path) -> list[str]:
    async def read() -> list[str]:
        async with open_persistence(folder, Configuration(checkpoints=url)) as persistence:
            graph = compile_pipeline("standard", persistence.saver, True)
            state = await graph.aget_state({"configurable": {"thread_id": run_id(folder)}})
            return [str(message.content) for message in state.values.get("messages", [])]

    return asyncio.run(read())


def test_a_standard_run_keeps_its_checkpoints_in_postgresql(
    web: FakeWeb, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = use_scripted_model(ResearchScript().model())
    command = [QUERY, "--single-agent", "--out", "runs/pg", "--checkpoints", database.url]
    result = run_cli(web, "run", *command, model=spec)
    assert result.exit_code == 0, result.output
    folder = Path("runs/pg").resolve()
    run = run_id(folder)
    assert (folder / "report.md").read_text().startswith("# ")
    assert not (folder / "checkpoints.sqlite").exists() and not (folder / "store.sqlite").exists()
    rows = database.rows("SELECT count(*) FROM checkpoints WHERE thread_id = %s", run)
    assert rows[0][0] > 3  # one per step, durably written
    saved = json.loads((folder / "run.json").read_text())["settings"]["checkpoints"]
    assert saved == database.url.replace(database.password, "****")
    assert not files_hold(folder, database.password) and database.password not in result.output
    assert listed(run)["status"] == "completed"

    # A follow-up joins the run's thread in PostgreSQL (the password comes from the environment).
    monkeypatch.setenv("RESEARCH_STUDIO_CHECKPOINTS", database.url)
    asked = run_cli(web, "ask", str(folder), "What causes coral bleaching?", model=spec)
    assert asked.exit_code == 0, asked.output
    messages = thread_messages(database.url, folder)
    assert messages[-2] == "What causes coral bleaching?"
    assert messages[-1] == (folder / "followups" / "F1.md").read_text()


def test_the_supervisor_keeps_its_sources_in_the_postgresql_store(
    web: FakeWeb, database: Database
) -> None:
    command = [QUERY, "--pipeline", "supervisor", "--out", "sv", "--checkpoints", database.url]
    result = run_cli(web, "run", *command, model=SupervisorScript().model())
    assert result.exit_code == 0, result.output
    folder = Path("sv").resolve()
    document = json.loads((folder / "result.json").read_text())
    assert "Verified Findings" in document["report"] and "disabled" not in document["report"]
    assert not (folder / "store.sqlite").exists()
    prefix = f"research_studio.supervisor.{run_id(folder)}.sources"
    kept = database.rows("SELECT value FROM store WHERE prefix = %s", prefix)
    stored_urls = {row[0]["url"] for row in kept}
    assert stored_urls and {s["url"] for s in document["sources"]} <= stored_urls
    assert all(row[0]["content"] for row in kept)  # the text the findings are checked against


def test_a_killed_run_resumes_from_postgresql_without_redoing_finished_nodes(
    web: FakeWeb, database: Database, tmp_path: Path
) -> None:
    # The second page extraction waits, so the process dies inside an unfinished node.
    release, held = hold_second_extraction(web)
    env = cli_env(web, tmp_path)
    folder = tmp_path / "runs" / "killed"
    process = start_run(folder, env, "--checkpoints", database.url)
    try:

        def planned_and_held() -> bool:
            path = folder / "events.jsonl"
            lines = path.read_text().splitlines() if path.exists() else []
            ended = {json.loads(line)["node"] for line in lines if '"end"' in line}
            return bool(held) and "plan" in ended

        wait_for(process, planned_and_held, "a finished plan and a held page extraction")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
    run = run_id(folder)
    assert listed(run)["status"] == "interrupted"
    assert not (folder / "checkpoints.sqlite").exists()
    assert database.rows("SELECT count(*) FROM checkpoints WHERE thread_id = %s", run)[0][0] > 0
    before = schema_counts(web)
    assert before["Understanding"] == 1 and before["ResearchPlan"] == 1

    # run.json keeps the URL without its password: resume asks for it, in one line.
    refused = resume(folder, env)
    assert refused.returncode == 2 and "checkpoints without its credentials" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    resumed = resume(folder, {**env, "RESEARCH_STUDIO_CHECKPOINTS": database.url})
    assert resumed.returncode == 0, resumed.stderr
    after = schema_counts(web)
    assert after["Understanding"] == 1 and after["ResearchPlan"] == 1  # not redone
    assert after["PageExtraction"] > before["PageExtraction"] and after["ReportDraft"] == 1
    assert (folder / "report.md").read_text().startswith("# ")
    assert not (folder / "checkpoints.sqlite").exists()
    assert listed(run)["status"] == "completed" and listed(run)["attempts"] == 2
    assert database.password not in resumed.stderr + resumed.stdout


def one_line_error(web: FakeWeb, url: str) -> str:
    result = run_cli(web, "run", QUERY, "--single-agent", "--out", "bad", "--checkpoints", url)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output
    return errors[0]


def test_an_unreachable_server_is_a_one_line_error_naming_the_host(web: FakeWeb) -> None:
    output = one_line_error(web, "postgresql://alice:s3cret-pw@127.0.0.1:1/research")
    assert "127.0.0.1:1/research" in output and "s3cret-pw" not in output
    assert not Path("bad").exists()  # refused before any run folder is made


def test_a_url_that_is_not_postgresql_is_a_one_line_error(web: FakeWeb) -> None:
    output = one_line_error(web, "mysql://alice:s3cret-pw@127.0.0.1/research")
    assert "checkpoints" in output and "s3cret-pw" not in output
    assert not Path("bad").exists()  # refused before any run folder is made


def test_a_wrong_password_is_a_one_line_error(web: FakeWeb, database: Database) -> None:
    wrong = database.url.replace(database.password, "not-the-password")
    output = one_line_error(web, wrong)
    assert "password authentication failed" in output and "not-the-password" not in output
    assert not Path("bad").exists()

"""What the server refuses: bad requests (inline, with the CLI's rules), strangers, paths, secrets."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import get_args

import httpx
import pytest
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.faces.cli import app
from research_studio.faces.web.settings import EXAMPLE_DOCS, ServeSettings
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.faces.web.conftest import SECRET_KEY, LiveServer, wait_for_status

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"question": "   "}, "question", "empty"),
        ({"question": "q", "pipeline": "nonexistent"}, "pipeline", "standard"),
        ({"question": "q", "docs": "/etc"}, "docs", "allowed"),
        ({"question": "q", "docs": "../../etc"}, "docs", "allowed"),
        (
            {"question": "q", "pipeline": "supervisor", "mode": "single"},
            "mode",
            "single agent in the Mode field does not apply to the supervisor pipeline",
        ),
        ({"question": "q", "max_iterations": 0}, "max_iterations", "1"),
        ({"question": "q", "max_iterations": 99}, "max_iterations", "20"),
        (
            {"question": "q", "pipeline": "supervisor", "max_iterations": 2},
            "max_iterations",
            "apply",
        ),
        ({"question": "q", "language": "klingon"}, "language", "unknown language"),
        (
            {"question": "q", "max_researcher_iterations": 2},
            "max_researcher_iterations",
            "the Supervisor turns field does not apply to the standard pipeline",
        ),
        ({"question": "q", "model": "nope:x"}, "model", "unknown model provider"),
        ({"question": "q", "model": "local:/no/such/model.gguf"}, "model", "not found"),
        ({"question": "?!?"}, "question", "no words"),
    ],
)
def test_mistakes_come_back_as_field_errors_and_leave_no_run(
    server: LiveServer, tmp_path: Path, fields: dict[str, object], field: str, words: str
) -> None:
    with httpx.Client(base_url=server.url) as client:
        response = client.post("/api/runs", json=fields)
        assert response.status_code == 422
        assert response.json()["field"] == field and words in response.json()["message"]
        assert "--" not in response.json()["message"]  # web words, not CLI flags
        assert "Value error" not in response.json()["message"]
        assert client.get("/api/runs").json() == []


def test_the_form_is_described_by_the_configuration(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as client:
        options = client.get("/api/options").json()
    iterations = options["settings"]["max_iterations"]
    field = Configuration.model_fields["max_iterations"]
    assert (iterations["min"], iterations["max"], iterations["default"]) == (1, 20, 3)
    assert iterations["help"] == field.description
    assert options["settings"]["report_structure"]["choices"] == list(
        get_args(Configuration.model_fields["report_structure"].annotation)
    )
    assert "supervisor" not in options["honoured_by"]["max_iterations"]


@pytest.mark.skipif(not EXAMPLE_DOCS.is_dir(), reason="installed without the examples")
def test_offline_the_form_preselects_the_example_or_configured_folder(
    serve: Callable[..., LiveServer], settings_file: Path, tmp_path: Path
) -> None:
    settings_file.write_text(f'runs_dir = "{tmp_path / "runs"}"\n')
    with httpx.Client(base_url=serve().url) as client:
        assert client.get("/api/options").json()["default_docs"] == EXAMPLE_DOCS.name
    notes = tmp_path / "notes"
    notes.mkdir()
    settings_file.write_text(f'runs_dir = "{tmp_path / "runs"}"\ndocs = ["{notes}"]\n')
    with httpx.Client(base_url=serve(docs_roots=[notes]).url) as client:
        assert client.get("/api/options").json()["default_docs"] == "notes"


def test_a_cross_site_form_post_is_refused(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    response = httpx.post(f"{server.url}/api/runs", data={"question": "q"})
    assert response.status_code == 415
    shutil.copytree(finished_run_folder, tmp_path / "runs" / "done")
    for action in ("resume", "cancel"):
        response = httpx.post(f"{server.url}/api/runs/done/{action}", data={"x": "1"})
        assert response.status_code == 415, action


def test_a_token_guards_every_page_api_and_stream(serve: Callable[..., LiveServer]) -> None:
    server = serve(token="s3cret token")
    for path in ("/", "/runs", "/api/runs", "/api/options", "/api/runs/x/events", "/static/run.js"):
        assert httpx.get(server.url + path).status_code == 401, path
    assert httpx.get(server.url + "/?token=wrong").status_code == 401
    with httpx.Client(base_url=server.url) as client:
        first = client.get("/", params={"token": "s3cret token"})
        assert first.status_code == 200 and "rs_token" in first.headers["set-cookie"]
        assert client.get("/api/runs").status_code == 200  # the cookie carries it now
    bearer = httpx.get(server.url + "/api/runs", headers={"Authorization": "Bearer s3cret token"})
    assert bearer.status_code == 200


def test_without_a_token_only_loopback_host_names_are_answered(server: LiveServer) -> None:
    assert httpx.get(server.url + "/api/runs", headers={"Host": "evil.example"}).status_code == 403
    assert httpx.get(server.url + "/api/runs", headers={"Host": "localhost:1"}).status_code == 200


def test_a_non_loopback_address_needs_a_token() -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2 and "needs an access token" in result.output
    assert "Traceback" not in result.output
    ServeSettings(host="0.0.0.0", token="t").check_exposure()
    ServeSettings(host="::1").check_exposure()
    assert ServeSettings(token="a b").url() == "http://127.0.0.1:8765/?token=a%20b"


@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/..%2F..%2Fetc/report",
        "/api/runs/%2e%2e",
        "/api/runs/..",
        "/api/runs/.hidden",
        "/api/runs/RUN/sources/..%2Frun.json",
        "/api/runs/RUN/sources/S1%2F..%2F..%2Frun",
        "/api/runs/RUN/sources/run",
        "/static/..%2F..%2Fconfig.py",
    ],
)
def test_paths_outside_the_run_folders_are_refused(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path, path: str
) -> None:
    shutil.copytree(finished_run_folder, tmp_path / "runs" / "RUN")
    with httpx.Client(base_url=server.url) as client:
        response = client.get(path)
        assert response.status_code == 404, response.text
        assert "research_studio" not in response.text


def test_secrets_never_leave_the_server(server: LiveServer) -> None:
    spec = use_scripted_model(ResearchScript().model())
    with httpx.Client(base_url=server.url) as client:
        config = client.get("/api/config").json()
        assert "tavily_api_key" not in config and config["allow_private_networks"] is True
        run = client.post(
            "/api/runs", json={"question": "coral bleaching", "model": spec, "no_clarify": True}
        )
        run_id = run.json()["run_id"]
        wait_for_status(client, run_id, "completed")
        bodies = [
            run.text,
            client.get("/api/config").text,
            client.get("/api/options").text,
            client.get("/api/resolution").text,
            client.get("/api/runs").text,
            client.get(f"/api/runs/{run_id}").text,
            client.get(f"/api/runs/{run_id}/events").text,
            client.get(f"/api/runs/{run_id}/report").text,
            client.get(f"/api/runs/{run_id}/sources/S1").text,
        ]
    assert all(SECRET_KEY not in body for body in bodies)


def test_documents_from_an_allowed_folder_are_researched(
    serve: Callable[..., LiveServer], tmp_path: Path
) -> None:
    docs = tmp_path / "notes"
    docs.mkdir()
    (docs / "coral.md").write_text(
        "# Coral bleaching\n\nCoral bleaching happens when water temperatures stay high for weeks "
        "and corals expel the algae living in their tissues, turning white.\n"
    )
    server = serve(docs_roots=[docs])
    spec = use_scripted_model(ResearchScript().model())
    with httpx.Client(base_url=server.url) as client:
        options = client.get("/api/options").json()
        offered = {folder["value"]: folder["label"] for folder in options["docs"]}
        assert offered["notes"] == "notes"  # named, never by its path on the server
        if EXAMPLE_DOCS.is_dir():
            assert offered[EXAMPLE_DOCS.name] == f"{EXAMPLE_DOCS.name} (example)"
        assert str(tmp_path) not in json.dumps(options)
        assert options["default_docs"] == ""  # these settings search the web (SearXNG)
        resolution = client.get("/api/resolution", params={"docs": "notes"}).json()
        assert resolution["search"]["name"] == "local"
        run = client.post(
            "/api/runs",
            json={
                "question": "coral bleaching",
                "model": spec,
                "docs": "notes",  # what the form sends: the name it offered
                "no_clarify": True,
            },
        )
        assert run.status_code == 201, run.text
        run_id = run.json()["run_id"]
        done = wait_for_status(client, run_id, "completed", "failed")
        assert done["status"] == "completed", done
        assert done["record"]["settings"]["search"] == "local"
        # What the page shows names the document inside its folder, never the server's path.
        report = client.get(f"/api/runs/{run_id}/report").text
        sid = re.findall(r'data-sid="(S\d+)"', report)[0]
        card = client.get(f"/api/runs/{run_id}/sources/{sid}").json()
        assert card["url"] == "notes/coral.md"
        for shown in (report, json.dumps(done), json.dumps(card)):
            assert str(tmp_path) not in shown and "file:" not in shown

"""Every refusal is `{field, message}` or a 404 page: deep JSON, bad export formats, unknown runs, taken ports."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import httpx
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.faces.web.bodies import NOT_UTF8
from tests.faces.web.conftest import LiveServer


def _deep(levels: int) -> str:
    return '{"question": ' + "[" * levels + "]" * levels + "}"


def test_deeply_nested_json_is_a_field_error_not_a_crash(
    server: LiveServer, tmp_path: Path
) -> None:
    with httpx.Client(base_url=server.url) as client:
        for levels in (100_000, 40):
            response = client.post(
                "/api/runs", content=_deep(levels), headers={"content-type": "application/json"}
            )
            assert response.status_code == 422, response.text
            assert response.json() == {
                "field": None,
                "message": "the body nests deeper than 16 levels",
            }
        assert client.get("/api/runs").status_code == 200  # the server lives on
    assert not any((tmp_path / "runs").iterdir())  # and no run was started


def test_a_lone_surrogate_escape_in_a_body_is_refused_in_one_line(
    server: LiveServer, tmp_path: Path
) -> None:
    # Valid JSON, but "\\udcff" decodes to half a character no run file can hold.
    body = '{"question": "coral bleaching", "system_prompt": "\\udcff"}'
    with httpx.Client(base_url=server.url) as client:
        response = client.post(
            "/api/runs", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 400, response.text
        assert response.json() == {"field": None, "message": NOT_UTF8}
        assert client.get("/api/runs").status_code == 200
    assert not any((tmp_path / "runs").iterdir())


def test_a_bad_export_format_is_a_field_error(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    shutil.copytree(finished_run_folder, tmp_path / "runs" / "done")
    with httpx.Client(base_url=server.url) as client:
        response = client.get("/api/runs/done/export/exe")
    assert response.status_code == 422
    body = response.json()
    assert set(body) == {"field", "message"} and body["field"] == "fmt"
    assert "'md'" in body["message"] and "detail" not in body


def test_an_unknown_run_page_is_a_404_page(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    shutil.copytree(finished_run_folder, tmp_path / "runs" / "done")
    with httpx.Client(base_url=server.url) as client:
        missing = client.get("/runs/no-such-run<script>")
        known = client.get("/runs/done")
    assert missing.status_code == 404 and "No such run" in missing.text
    assert "no-such-run" not in missing.text and "<script>" not in missing.text
    assert known.status_code == 200 and 'data-format="pdf"' in known.text


def test_serve_on_a_taken_port_is_one_line_before_any_url(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [f"error: cannot serve on 127.0.0.1:{port}: address already in use"]


def test_served_pages_carry_a_strict_content_security_policy(server: LiveServer) -> None:
    with httpx.Client(base_url=server.url) as client:
        for path in ("/", "/runs", "/runs/no-such-run", "/api/runs"):
            policy = client.get(path).headers["content-security-policy"]
            directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
            assert directives["default-src"] == "'self'" and directives["script-src"] == "'self'"
            assert "unsafe" not in policy and directives["object-src"] == "'none'"


def test_a_body_larger_than_a_form_is_refused_in_one_line(
    server: LiveServer, tmp_path: Path
) -> None:
    big = ('{"question": "' + "x" * 2_000_000 + '"}').encode()
    json_type = {"content-type": "application/json"}
    with httpx.Client(base_url=server.url) as client:
        declared = client.post("/api/runs", content=big, headers=json_type)
        # Sent in chunks, without a declared length: refused once the limit is passed.
        chunked = client.post(
            "/api/runs",
            content=(big[start : start + 65536] for start in range(0, len(big), 65536)),
            headers=json_type,
        )
        assert client.get("/api/runs").status_code == 200  # the server lives on
    for response in (declared, chunked):
        assert response.status_code == 413, response.text
        assert response.json() == {
            "field": None,
            "message": "the body is larger than 1,000,000 bytes",
        }
    assert not any((tmp_path / "runs").iterdir())


def test_a_half_written_run_folder_is_a_one_line_refusal_that_names_no_server_path(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(finished_run_folder, runs / "damaged")
    (runs / "damaged" / "result.json").write_text('{"report": "cut off', encoding="utf-8")
    shutil.copytree(finished_run_folder, runs / "unwritten")
    (runs / "unwritten" / "result.json").unlink()
    with httpx.Client(base_url=server.url, timeout=60) as client:
        asked = [
            (address, "damaged", "is damaged") for address in ("/report", "/audit", "/export/md")
        ]
        asked += [("/report", "unwritten", "no report yet"), ("/audit", "unwritten", "")]
        for address, run, expected in asked:
            response = client.get(f"/api/runs/{run}{address}")
            assert response.status_code in (404, 409), (address, response.text)
            body = response.json()
            assert set(body) == {"field", "message"} and expected in body["message"]
            assert str(tmp_path) not in body["message"] and "\n" not in body["message"]
        assert client.get("/api/runs/damaged").status_code == 200  # the run itself still opens

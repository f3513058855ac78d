"""A run started from the page's API, followed over SSE to its report, source cards and audit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from research_studio.faces.cli import app
from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.faces.web.conftest import LiveServer, ended, sse, status_is, wait_for_status
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e


def start(client: httpx.Client, **fields: object) -> str:
    response = client.post("/api/runs", json={"question": "coral bleaching heat stress", **fields})
    assert response.status_code == 201, response.text
    run_id: str = response.json()["run_id"]
    return run_id


def test_a_run_streams_its_events_and_shows_its_report(server: LiveServer, tmp_path: Path) -> None:
    spec = use_scripted_model(ResearchScript().model())
    with httpx.Client(base_url=server.url) as client:
        run_id = start(client, model=spec, no_clarify=True)
        messages = sse(client, f"/api/runs/{run_id}/events", until=ended)
        events = [m for m in messages if m["event"] == "event"]
        assert [int(m["id"]) for m in events] == list(range(1, len(events) + 1))
        assert {"start", "end"} <= {m["data"]["kind"] for m in events}
        assert messages[-1]["data"]["status"] == "completed"
        counters = [m["data"] for m in messages if m["event"] == "counters"][-1]
        assert counters["sources"] > 0 and counters["llm_calls"] > 0 and counters["tokens"] > 0

        # Reconnecting with Last-Event-ID resumes after that line, from the file.
        again = sse(client, f"/api/runs/{run_id}/events", until=ended, **{"Last-Event-ID": "3"})
        assert next(m["id"] for m in again if m["event"] == "event") == "4"

        report = client.get(f"/api/runs/{run_id}/report")
        cites = re.findall(
            r'<a class="cite" href="[^"]*" data-sid="(S\d+)" data-statement="(\d+)"', report.text
        )
        assert cites, report.text[:500]
        sid, statement = cites[0]
        card = client.get(
            f"/api/runs/{run_id}/sources/{sid}", params={"statement": statement}
        ).json()
        assert card["url"].startswith("http") and card["quotes"]
        for quote in card["quotes"]:
            assert quote["start"] is not None
            marked = card["text"][quote["start"] : quote["end"]]
            assert marked.split()[:2] == quote["quote"].split()[:2]
        verdict = client.get(f"/api/runs/{run_id}/audit").json()
        assert verdict["ok"] is True, verdict

        listing = client.get("/api/runs").json()
        assert [row["run_id"] for row in listing] == [run_id]
        assert (
            listing[0]["status"] == "completed"
            and listing[0]["query"] == "coral bleaching heat stress"
        )
        assert client.get(f"/runs/{run_id}").status_code == 200
    # A normal run folder: the CLI lists and audits it.
    runs = CliRunner().invoke(app, ["runs", "--json", "--config", "research-studio.toml"])
    assert json.loads(runs.stdout)[0]["run_id"] == run_id
    audit = CliRunner().invoke(app, ["audit", run_id, "--config", "research-studio.toml"])
    assert audit.exit_code == 0, audit.output


def test_an_ambiguous_question_pauses_until_answered(server: LiveServer) -> None:
    model = ResearchScript(ambiguous=True).model()
    spec = use_scripted_model(model)
    with httpx.Client(base_url=server.url) as client:
        run_id = start(client, question="python", model=spec, max_iterations=1)
        url = f"/api/runs/{run_id}/events"
        paused = sse(client, url, until=status_is("awaiting_clarification"))
        pending = paused[-1]["data"]["pending"]
        assert pending["kind"] == "clarification" and pending["question"] and pending["options"]
        assert (
            client.post(f"/api/runs/{run_id}/answer", json={"answer": "The snake"}).status_code
            == 202
        )
        last = max(int(m["id"]) for m in paused if m["event"] == "event")
        rest = sse(client, url, until=ended, **{"Last-Event-ID": str(last)})
        assert rest[-1]["data"]["status"] == "completed"
        assert all(int(m["id"]) > last for m in rest if m["event"] == "event")
        assert "write_report" in {m["data"]["node"] for m in rest if m["event"] == "event"}
    assert "User clarification: The snake" in model.calls_for("ResearchPlan")[0].prompt


def test_answers_sent_at_once_continue_a_paused_run_once(server: LiveServer) -> None:
    model = ResearchScript(ambiguous=True).model()
    spec = use_scripted_model(model)
    with httpx.Client(base_url=server.url) as client:
        run_id = start(client, question="python", model=spec, max_iterations=1)
        wait_for_status(client, run_id, "awaiting_clarification")

    async def answer_at_once() -> list[int]:
        async with httpx.AsyncClient(base_url=server.url) as client:
            replies = await asyncio.gather(
                *(
                    client.post(f"/api/runs/{run_id}/answer", json={"answer": "The snake"})
                    for _ in range(4)
                )
            )
        return sorted(reply.status_code for reply in replies)

    assert asyncio.run(answer_at_once()) == [202, 409, 409, 409]
    with httpx.Client(base_url=server.url) as client:
        done = wait_for_status(client, run_id, "completed", "failed")
    assert done["status"] == "completed", done
    assert len(model.calls_for("ResearchPlan")) == 1  # one execution continued the run


def test_a_restarted_server_still_shows_what_a_paused_run_asks(
    serve: Callable[..., LiveServer],
) -> None:
    spec = use_scripted_model(ResearchScript(ambiguous=True).model())
    first = serve()
    with httpx.Client(base_url=first.url) as client:
        run_id = start(client, question="python", model=spec, max_iterations=1)
        asked = wait_for_status(client, run_id, "awaiting_clarification")["pending"]
    first.__exit__(None, None, None)
    with httpx.Client(base_url=serve().url) as client:
        pending = client.get(f"/api/runs/{run_id}").json()["pending"]
    assert pending == asked and pending["options"]


def test_cancel_saves_the_run_as_cancelled_and_resume_finishes_it(
    server: LiveServer, web: FakeWeb
) -> None:
    spec = use_scripted_model(ResearchScript().model())
    web.search_latency_s = 1.0
    with httpx.Client(base_url=server.url) as client:
        run_id = start(client, model=spec, no_clarify=True)
        sse(
            client,
            f"/api/runs/{run_id}/events",
            until=lambda m: m["event"] == "event" and m["data"]["kind"] == "start",
        )
        assert client.post(f"/api/runs/{run_id}/cancel", json={}).status_code == 202
        stopped = wait_for_status(client, run_id, "cancelled")
        assert stopped["record"]["status"] == "cancelled" and not stopped["record"]["error"]
        assert client.post(f"/api/runs/{run_id}/cancel", json={}).status_code == 409
        web.search_latency_s = 0.0
        assert client.post(f"/api/runs/{run_id}/resume", json={}).status_code == 202
        assert client.delete(f"/api/runs/{run_id}").status_code == 409  # running again
        done = wait_for_status(client, run_id, "completed", "failed")
        assert done["status"] == "completed", done
        assert done["record"]["attempts"] == 2
        assert client.post(f"/api/runs/{run_id}/resume", json={}).status_code == 409  # completed


def test_delete_removes_a_finished_run_but_never_a_running_one(
    server: LiveServer, web: FakeWeb, tmp_path: Path
) -> None:
    spec = use_scripted_model(ResearchScript().model())
    with httpx.Client(base_url=server.url) as client:
        web.search_latency_s = 1.0
        running = start(client, model=spec, no_clarify=True)
        refused = client.delete(f"/api/runs/{running}")
        assert refused.status_code == 409 and (tmp_path / "runs" / running).is_dir()
        client.post(f"/api/runs/{running}/cancel", json={})
        wait_for_status(client, running, "cancelled")
        assert client.delete(f"/api/runs/{running}").json()["deleted"] is True
        assert not (tmp_path / "runs" / running).exists()
        assert client.get(f"/api/runs/{running}").status_code == 404


def test_exports_download_from_a_finished_run(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    import shutil

    shutil.copytree(finished_run_folder, tmp_path / "runs" / "done")
    # The first PDF of a process imports the PDF library: seconds on a busy machine, past httpx's
    # 5 s default.
    with httpx.Client(base_url=server.url, timeout=60) as client:
        pdf = client.get("/api/runs/done/export/pdf")
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
        assert "attachment" in pdf.headers["content-disposition"]
        bib = client.get("/api/runs/done/export/bib")
        assert bib.status_code == 200 and "@" in bib.text
        assert client.get("/api/runs/done/export/exe").status_code == 422
        page = client.get("/runs/done").text
        assert all(
            f'data-format="{fmt}"' in page for fmt in ("md", "html", "pdf", "docx", "bib", "ris")
        )


def test_events_resume_after_the_line_the_address_names(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    import shutil

    shutil.copytree(finished_run_folder, tmp_path / "runs" / "done")
    with httpx.Client(base_url=server.url) as client:
        after = sse(client, "/api/runs/done/events?after=3", until=ended)
        assert next(m["id"] for m in after if m["event"] == "event") == "4"
        # A reconnecting EventSource sends Last-Event-ID, which wins over the address.
        again = sse(client, "/api/runs/done/events?after=3", until=ended, **{"Last-Event-ID": "5"})
        assert next(m["id"] for m in again if m["event"] == "event") == "6"


def test_a_cli_run_saved_under_another_name_opens_by_the_id_the_list_links(
    server: LiveServer, web: FakeWeb, tmp_path: Path
) -> None:
    folder = tmp_path / "runs" / "my-roofs-run"  # `--out NAME` inside the runs folder
    made = run_cli(web, "run", "coral bleaching heat stress", "--out", str(folder))
    assert made.exit_code == 0, made.output
    run_id = json.loads((folder / "run.json").read_text())["run_id"]
    assert run_id != folder.name
    with httpx.Client(base_url=server.url) as client:
        listed = [row["run_id"] for row in client.get("/api/runs").json()]
        assert listed == [run_id]
        assert client.get(f"/runs/{run_id}").status_code == 200
        assert client.get(f"/api/runs/{run_id}").json()["status"] == "completed"
        assert client.get(f"/api/runs/{run_id}/report").status_code == 200
        assert client.get(f"/api/runs/{run_id}/audit").json()["ok"] is True
        # Not 404: the run is found; a finished run cannot be resumed or cancelled.
        assert client.post(f"/api/runs/{run_id}/resume", json={}).status_code == 409
        assert client.post(f"/api/runs/{run_id}/cancel", json={}).status_code == 409
        assert client.delete(f"/api/runs/{run_id}").status_code == 200
    assert not folder.exists()
    # The CLI finds it by the same id (and by its folder name).
    again = run_cli(web, "run", "coral bleaching heat stress", "--out", str(folder))
    assert again.exit_code == 0, again.output
    new_id = json.loads((folder / "run.json").read_text())["run_id"]
    for name in (new_id, new_id[:17], folder.name):
        audit = CliRunner().invoke(app, ["audit", name])
        assert audit.exit_code == 0, audit.output


def test_a_model_server_nothing_answers_at_is_refused_before_a_run_starts(
    serve: Callable[..., LiveServer], settings_file: Path, tmp_path: Path
) -> None:
    """An Ollama that is not running: the form is refused in one line naming the model field,
    with what to do, and no run folder is made (the same set-up as the CLI's)."""
    with settings_file.open("a") as settings:
        settings.write('ollama_host = "http://127.0.0.1:9"\n')  # nothing listens on port 9
    server = serve()
    with httpx.Client(base_url=server.url) as client:
        response = client.post(
            "/api/runs", json={"question": "coral bleaching", "model": "ollama:llama3.1"}
        )
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["field"] == "model" and "\n" not in body["message"]
    assert "nothing answers at http://127.0.0.1:9" in body["message"]
    assert "`ollama serve`" in body["message"]
    assert not any((tmp_path / "runs").iterdir())
    with httpx.Client(base_url=server.url) as client:
        preview = client.get("/api/resolution", params={"model": "ollama:llama3.1"}).json()
    assert "nothing answers at http://127.0.0.1:9" in preview["model"]["error"]


@contextmanager
def _stopping_after_one_connect() -> Iterator[str]:
    """A model server that answers the set-up's connect, then stops (as Ollama quit after the
    run started): every call of the run is refused."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(30)

    def answer_once() -> None:
        with contextlib.suppress(OSError):
            listener.accept()[0].close()
        listener.close()

    thread = threading.Thread(target=answer_once, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        thread.join(timeout=35)


def test_a_run_that_fails_on_a_model_server_is_one_line_in_the_server_log(
    serve: Callable[..., LiveServer], settings_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An Ollama that stops once the run has started fails the run; the server's terminal says so
    in one line (the page shows the error), not with the traceback of every layer it passed
    through."""
    with _stopping_after_one_connect() as url:
        with settings_file.open("a") as settings:
            settings.write(f'ollama_host = "{url}"\n')
        with httpx.Client(base_url=serve().url) as client:
            run_id = start(client, model="ollama:llama3.1")
            data = wait_for_status(client, run_id, "failed")
    assert "ollama:llama3.1" in data["error"]
    failed = [record for record in caplog.records if f"run {run_id} failed" in record.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is None, caplog.text
    assert "Traceback" not in caplog.text


def test_a_failed_runs_error_names_no_server_path_in_the_list_or_its_page(
    server: LiveServer, finished_run_folder: Path, tmp_path: Path
) -> None:
    import shutil

    runs = (tmp_path / "runs").resolve()
    folder = runs / "broken"
    shutil.copytree(finished_run_folder, folder)
    record = json.loads((folder / "run.json").read_text())
    record.update(status="failed", error=f"cannot write {folder}/report.md: disk full ({runs})")
    (folder / "run.json").write_text(json.dumps(record))
    cleaned = "cannot write broken/report.md: disk full (the runs folder)"
    with httpx.Client(base_url=server.url) as client:
        listed = client.get("/api/runs").json()
        detail = client.get(f"/api/runs/{record['run_id']}").json()
    [row] = [row for row in listed if row["run_id"] == record["run_id"]]
    assert row["status"] == "failed" and row["error"] == cleaned
    assert detail["error"] == detail["record"]["error"] == cleaned
    assert str(tmp_path) not in json.dumps(listed) + json.dumps(detail)

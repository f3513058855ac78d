"""Every face offers exactly the settings their declarations give it, no more and no fewer.

Each face is read as a user meets it: the CLI commands' options (Typer's click command), the
web form's rendered fields, its request model and the list its script sends, the MCP tools'
input schemas (through the MCP SDK's client), the graphs' LangGraph context schemas.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from research_studio.core.config import Configuration
from research_studio.core.config_fields import FACES, Face, offered
from research_studio.core.declarations import (
    DECLARED,
    WIDENING,
    Declared,
    client_settings,
    offered_by,
)
from research_studio.faces.cli import COMMANDS, load_command
from research_studio.faces.mcp_server import build_server
from research_studio.faces.web import ServeSettings, create_app
from research_studio.faces.web.pages import LOOKS, STATIC, render
from research_studio.faces.web.request import ResearchRequest
from research_studio.pipelines.kit.spec import load
from research_studio.pipelines.registry import specs

SETTINGS = set(Configuration.model_fields)
# research_start takes what research takes (one face: "mcp.research").
MCP_FACES: dict[str, Face] = {"research": "mcp.research", "research_start": "mcp.research"}


def _cli_offers(command: str) -> set[str]:
    """The settings a command offers: its options named as a setting and spelled as its flag
    (`export --format` is the file's format, eval's `--max-iterations` its cases' rounds)."""
    return {
        param.name
        for param in load_command(command).params
        if param.name in DECLARED
        and "/".join((*param.opts, *param.secondary_opts)) == DECLARED[param.name].flag
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_offers_exactly_its_declared_settings(command: str) -> None:
    face = f"cli.{command}"
    declared = set(offered_by(face)) if face in FACES else set()  # type: ignore[arg-type]
    assert _cli_offers(command) == declared


@pytest.mark.parametrize("face", [face for face in FACES if face.startswith("cli.")])
def test_every_command_face_is_a_command_whose_options_show_the_declarations(face: str) -> None:
    command = face.removeprefix("cli.")
    assert command in COMMANDS
    params = {param.name: param for param in load_command(command).params}
    for name in offered_by(face):  # type: ignore[arg-type]
        declared = DECLARED[name]
        assert params[name].help == declared.help, (command, name)
        assert "/".join((*params[name].opts, *params[name].secondary_opts)) == declared.flag


def test_the_web_form_its_request_and_its_script_offer_exactly_the_declared_settings(
    tmp_path: Path,
) -> None:
    declared = set(offered_by("web"))
    page = render("index")
    form = page.split('<form id="research-form"', 1)[1].split("</form>", 1)[0]
    named = set(re.findall(r'\bname="([a-z_]+)"', form))
    marked = set(re.findall(r'\bname="([a-z_]+)" data-setting', form))
    assert named & SETTINGS == marked == declared
    assert set(ResearchRequest.model_fields) & SETTINGS == declared
    assert set(LOOKS) <= declared  # the form's looks name no setting it does not offer
    # The script sends what the page marks (tests/browser/test_form_settings.py sends it).
    script = (STATIC / "new.js").read_text(encoding="utf-8")
    assert 'querySelectorAll("[data-setting]")' in script

    settings = tmp_path / "research-studio.toml"
    settings.write_text(f'runs_dir = "{tmp_path / "runs"}"\n')
    app = create_app(ServeSettings(config_file=settings))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        options = client.get("/api/options").json()
    assert set(options["settings"]) == declared


async def test_every_mcp_tool_offers_exactly_its_declared_settings() -> None:
    async with Client(build_server()) as client:
        listed = await client.list_tools()
    assert {"research", "research_start", "search"} <= {tool.name for tool in listed.tools}
    for tool in listed.tools:
        face = MCP_FACES.get(tool.name, f"mcp.{tool.name}")
        declared = set(offered_by(face)) if face in FACES else set()  # type: ignore[arg-type]
        assert set(tool.input_schema["properties"]) & SETTINGS == declared, tool.name
        for name in declared:
            described = tool.input_schema["properties"][name]["description"]
            assert described == DECLARED[name].help, (tool.name, name)


@pytest.mark.parametrize("pipeline", specs(), ids=lambda spec: spec.name)
def test_every_graph_takes_every_setting_but_the_keys_in_its_langgraph_context(
    pipeline: object,
) -> None:
    for reference in pipeline.graphs.values():  # type: ignore[attr-defined]
        schema = load(reference).get_context_jsonschema()
        assert set(schema["properties"]) == set(offered_by("langgraph"))
        assert set(offered_by("langgraph")) == SETTINGS - WIDENING


def test_a_declaration_names_only_faces_and_a_command_face_needs_a_flag() -> None:
    assert offered(("cli.run", "web"), "Model", "--model")["faces"] == ["cli.run", "web"]
    assert "flag" not in offered(("web",), "Model")
    with pytest.raises(ValueError, match="not a face"):
        offered(("gui",), "Model", "--model")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a face"):
        offered(("langgraph",), "Model")  # every setting is there: none is declared for it
    with pytest.raises(ValueError, match="declares no flag"):
        offered(("cli.ask",), "Model")


@pytest.mark.parametrize("face", ["web", "mcp.research", "mcp.search"])
def test_no_remote_clients_face_may_take_a_setting_that_widens_the_servers_reach(
    monkeypatch: pytest.MonkeyPatch, face: Face
) -> None:
    assert "allow_private_networks" not in client_settings(face)
    widened = dict(DECLARED)
    base = DECLARED["allow_private_networks"]
    widened[base.name] = Declared(**{**vars(base), "faces": (*base.faces, face)})
    monkeypatch.setattr("research_studio.core.declarations.DECLARED", widened)
    assert "allow_private_networks" in offered_by(face)
    with pytest.raises(RuntimeError, match="may not take allow_private_networks"):
        client_settings(face)

"""Shared test helpers: the CLI aimed at the local web, with a scripted or OpenAI-compatible model."""

from __future__ import annotations

from click.testing import Result
from typer.testing import CliRunner

from research_studio.cli import app
from research_studio.testing.fake_web import FakeWeb
from research_studio.testing.research_script import ResearchScript
from research_studio.testing.scripted_model import ScriptedChatModel, use_scripted_model


def web_args(web: FakeWeb) -> list[str]:
    """The CLI flags that search the local web's SearXNG, private addresses allowed."""
    return ["--search", "searxng", "--searxng-url", web.base_url, "--allow-private-networks"]


def run_cli(
    web: FakeWeb, command: str, *args: str, model: ScriptedChatModel | str | None = None
) -> Result:
    """`research-studio COMMAND ARGS` on the local web; a fresh research script unless `model`."""
    if model is None:
        model = ResearchScript().model()
    spec = model if isinstance(model, str) else use_scripted_model(model)
    return CliRunner().invoke(app, [command, *args, "--model", spec, *web_args(web)])

"""Headless Chromium (Debian's package, driven by Playwright) against a real `research-studio serve`."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

from tests.doubles.fake_web import FakeWeb

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium dials out, and this closed network refuses it.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT: ViewportSize = {"width": 1280, "height": 900}
# The widths every layout test checks: a desktop and a phone.
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# Read at import: the suite's autouse fixture clears RESEARCH_STUDIO_* variables for each test.
UPDATE_SCREENSHOTS = os.environ.get("RESEARCH_STUDIO_UPDATE_SCREENSHOTS") == "1"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"

# Page steps wait on a server doing real work on 2 shared cores: 5 s (the default) is too tight.
expect.set_options(timeout=30_000)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServeProcess:
    """`research-studio serve` in a subprocess with a clean environment, in its own folder."""

    def __init__(self, folder: Path, env: dict[str, str], *args: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.log = folder / "serve.log"
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = shutil.which("research-studio", path=str(Path(sys.executable).parent))
        assert command, "the research-studio script is not installed in this virtualenv"
        clean = {
            "PATH": os.environ.get("PATH", ""),
            # The code under test (a worktree's src first), not only what the venv installed.
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "HOME": str(folder),
            "XDG_CACHE_HOME": str(folder / "cache"),
            # The run history in this folder (the per-user default would be under HOME).
            "RESEARCH_STUDIO_RUNS_DIR": str(folder / "runs"),
            "LANGSMITH_TRACING": "false",
            "LANGCHAIN_TRACING_V2": "false",
            **env,
        }
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(
                [command, "serve", "--port", str(self.port), *args],
                cwd=folder,
                env=clean,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, ended as one below
            )
        self._wait_until_up()

    def _wait_until_up(self) -> None:
        for _ in range(240):
            if self.process.poll() is not None:
                pytest.fail(f"research-studio serve exited:\n{self.output()}")
            try:
                if httpx.get(f"{self.url}/api/options", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        pytest.fail(f"research-studio serve did not start:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture(scope="module")
def scripted_server(
    web_server: FakeWeb, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServeProcess]:
    """The server with an OpenAI-compatible model and SearXNG on the local web (set web.chat.responder)."""
    web = web_server
    env = {
        "OPENAI_API_KEY": "sk-test",
        "OPENAI_BASE_URL": web.url("/v1"),
        "SEARXNG_URL": web.base_url,
        "RESEARCH_STUDIO_ALLOW_PRIVATE_NETWORKS": "true",
        "RESEARCH_STUDIO_RETRY_BASE_DELAY_S": "0.01",
    }
    server = ServeProcess(tmp_path_factory.mktemp("serve"), env)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """One headless Chromium per module (pages get a fresh context per test)."""
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed at /usr/bin/chromium (apt-get install chromium)"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Browser) -> Iterator[Page]:
    """A fresh page at the screenshots' viewport that accepts downloads."""
    context = chromium.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(30_000)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"the page raised JavaScript errors: {errors}"


@pytest.fixture(params=sorted(WIDTHS))
def sized(request: pytest.FixtureRequest, chromium: Browser) -> Iterator[tuple[str, Page]]:
    """A touch page at each of WIDTHS, by name ("desktop", "phone")."""
    width, height = WIDTHS[request.param]
    context = chromium.new_context(viewport={"width": width, "height": height}, has_touch=True)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield request.param, tab
    context.close()
    assert not errors, errors


Shoot = Callable[..., Path]


@pytest.fixture
def screenshot(tmp_path: Path) -> Shoot:
    """Save a screenshot into tmp_path; with RESEARCH_STUDIO_UPDATE_SCREENSHOTS=1 also into docs/."""

    def shoot(tab: Page, name: str, *, for_docs: bool = True) -> Path:
        path = tmp_path / name
        tab.screenshot(path=str(path))
        assert path.stat().st_size > 0
        if for_docs and UPDATE_SCREENSHOTS:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, SCREENSHOTS / name)
        return path

    return shoot

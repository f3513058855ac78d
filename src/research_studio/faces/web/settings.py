"""What `research-studio serve` is started with, and the exposure rule it must satisfy."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, Field

from research_studio.core.errors import ConfigError

LOOPBACK_NAMES = ("localhost",)
EXAMPLE_DOCS = Path(__file__).resolve().parents[4] / "examples" / "urban-heat"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ServeSettings(BaseModel):
    """Address, access token, allowed document folders and settings file of the web server."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    token: str | None = None
    docs_roots: list[Path] = Field(default_factory=list)
    config_file: Path | None = None

    def check_exposure(self) -> None:
        """A non-loopback address needs a token: anyone who can reach it could run research."""
        if not is_loopback(self.host) and not self.token:
            raise ConfigError(
                f"serving on {self.host} needs an access token: pass --token TOKEN "
                "or set RESEARCH_STUDIO_SERVE_TOKEN (or bind 127.0.0.1)"
            )

    def allowed_docs(self) -> list[Path]:
        """The document folders the page may research: --docs-root ones and the bundled examples."""
        roots = [path.resolve() for path in self.docs_roots]
        if EXAMPLE_DOCS.is_dir() and EXAMPLE_DOCS not in roots:
            roots.append(EXAMPLE_DOCS)
        return roots

    def url(self) -> str:
        """The address to open, with the token when one is set."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        suffix = f"/?token={quote(self.token, safe='')}" if self.token else "/"
        return f"http://{host}:{self.port}{suffix}"

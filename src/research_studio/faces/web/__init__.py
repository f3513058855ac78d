"""The web page: `research-studio serve` runs this app (new research, live progress, reports, runs)."""

from research_studio.faces.web.app import create_app
from research_studio.faces.web.settings import ServeSettings

__all__ = ["ServeSettings", "create_app"]

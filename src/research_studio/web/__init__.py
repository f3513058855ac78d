"""The web page: `research-studio serve` runs this app (new research, live progress, reports, runs)."""

from research_studio.web.app import create_app
from research_studio.web.settings import ServeSettings

__all__ = ["ServeSettings", "create_app"]

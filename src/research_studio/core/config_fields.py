"""The building blocks of `Configuration`'s fields: bounded numbers, face declarations, checks.

`offered` declares, once and on its field, where a setting is offered (its faces), its CLI flag
and its label; core/declarations.py reads it, and every face's list of settings is generated
from it. Which pipelines read a setting is said by each pipeline's spec (`settings`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, SecretStr, model_validator

from research_studio.core.languages import LANGUAGE_NAMES, normalize_language
from research_studio.core.urls import is_web_url


def default_cache_dir() -> Path:
    """The per-user cache folder (XDG_CACHE_HOME honoured)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "research-studio"


def default_runs_dir() -> Path:
    """The per-user run history: XDG_DATA_HOME, else the platform's user data folder."""
    if base := os.environ.get("XDG_DATA_HOME"):
        return Path(base) / "research-studio" / "runs"
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / "research-studio" / "runs"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "research-studio" / "runs"
    return Path.home() / ".local" / "share" / "research-studio" / "runs"


# Where a setting can be offered, besides the settings file and the environment: a CLI command
# ("cli.<command>"; `remote` sends its settings as a LangGraph server's run context, whose
# models, keys and search stay the server's), the web page's new research form ("web"), an MCP
# tool ("mcp.<tool>"; research_start takes what research takes). The web form and the MCP tools
# never take a setting that widens the server's reach (core/declarations.client_settings).
# Every setting but the secrets is also in every graph's LangGraph context ("langgraph",
# `declarations.offered_by`): `config_loading.RunContext` is their context_schema, so none is
# declared there.
Face = Literal[
    "cli.run",
    "cli.remote",
    "cli.ask",
    "cli.eval",
    "cli.search",
    "cli.fetch",
    "cli.verify",
    "cli.audit",
    "cli.doctor",
    "web",
    "mcp.research",
    "mcp.search",
    "langgraph",
]
FACES: tuple[Face, ...] = get_args(Face)
# The commands that search and fetch pages (and so take the search provider's settings).
SEARCHING: tuple[Face, ...] = ("cli.run", "cli.ask", "cli.eval", "cli.search")


def offered(on: Iterable[Face], label: str, flag: str | None = None) -> dict[str, JsonValue]:
    """A setting's face metadata, kept on its field: the faces that offer it (`on`), its label
    on the web form and its CLI flag as Typer takes it ("--iterations", "--cache/--no-cache").

    The help, bounds, choices and default are the field's own, so every face shows the same ones.
    """
    faces = list(dict.fromkeys(on))
    unknown = [face for face in faces if face not in FACES or face == "langgraph"]
    if unknown:
        raise ValueError(f"not a face a setting is declared for: {unknown}")
    if flag is None and any(face.startswith("cli.") for face in faces):
        raise ValueError(f"{label!r} is offered by a command but declares no flag")
    extra: dict[str, JsonValue] = {"faces": list(faces), "label": label}
    if flag is not None:
        extra["flag"] = flag
    return extra


def unit_field(default: float, description: str) -> Any:
    return Field(default, ge=0.0, le=1.0, description=description)


def count_field(
    default: int,
    description: str,
    *,
    maximum: int = 1000,
    extra: dict[str, JsonValue] | None = None,
) -> Any:
    return Field(default, ge=1, le=maximum, description=description, json_schema_extra=extra)


def seconds_field(default: float, description: str) -> Any:
    return Field(default, gt=0.0, le=3600.0, description=description)


def budget_field(what: str, flag: str, label: str, unit: str = "") -> Any:
    """An optional per-run budget, unset for no limit: a count (no unit) of at least 1, or an
    amount in `unit` above 0. Its label is "<label> budget <unit>"; `run` and the MCP research
    tools offer it."""
    bound = {"gt": 0.0} if unit else {"ge": 1}
    label = " ".join(filter(None, (label, "budget", unit)))
    return Field(
        None,
        description=f"Budget: {what}.",
        json_schema_extra=offered(("cli.run", "mcp.research"), label, flag),
        **bound,
    )


def known_language(value: str | None) -> str | None:
    """None, or a language the report can be written in, as its code ("German" -> "de")."""
    if value is None or not value.strip():
        return None
    code = normalize_language(value)
    if code not in LANGUAGE_NAMES:
        known = ", ".join(f"{code} ({name})" for code, name in LANGUAGE_NAMES.items())
        raise ValueError(f"unknown language {value.strip()!r}; known: {known}")
    return code


def checkpoints_url(value: str | None) -> str | None:
    """None or "sqlite" (the run folder) or a PostgreSQL URL."""
    text = (value or "").strip().lower()
    if value is None or text == "sqlite" or text.startswith(("postgresql://", "postgres://")):
        return value
    raise ValueError("expected a postgresql:// URL (or sqlite for the run folder)")


def server_url(value: str | None) -> str | None:
    """None or the http(s) URL of a LangGraph server."""
    if value is None or is_web_url(value):
        return value
    raise ValueError("expected the http(s) URL of a LangGraph server")


class McpServerSpec(BaseModel):
    """An MCP server whose tools research may use: a stdio `command` or a streamable HTTP `url`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str = Field(
        pattern=r"^[A-Za-z0-9_-]{1,32}$", description="Short name; prefixes its tools."
    )
    command: str | None = Field(None, description="Executable of a stdio server.")
    args: list[str] = Field(default_factory=list, description="Arguments of the command.")
    # Secrets: masked wherever the configuration is shown or saved.
    env: dict[str, SecretStr] = Field(default_factory=dict, description="Extra environment.")
    url: str | None = Field(None, description="Endpoint of a streamable HTTP server.")
    headers: dict[str, SecretStr] = Field(default_factory=dict, description="HTTP headers.")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSpec:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r} needs either command or url")
        return self

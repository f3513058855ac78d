"""The configuration's layered loading: defaults < research-studio.toml < environment < flags.

Mistakes in any layer are one-line `ConfigError`s naming where the value came from.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, JsonValue, ValidationError

from research_studio.core.config import Configuration
from research_studio.core.declarations import DECLARED, offered_by
from research_studio.core.errors import ConfigError

ENV_PREFIX = "RESEARCH_STUDIO_"
CONFIG_FILE_NAME = "research-studio.toml"
# Providers' own variables, honoured as they are (a RESEARCH_STUDIO_* variable still wins).
PROVIDER_ENV_VARS: dict[str, str] = {
    "openai_api_key": "OPENAI_API_KEY",
    "openai_base_url": "OPENAI_BASE_URL",
    "anthropic_api_key": "ANTHROPIC_API_KEY",
    "tavily_api_key": "TAVILY_API_KEY",
    "ollama_host": "OLLAMA_HOST",
    "searxng_url": "SEARXNG_URL",
}


def _offered(name: str, read_by: Mapping[str, Sequence[str]]) -> str:
    """Where a setting is offered besides the file, the environment and the LangGraph context:
    its flag and commands, the web form, the MCP tools; and the only pipelines that read it."""
    declared = DECLARED.get(name)
    faces: tuple[str, ...] = declared.faces if declared else ()
    commands = [face.removeprefix("cli.") for face in faces if face.startswith("cli.")]
    tools = [face.removeprefix("mcp.") for face in faces if face.startswith("mcp.")]
    parts = []
    if declared and commands:
        parts.append(f"`{(declared.flag or '').split('/')[0]}` ({', '.join(commands)})")
    if "web" in faces:
        parts.append("web form")
    if tools:
        parts.append(f"MCP {', '.join(tools)}")
    if name in read_by:
        parts.append(f"only {', '.join(read_by[name])}")
    return "; ".join(parts)


def settings_reference(read_by: Mapping[str, Sequence[str]] | None = None) -> str:
    """A Markdown table of every setting: name, environment variables, default, meaning, and
    where it is offered (`read_by`: the settings only some pipelines read, and those)."""
    rows = [
        "| Setting | Environment | Default | Meaning | Offered by |",
        "|---|---|---|---|---|",
    ]
    for name, info in Configuration.model_fields.items():
        if name == "cache_dir":
            default = "~/.cache/research-studio"
        elif name == "runs_dir":
            default = "~/.local/share/research-studio/runs"
        elif info.default_factory is not None:
            default = repr(info.default_factory())  # type: ignore[call-arg]
        else:
            default = "—" if info.default is None else str(info.default)
        environment = f"`{ENV_PREFIX}{name.upper()}`"
        if name in PROVIDER_ENV_VARS:
            environment += f", `{PROVIDER_ENV_VARS[name]}`"
        offered = _offered(name, read_by or {})
        rows.append(f"| `{name}` | {environment} | `{default}` | {info.description} | {offered} |")
    return "\n".join(rows)


@dataclass
class LoadedConfiguration:
    """A configuration and where each non-default value came from."""

    config: Configuration
    origins: dict[str, str] = field(default_factory=dict)


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from exc
    section = data.get("research_studio", data)
    if not isinstance(section, dict):
        raise ConfigError(f"config file {path}: expected a table of settings")
    return dict(section)


def _env_value(name: str, raw: str) -> Any:
    """Decode an environment string; structured fields take JSON or comma lists."""
    annotation = str(Configuration.model_fields[name].annotation)
    if annotation.startswith(("dict", "list")):
        stripped = raw.strip()
        if stripped.startswith(("{", "[")):
            try:
                return json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{ENV_PREFIX}{name.upper()}: invalid JSON ({exc.msg})") from exc
        if annotation.startswith("list"):
            return [part.strip() for part in stripped.split(os.pathsep) if part.strip()]
    return raw


def _from_environment(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for name, var in PROVIDER_ENV_VARS.items():
        if env.get(var):
            values[name], origins[name] = env[var], f"env {var}"
    for name in Configuration.model_fields:
        var = ENV_PREFIX + name.upper()
        if env.get(var, "") != "":
            values[name], origins[name] = _env_value(name, env[var]), f"env {var}"
    return values, origins


def cli_flag(name: str) -> str | None:
    """A setting's CLI flag (its first spelling), or None when the CLI offers none."""
    declared = DECLARED.get(name)
    return declared.flag.split("/")[0] if declared and declared.flag else None


def error_message(error: Mapping[str, Any]) -> str:
    """A pydantic error's message without pydantic's "Value error, " prefix."""
    return str(error["msg"]).removeprefix("Value error, ")


def describe_errors(exc: ValidationError, origins: Mapping[str, str]) -> str:
    """Pydantic's errors on one line, each naming the setting and where its value came from."""
    parts = []
    for error in exc.errors():
        name = str(error["loc"][0]) if error["loc"] else "?"
        where = origins.get(name, "value")
        if where == "command line" and (flag := cli_flag(name)):
            where = flag
        if error["type"] == "extra_forbidden":
            parts.append(f"unknown setting {name!r} ({where})")
        else:
            parts.append(f"{name} ({where}): {error_message(error)}")
    return "; ".join(parts)


# The settings a run's context may set (Studio's knobs): all but the secrets.
_KNOBS = frozenset(offered_by("langgraph"))


def _only_knobs(schema: dict[str, JsonValue]) -> None:
    """The context schema with only the knobs: Studio shows no field for a key."""
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name in set(properties) - _KNOBS:
            del properties[name]
    required = schema.get("required")
    if isinstance(required, list):
        required[:] = [name for name in required if name in _KNOBS]


class RunContext(Configuration):
    """The graphs' `context_schema`: the same settings, built from a run's context.

    LangGraph builds a run's context as RunContext(**context) (Studio's knobs, the SDK's
    `context`): a wrong value fails in one line naming the setting, not in pydantic's text.
    `Configuration` itself keeps pydantic's errors for `load_configuration` to describe.

    Only the settings `offered_by("langgraph")` are knobs: not the API keys, which a key typed
    in Studio would store on the server with the run, nor the endpoints, commands, private
    networks and folders that widen the server's reach. The others are left out of the schema
    and refused in a run's context; a run reads them from the server's environment or settings
    file (`services.clients.server_configuration`), as the CLI does."""

    model_config = ConfigDict(title="Configuration", json_schema_extra=_only_knobs)

    if not TYPE_CHECKING:  # mypy keeps pydantic's typed keyword arguments

        def __init__(self, **values: Any) -> None:
            secrets = sorted(set(values) & Configuration.model_fields.keys() - _KNOBS)
            if secrets:
                raise ConfigError(
                    f"invalid configuration: {secrets[0]} (context): not taken from a run's"
                    " context (keys, endpoints and folders are the server's); set it in the"
                    " server's environment or settings file"
                )
            try:
                super().__init__(**values)
            except ValidationError as exc:
                origins = dict.fromkeys(values, "context")
                raise ConfigError(
                    f"invalid configuration: {describe_errors(exc, origins)}"
                ) from None


def _check_config_path(path: Path) -> None:
    """An explicit settings file that is missing, a folder or not a regular file: one line."""
    if path.is_file():
        return
    if path.is_dir():
        raise ConfigError(f"config file {path} is a folder, not a settings file")
    if path.exists():
        raise ConfigError(f"config file {path} is not a regular file")
    raise ConfigError(f"config file not found: {path}")


def _validate(values: dict[str, Any], origins: Mapping[str, str]) -> Configuration:
    try:
        return Configuration.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration: {describe_errors(exc, origins)}") from None


def settings_file(env: Mapping[str, str] | None = None) -> Path:
    """The settings file `load_configuration` reads: RESEARCH_STUDIO_CONFIG names it, else
    research-studio.toml in the working folder (which need not exist)."""
    env = os.environ if env is None else env
    named = env.get(f"{ENV_PREFIX}CONFIG")
    # Relative, not Path.cwd(): no os.getcwd(), which a server's event loop refuses.
    return Path(named) if named else Path(CONFIG_FILE_NAME)


def load_configuration(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> LoadedConfiguration:
    """Merge defaults < research-studio.toml < environment < CLI overrides into one validated model."""
    env = os.environ if env is None else env
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}

    path = config_file or settings_file(env)
    if config_file is not None or env.get(f"{ENV_PREFIX}CONFIG"):
        _check_config_path(path)
    if path.is_file():
        file_values = _read_config_file(path)
        merged.update(file_values)
        origins.update({name: f"file {path.name}" for name in file_values})

    env_values, env_origins = _from_environment(env)
    merged.update(env_values)
    origins.update(env_origins)
    given = {name: value for name, value in (overrides or {}).items() if value is not None}
    if merged and given:
        # Validated whole: a bad value in the file or environment is an error even when a
        # command-line value would replace it.
        _validate(merged, origins)

    for name, value in given.items():
        merged[name], origins[name] = value, "command line"
    return LoadedConfiguration(config=_validate(merged, origins), origins=origins)

"""The one configuration model: graph context schema, typed object in code, and its layered loading."""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SecretStr,
    ValidationError,
    model_validator,
)

from research_studio.core.errors import ConfigError
from research_studio.core.languages import LANGUAGE_NAMES, normalize_language
from research_studio.core.urls import REDACTED, is_secret_name, is_web_url, redact_url

ReportStructure = Literal["detailed", "concise", "bullet_points"]
SearchProviderName = Literal["tavily", "duckduckgo", "searxng", "local", "mcp"]
ExtractionMode = Literal["llm", "extractive", "auto"]
ReviewMode = Literal["none", "brief", "full"]

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


def flag(name: str, label: str) -> dict[str, JsonValue]:
    """A setting's face metadata, kept on its field: its CLI flag and its label on the web form.

    `name` is the flag as Typer takes it ("--iterations", "--cache/--no-cache"); the help, bounds,
    choices and default are the field's own, so every face shows the same ones.
    """
    return {"flag": name, "label": label}


def _unit(default: float, description: str) -> Any:
    return Field(default, ge=0.0, le=1.0, description=description)


def _count(
    default: int,
    description: str,
    *,
    maximum: int = 1000,
    extra: dict[str, JsonValue] | None = None,
) -> Any:
    return Field(default, ge=1, le=maximum, description=description, json_schema_extra=extra)


def _seconds(default: float, description: str) -> Any:
    return Field(default, gt=0.0, le=3600.0, description=description)


def _budget(what: str, flag_name: str, label: str, unit: str = "") -> Any:
    """An optional per-run budget, unset for no limit: a count (no unit) of at least 1, or an
    amount in `unit` above 0. Its label is "<label> budget <unit>"."""
    bound = {"gt": 0.0} if unit else {"ge": 1}
    return Field(
        None,
        description=f"Budget: {what}.",
        json_schema_extra=flag(flag_name, " ".join(filter(None, (label, "budget", unit)))),
        **bound,
    )


def _known_language(value: str | None) -> str | None:
    """None, or a language the report can be written in, as its code ("German" -> "de")."""
    if value is None or not value.strip():
        return None
    code = normalize_language(value)
    if code not in LANGUAGE_NAMES:
        known = ", ".join(f"{code} ({name})" for code, name in LANGUAGE_NAMES.items())
        raise ValueError(f"unknown language {value.strip()!r}; known: {known}")
    return code


def _checkpoints_url(value: str | None) -> str | None:
    """None or "sqlite" (the run folder) or a PostgreSQL URL."""
    text = (value or "").strip().lower()
    if value is None or text == "sqlite" or text.startswith(("postgresql://", "postgres://")):
        return value
    raise ValueError("expected a postgresql:// URL (or sqlite for the run folder)")


def _server_url(value: str | None) -> str | None:
    """None or the http(s) URL of a LangGraph server."""
    if value is None or is_web_url(value):
        return value
    raise ValueError("expected the http(s) URL of a LangGraph server")


class McpServerSpec(BaseModel):
    """An MCP server whose tools research may use: a stdio `command` or a streamable HTTP `url`."""

    model_config = ConfigDict(extra="forbid")

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


class Configuration(BaseModel):
    """Every knob of Research Studio. Also the `context_schema` of every graph."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # Models
    model: str | None = Field(
        None,
        description="Smart model (planning, synthesis, writing) as provider:name.",
        json_schema_extra=flag("--model", "Model"),
    )
    fast_model: str | None = Field(
        None,
        description="Fast model (extraction, per-page work); defaults to `model`.",
        json_schema_extra=flag("--fast-model", "Fast model"),
    )
    model_overrides: dict[str, str] = Field(
        default_factory=dict, description="Per-node model, e.g. {'write_report': 'openai:gpt-4o'}."
    )
    openai_api_key: SecretStr | None = Field(None, description="OpenAI (or compatible) API key.")
    openai_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server."
    )
    anthropic_api_key: SecretStr | None = Field(None, description="Anthropic API key.")
    ollama_host: str | None = Field(None, description="Ollama server URL.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    llm_timeout_s: float = _seconds(120.0, "Timeout of one model call.")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Client retries of a failed call.")
    max_concurrent_llm_calls: int = _count(8, "Model calls in flight at once.", maximum=64)
    local_model_context: int = Field(
        8192, ge=512, le=131_072, description="Context tokens of the embedded model."
    )
    # Cost and budgets: a run stops researching at the first budget reached and writes its
    # report from what it has.
    max_llm_calls: int | None = _budget("model calls per run", "--max-llm-calls", "Model calls")
    max_tokens: int | None = _budget("prompt + completion tokens", "--max-tokens", "Tokens")
    max_cost_usd: float | None = _budget("model cost in USD", "--max-cost-usd", "Cost", "(USD)")
    max_wall_s: float | None = _budget("seconds of research", "--max-wall-s", "Time", "(seconds)")
    model_prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict,
        description="USD per million input and output tokens by provider:name, over the built-in table.",
    )
    ollama_max_context: int = Field(
        32_768, ge=2048, le=1_048_576, description="Largest num_ctx set for an Ollama call."
    )

    # Search
    search: SearchProviderName | None = Field(
        None,
        description="Search provider; chosen automatically when unset.",
        json_schema_extra=flag("--search", "Search"),
    )
    tavily_api_key: SecretStr | None = Field(None, description="Tavily API key.")
    tavily_base_url: str = Field(
        "https://api.tavily.com",
        description="Tavily API base URL.",
        json_schema_extra=flag("--tavily-base-url", "Tavily API base URL setting"),
    )
    use_tavily_extract: bool = Field(
        False,
        description="Read pages through Tavily Extract (needs a Tavily key); a page it cannot "
        "extract is fetched directly.",
    )
    searxng_url: str | None = Field(
        None,
        description="Base URL of a SearXNG instance.",
        json_schema_extra=flag("--searxng-url", "SearXNG URL setting"),
    )
    search_results: int = _count(5, "Results asked of the provider per query.", maximum=50)
    search_timeout_s: float = _seconds(20.0, "Timeout of one search request.")
    search_deadline_s: float = _seconds(60.0, "Total time one search may take, retries included.")
    search_retries: int = Field(3, ge=0, le=10, description="Retries on 429 and 5xx.")
    retry_base_delay_s: float = Field(1.0, ge=0.0, le=60.0, description="First retry backoff.")
    max_concurrent_searches: int = _count(4, "Searches in flight at once.", maximum=64)
    index_chunk_size: int = Field(
        1000, ge=200, le=20_000, description="Characters per indexed chunk."
    )
    docs: list[Path] = Field(
        default_factory=list,
        description="Local files or folders to research (indexed on the fly).",
        json_schema_extra=flag("--docs", "Documents folder"),
    )
    mcp_servers: list[McpServerSpec] = Field(
        default_factory=list, description="MCP servers whose tools research may call."
    )
    mcp_search_tool: str | None = Field(
        None, description="The mcp search provider's tool as server.tool (e.g. 'web.search')."
    )
    mcp_timeout_s: float = _seconds(60.0, "Time one MCP server may take to start or answer a call.")
    max_document_bytes: int = Field(
        5_000_000, ge=1024, description="Largest local document file indexed."
    )

    # Fetching
    fetch_timeout_s: float = _seconds(
        15.0, "Total time one page download may take (connect, headers and body)."
    )
    max_page_bytes: int = Field(5_000_000, ge=1024, description="Largest page body accepted.")
    max_redirects: int = Field(5, ge=0, le=20, description="Redirects followed per fetch.")
    max_concurrent_fetches: int = _count(8, "Page fetches in flight at once.", maximum=64)
    parse_timeout_s: float = _seconds(20.0, "Time parsing one page (HTML, PDF, text) may take.")
    parse_max_memory_mb: int = Field(
        1024, ge=16, le=65_536, description="Memory parsing one page may use, in MB."
    )
    user_agent: str = Field(
        "ResearchStudio/0.1 (+https://github.com/research-studio; research agent)",
        description="User-Agent sent with every request.",
    )
    allow_private_networks: bool = Field(
        False,
        description="Let fetch and search reach loopback/private addresses.",
        json_schema_extra=flag(
            "--allow-private-networks/--no-private-networks", "private networks setting"
        ),
    )
    private_network_hosts: list[str] = Field(
        default_factory=list,
        description="Hosts fetch may reach at private addresses (search endpoints need no entry).",
    )

    # Research limits
    max_iterations: int = _count(
        3, "Research loop iterations.", maximum=20, extra=flag("--iterations", "Iterations")
    )
    max_subagents: int = _count(5, "Parallel workers/subagents per iteration.", maximum=16)
    max_research_questions: int = _count(
        6,
        "Standard pipeline: most research questions a plan holds (one per aspect, a worker each).",
        maximum=12,
        extra=flag("--max-questions", "Research questions at most"),
    )
    subagent_max_iterations: int = _count(2, "Search rounds inside one subagent.", maximum=10)
    searches_per_worker: int = _count(3, "Searches one worker runs.", maximum=20)
    pages_per_search: int = _count(2, "Pages fetched per search.", maximum=20)
    chunk_size: int = Field(3000, ge=200, le=50_000, description="Characters per content chunk.")
    chunks_per_page: int = _count(2, "Chunks of one page sent to extraction.", maximum=50)
    facts_per_page: int = _count(4, "Facts extracted per page at most.", maximum=20)
    max_sources: int = _count(20, "Sources kept per run.", maximum=500)
    extraction: ExtractionMode = Field(
        "auto", description="llm, extractive (verbatim sentences), or auto (by model)."
    )

    # Thresholds
    min_coverage: float = _unit(0.7, "Coverage at which the standard loop stops.")
    min_confidence: float = _unit(0.85, "Confidence at which the advanced loop stops.")
    min_confidence_gain: float = _unit(0.05, "Smallest gain per iteration worth another one.")
    min_source_credibility: float = _unit(0.35, "Sources below this are dropped.")
    rerank_top_n: int = _count(15, "Advanced ranker: sources kept after ranking.", maximum=500)
    min_source_novelty: float = _unit(
        0.1,
        "Optimized variant: a round adding fewer new sources than this share of those known stops.",
    )
    query_similarity_threshold: float = _unit(0.85, "Queries this similar count as duplicates.")

    max_query_chars: int = Field(
        2000, ge=10, le=100_000, description="Longest research question accepted, in characters."
    )

    # Report
    report_structure: ReportStructure = Field(
        "detailed",
        description="Shape of the report.",
        json_schema_extra=flag("--format", "Report format"),
    )
    system_prompt: str = Field(
        "",
        description="Extra instructions for the report writer.",
        json_schema_extra=flag("--system-prompt", "System prompt"),
    )
    language: Annotated[str | None, AfterValidator(_known_language)] = Field(
        None,
        description="Language of the report (de, German …); unset: the question's language.",
        json_schema_extra=flag("--language", "Language"),
    )
    review_plan: bool = Field(
        False,
        description="Pause after planning to approve or edit the plan.",
        json_schema_extra=flag("--review-plan", "Plan review"),
    )
    since: str | None = Field(
        None,
        description="Oldest source date: YYYY[-MM[-DD]] or 'last 2 years'.",
        json_schema_extra=flag("--since", "Since"),
    )
    until: str | None = Field(
        None,
        description="Newest source date: YYYY[-MM[-DD]].",
        json_schema_extra=flag("--until", "Until"),
    )

    # Storage
    cache_dir: Path = Field(default_factory=default_cache_dir, description="Cache folder.")
    use_cache: bool = Field(
        True,
        description="Cache searches and pages.",
        json_schema_extra=flag("--cache/--no-cache", "cache setting"),
    )
    search_cache_ttl_s: int = Field(86_400, ge=0, description="Lifetime of cached searches.")
    page_cache_ttl_s: int = Field(7 * 86_400, ge=0, description="Lifetime of cached pages.")
    runs_dir: Path = Field(
        default_factory=default_runs_dir,
        description="Folder of run folders (default: the per-user data folder).",
    )
    checkpoints: Annotated[str | None, AfterValidator(_checkpoints_url)] = Field(
        None,
        description="Checkpoints and store: a postgresql:// URL; else SQLite in the run folder.",
        json_schema_extra=flag("--checkpoints", "checkpoints setting"),
    )
    langgraph_server: Annotated[str | None, AfterValidator(_server_url)] = Field(
        None,
        description=(
            "Hand runs (run, serve, eval) to this LangGraph server (http(s) URL) instead of "
            "running them in this process; the run folder stays here."
        ),
    )

    # Supervisor pipeline (spec 004): role models, limits, councils, verification
    research_model: str | None = Field(
        None, description="Supervisor pipeline: brief, supervisor and researchers; else `model`."
    )
    summarization_model: str | None = Field(
        None, description="Supervisor pipeline: per-page summaries; else `fast_model`."
    )
    compression_model: str | None = Field(
        None, description="Supervisor pipeline: compressing a researcher's notes; else `model`."
    )
    final_report_model: str | None = Field(
        None, description="Supervisor pipeline: the report and its selector; else `model`."
    )
    allow_clarification: bool = Field(
        True, description="Supervisor pipeline: ask a clarifying question when one is needed."
    )
    enable_brief_context: bool = Field(
        True, description="Supervisor pipeline: a preliminary search informs the research brief."
    )
    max_researcher_iterations: int = _count(
        6,
        "Supervisor pipeline: supervisor turns (delegation rounds).",
        maximum=50,
        extra=flag("--supervisor-turns", "Supervisor turns"),
    )
    max_react_tool_calls: int = _count(10, "Tool-calling turns of one researcher.", maximum=50)
    max_concurrent_research_units: int = _count(
        5, "Researchers the supervisor runs in parallel.", maximum=20
    )
    test_mode: bool = Field(
        False,
        description="Supervisor pipeline: limits cut to 2 turns, 3 tool calls, 2 researchers.",
    )
    use_council: bool = Field(True, description="A council of models reviews the research brief.")
    council_models: list[str] = Field(
        default_factory=list,
        description="Council members as provider:name; empty: the run's model and the fast model.",
    )
    council_min_consensus: float = _unit(0.7, "Council consensus needed to accept a brief.")
    council_max_revisions: int = Field(
        3, ge=0, le=10, description="Brief revisions the council may ask for."
    )
    use_findings_council: bool = Field(
        True, description="The council flags fabricated or uncited findings (advisory)."
    )
    review_mode: ReviewMode = Field(
        "none", description="Human review: none, brief (approve or edit it), full (and report)."
    )
    use_claim_verification: bool = Field(
        False, description="Match the report's claims to the sources by embeddings."
    )
    embedding_model: str | None = Field(
        None,
        description="Embeddings as provider:name (openai, ollama); else the packaged MiniLM.",
    )
    claim_support_threshold: float = _unit(0.5, "Similarity below which a claim is low-support.")

    # Advanced family: the checks of the V8 configuration (spec 001), each of which can be
    # switched off on its own; the report's quality table names those that were off.
    enable_backtracking: bool = Field(
        True,
        description="Advanced variants: dead ends become new searches.",
        json_schema_extra=flag("--backtracking/--no-backtracking", "Backtracking"),
    )
    enable_credibility_scoring: bool = Field(
        True,
        description="Advanced family: score sources, drop the least credible; off: none is credible.",
        json_schema_extra=flag(
            "--credibility-scoring/--no-credibility-scoring", "Credibility scoring"
        ),
    )
    enable_span_verification: bool = Field(
        True,
        description="Advanced family: claims verified by their quoted span; off: none is verified.",
        json_schema_extra=flag("--span-verification/--no-span-verification", "Span verification"),
    )
    enable_cross_validation: bool = Field(
        True,
        description="Advanced family: claims two sources support are cross-validated.",
        json_schema_extra=flag("--cross-validation/--no-cross-validation", "Cross-validation"),
    )
    # Off by default: embedding every chunk on numpy costs far more than indexing its words
    # (docs/performance.md), so installing the extra for claim checks must not slow `index`.
    hybrid_search: bool = Field(
        False,
        description="Local search also ranks chunks by MiniLM vectors (needs the embeddings extra).",
        json_schema_extra=flag("--hybrid-search/--no-hybrid-search", "Hybrid local search"),
    )

    def secret(self, name: str) -> str | None:
        """The plain value of a secret field, or None."""
        value = getattr(self, name)
        return value.get_secret_value() if isinstance(value, SecretStr) else None

    def redacted(self) -> dict[str, Any]:
        """JSON-safe values with secrets masked, for display and run records."""
        data = self.model_dump(mode="json")
        for name, info in type(self).model_fields.items():
            if info.annotation == SecretStr | None and data.get(name):
                data[name] = REDACTED
            else:
                data[name] = _redact_nested(data.get(name))  # credentials inside URLs
        for server in data["mcp_servers"]:
            server["args"] = redact_args(server["args"])
        return data


def _redact_nested(value: Any) -> Any:
    """The value with every string in it, however deep, passed through `redact_url`."""
    if isinstance(value, str):
        return redact_url(value)
    if isinstance(value, list):
        return [_redact_nested(item) for item in value]
    if isinstance(value, dict):
        return {key: _redact_nested(item) for key, item in value.items()}
    return value


# A credential by its look: a known key prefix, or a long run of letters and digits.
_KEY_LIKE = re.compile(
    r"^(?:(?:sk|pk|rk|tvly|xox[a-z])-\S+|gh[pousr]_\S+|github_pat_\S+|AKIA\S+"
    r"|(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{24,})$"
)


def redact_args(args: list[str]) -> list[str]:
    """Command arguments with credentials masked: after a --token-like flag, in one, or key-like."""
    shown: list[str] = []
    after_secret_flag = False
    for arg in args:
        flag, sep, _ = arg.partition("=")
        is_flag = arg.startswith("-")
        secret_flag = is_flag and is_secret_name(flag.lstrip("-"))
        if (after_secret_flag and not is_flag) or _KEY_LIKE.match(arg):
            shown.append(REDACTED)
        elif secret_flag and sep:
            shown.append(f"{flag}={REDACTED}")
        else:
            shown.append(redact_url(arg))
        after_secret_flag = secret_flag and not sep
    return shown


SECRET_FIELDS = frozenset(
    name for name, info in Configuration.model_fields.items() if info.annotation == SecretStr | None
)


def settings_reference() -> str:
    """A Markdown table of every setting: name, environment variables, default, meaning."""
    rows = ["| Setting | Environment | Default | Meaning |", "|---|---|---|---|"]
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
        rows.append(f"| `{name}` | {environment} | `{default}` | {info.description} |")
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


def declaration(name: str) -> dict[str, JsonValue]:
    """A setting's face metadata as `flag` declared it on its field ({} when it has none)."""
    info = Configuration.model_fields.get(name)
    extra = info.json_schema_extra if info is not None else None
    return extra if isinstance(extra, dict) and "flag" in extra else {}


def cli_flag(name: str) -> str | None:
    """A setting's CLI flag (its first spelling), or None when the CLI offers none."""
    flag_name = declaration(name).get("flag")
    return str(flag_name).split("/")[0] if flag_name else None


def error_message(error: Mapping[str, Any]) -> str:
    """A pydantic error's message without pydantic's "Value error, " prefix."""
    return str(error["msg"]).removeprefix("Value error, ")


def _describe_errors(exc: ValidationError, origins: Mapping[str, str]) -> str:
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
        raise ConfigError(f"invalid configuration: {_describe_errors(exc, origins)}") from None


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

    explicit_file = config_file or (
        Path(env[f"{ENV_PREFIX}CONFIG"]) if env.get(f"{ENV_PREFIX}CONFIG") else None
    )
    # Relative, not Path.cwd(): no os.getcwd(), which a server's event loop refuses.
    path = explicit_file or Path(CONFIG_FILE_NAME)
    if explicit_file is not None:
        _check_config_path(explicit_file)
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

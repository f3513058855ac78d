"""The one configuration model: graph context schema and typed object in code.

Its layered loading (file < environment < command line) is core/config_loading.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SecretStr,
)

from research_studio.core.config_fields import (
    SEARCHING,
    McpServerSpec,
    budget_field,
    checkpoints_url,
    count_field,
    default_cache_dir,
    default_runs_dir,
    known_language,
    offered,
    seconds_field,
    server_url,
    unit_field,
)
from research_studio.core.urls import REDACTED, redact_args, redact_nested

ReportStructure = Literal["detailed", "concise", "bullet_points"]
SearchProviderName = Literal["tavily", "duckduckgo", "searxng", "local", "mcp"]
ExtractionMode = Literal["llm", "extractive", "auto"]
ReviewMode = Literal["none", "brief", "full"]


class Configuration(BaseModel):
    """Every knob of Research Studio. Also every graph's context (as `config_loading.RunContext`)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)

    # Models
    model: str | None = Field(
        None,
        description="Smart model (planning, synthesis, writing) as provider:name.",
        json_schema_extra=offered(
            ("cli.run", "cli.ask", "cli.eval", "web", "mcp.research"), "Model", "--model"
        ),
    )
    fast_model: str | None = Field(
        None,
        description="Fast model (extraction, per-page work); defaults to `model`.",
        json_schema_extra=offered(
            ("cli.run", "cli.eval", "web", "mcp.research"), "Fast model", "--fast-model"
        ),
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
    llm_timeout_s: float = seconds_field(120.0, "Timeout of one model call.")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Client retries of a failed call.")
    max_concurrent_llm_calls: int = count_field(8, "Model calls in flight at once.", maximum=64)
    local_model_context: int = Field(
        8192, ge=512, le=131_072, description="Context tokens of the embedded model."
    )
    # One thread by default: llama.cpp's threads spin-wait for each other, so two threads on a
    # busy 2-core machine generated 3-5 tokens/s against 50-68 with one (docs/performance.md).
    local_model_threads: int = Field(
        1,
        ge=1,
        le=64,
        description="CPU threads of the embedded model (one is fastest on a busy machine).",
    )
    # Cost and budgets: a run stops researching at the first budget reached and writes its
    # report from what it has.
    max_llm_calls: int | None = budget_field(
        "model calls per run", "--max-llm-calls", "Model calls"
    )
    max_tokens: int | None = budget_field("prompt + completion tokens", "--max-tokens", "Tokens")
    max_cost_usd: float | None = budget_field(
        "model cost in USD", "--max-cost-usd", "Cost", "(USD)"
    )
    max_wall_s: float | None = budget_field(
        "seconds of research", "--max-wall-s", "Time", "(seconds)"
    )
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
        json_schema_extra=offered(
            (*SEARCHING, "web", "mcp.research", "mcp.search"), "Search", "--search"
        ),
    )
    tavily_api_key: SecretStr | None = Field(None, description="Tavily API key.")
    tavily_base_url: str = Field(
        "https://api.tavily.com",
        description="Tavily API base URL.",
        json_schema_extra=offered(SEARCHING, "Tavily API base URL setting", "--tavily-base-url"),
    )
    use_tavily_extract: bool = Field(
        False,
        description="Read pages through Tavily Extract (needs a Tavily key); a page it cannot "
        "extract is fetched directly.",
    )
    searxng_url: str | None = Field(
        None,
        description="Base URL of a SearXNG instance.",
        json_schema_extra=offered(SEARCHING, "SearXNG URL setting", "--searxng-url"),
    )
    search_results: int = count_field(5, "Results asked of the provider per query.", maximum=50)
    search_timeout_s: float = seconds_field(20.0, "Timeout of one search request.")
    search_deadline_s: float = seconds_field(
        60.0, "Total time one search may take, retries included."
    )
    search_retries: int = Field(3, ge=0, le=10, description="Retries on 429 and 5xx.")
    retry_base_delay_s: float = Field(1.0, ge=0.0, le=60.0, description="First retry backoff.")
    max_concurrent_searches: int = count_field(8, "Searches in flight at once.", maximum=64)
    index_chunk_size: int = Field(
        1000, ge=200, le=20_000, description="Characters per indexed chunk."
    )
    index_recheck_s: float = Field(
        60.0,
        ge=0.0,
        le=86_400.0,
        description="Seconds a process (serve, mcp, eval) waits before it checks the --docs "
        "folders for changed files again; a run checks them at most once, never per query. "
        "MCP `search` also checks its settings file and folders only this often.",
    )
    docs: list[Path] = Field(
        default_factory=list,
        description="Local files or folders to research (indexed on the fly).",
        json_schema_extra=offered(
            ("cli.run", "cli.search", "cli.doctor", "web", "mcp.research", "mcp.search"),
            "Documents folder",
            "--docs",
        ),
    )
    mcp_servers: list[McpServerSpec] = Field(
        default_factory=list, description="MCP servers whose tools research may call."
    )
    mcp_search_tool: str | None = Field(
        None, description="The mcp search provider's tool as server.tool (e.g. 'web.search')."
    )
    mcp_timeout_s: float = seconds_field(
        60.0, "Time one MCP server may take to start or answer a call."
    )
    max_document_bytes: int = Field(
        5_000_000, ge=1024, description="Largest local document file indexed."
    )

    # Fetching
    fetch_timeout_s: float = seconds_field(
        15.0, "Total time one page download may take (connect, headers and body)."
    )
    max_page_bytes: int = Field(5_000_000, ge=1024, description="Largest page body accepted.")
    max_redirects: int = Field(5, ge=0, le=20, description="Redirects followed per fetch.")
    max_concurrent_fetches: int = count_field(8, "Page fetches in flight at once.", maximum=64)
    parse_timeout_s: float = seconds_field(
        20.0, "Time parsing one page (HTML, PDF, text) may take."
    )
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
        json_schema_extra=offered(
            (*SEARCHING, "cli.fetch", "cli.verify", "cli.audit"),
            "private networks setting",
            "--allow-private-networks/--no-private-networks",
        ),
    )
    private_network_hosts: list[str] = Field(
        default_factory=list,
        description="Hosts fetch may reach at private addresses (search endpoints need no entry).",
    )

    # Research limits
    max_iterations: int = count_field(
        3,
        "Research loop iterations.",
        maximum=20,
        extra=offered(
            ("cli.run", "cli.remote", "web", "mcp.research"), "Iterations", "--iterations"
        ),
    )
    max_subagents: int = count_field(5, "Parallel workers/subagents per iteration.", maximum=16)
    max_research_questions: int = count_field(
        6,
        "Standard pipeline: most research questions a plan holds (one per aspect, a worker each).",
        maximum=12,
        extra=offered(
            ("cli.run", "web", "mcp.research"), "Research questions at most", "--max-questions"
        ),
    )
    subagent_max_iterations: int = count_field(2, "Search rounds inside one subagent.", maximum=10)
    searches_per_worker: int = count_field(3, "Searches one worker runs.", maximum=20)
    pages_per_search: int = count_field(2, "Pages fetched per search.", maximum=20)
    chunk_size: int = Field(3000, ge=200, le=50_000, description="Characters per content chunk.")
    chunks_per_page: int = count_field(2, "Chunks of one page sent to extraction.", maximum=50)
    facts_per_page: int = count_field(4, "Facts extracted per page at most.", maximum=20)
    max_sources: int = count_field(20, "Sources kept per run.", maximum=500)
    extraction: ExtractionMode = Field(
        "auto", description="llm, extractive (verbatim sentences), or auto (by model)."
    )

    # Thresholds
    min_coverage: float = unit_field(0.7, "Coverage at which the standard loop stops.")
    min_confidence: float = unit_field(0.85, "Confidence at which the advanced loop stops.")
    min_confidence_gain: float = unit_field(0.05, "Smallest gain per iteration worth another one.")
    min_source_credibility: float = unit_field(0.35, "Sources below this are dropped.")
    rerank_top_n: int = count_field(15, "Advanced ranker: sources kept after ranking.", maximum=500)
    min_source_novelty: float = unit_field(
        0.1,
        "Optimized variant: a round adding fewer new sources than this share of those known stops.",
    )
    query_similarity_threshold: float = unit_field(
        0.85, "Queries this similar count as duplicates."
    )

    max_query_chars: int = Field(
        2000, ge=10, le=100_000, description="Longest research question accepted, in characters."
    )

    # Report
    report_structure: ReportStructure = Field(
        "detailed",
        description="Shape of the report.",
        json_schema_extra=offered(
            ("cli.run", "cli.remote", "web", "mcp.research"), "Report format", "--format"
        ),
    )
    system_prompt: str = Field(
        "",
        description="Extra instructions for the report writer.",
        json_schema_extra=offered(
            ("cli.run", "cli.remote", "web"), "System prompt", "--system-prompt"
        ),
    )
    language: Annotated[str | None, AfterValidator(known_language)] = Field(
        None,
        description="Language of the report (de, German …); unset: the question's language.",
        json_schema_extra=offered(
            ("cli.run", "cli.remote", "cli.ask", "web", "mcp.research"), "Language", "--language"
        ),
    )
    review_plan: bool = Field(
        False,
        description="Pause after planning to approve or edit the plan.",
        json_schema_extra=offered(("cli.run",), "Plan review", "--review-plan"),
    )
    since: str | None = Field(
        None,
        description="Oldest source date: YYYY[-MM[-DD]] or 'last 2 years'.",
        json_schema_extra=offered(("cli.run", "cli.remote", "mcp.research"), "Since", "--since"),
    )
    until: str | None = Field(
        None,
        description="Newest source date: YYYY[-MM[-DD]].",
        json_schema_extra=offered(("cli.run", "cli.remote", "mcp.research"), "Until", "--until"),
    )

    # Storage
    cache_dir: Path = Field(default_factory=default_cache_dir, description="Cache folder.")
    use_cache: bool = Field(
        True,
        description="Cache searches and pages.",
        json_schema_extra=offered(
            ("cli.run", "cli.eval", "cli.search", "cli.fetch", "cli.verify"),
            "cache setting",
            "--cache/--no-cache",
        ),
    )
    search_cache_ttl_s: int = Field(86_400, ge=0, description="Lifetime of cached searches.")
    page_cache_ttl_s: int = Field(7 * 86_400, ge=0, description="Lifetime of cached pages.")
    runs_dir: Path = Field(
        default_factory=default_runs_dir,
        description="Folder of run folders (default: the per-user data folder).",
    )
    checkpoints: Annotated[str | None, AfterValidator(checkpoints_url)] = Field(
        None,
        description="Checkpoints and store: a postgresql:// URL; else SQLite in the run folder.",
        json_schema_extra=offered(("cli.run",), "checkpoints setting", "--checkpoints"),
    )
    langgraph_server: Annotated[str | None, AfterValidator(server_url)] = Field(
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
    max_researcher_iterations: int = count_field(
        6,
        "Supervisor pipeline: supervisor turns (delegation rounds).",
        maximum=50,
        extra=offered(
            ("cli.run", "cli.remote", "web", "mcp.research"),
            "Supervisor turns",
            "--supervisor-turns",
        ),
    )
    max_react_tool_calls: int = count_field(10, "Tool-calling turns of one researcher.", maximum=50)
    max_concurrent_research_units: int = count_field(
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
    council_min_consensus: float = unit_field(0.7, "Council consensus needed to accept a brief.")
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
    claim_support_threshold: float = unit_field(
        0.5, "Similarity below which a claim is low-support."
    )

    # Advanced family: the checks of the V8 configuration (spec 001), each of which can be
    # switched off on its own; the report's quality table names those that were off.
    enable_backtracking: bool = Field(
        True,
        description="Advanced variants: dead ends become new searches.",
        json_schema_extra=offered(("cli.run",), "Backtracking", "--backtracking/--no-backtracking"),
    )
    enable_credibility_scoring: bool = Field(
        True,
        description="Advanced family: score sources, drop the least credible; off: none is credible.",
        json_schema_extra=offered(
            ("cli.run",), "Credibility scoring", "--credibility-scoring/--no-credibility-scoring"
        ),
    )
    enable_span_verification: bool = Field(
        True,
        description="Advanced family: claims verified by their quoted span; off: none is verified.",
        json_schema_extra=offered(
            ("cli.run",), "Span verification", "--span-verification/--no-span-verification"
        ),
    )
    enable_cross_validation: bool = Field(
        True,
        description="Advanced family: claims two sources support are cross-validated.",
        json_schema_extra=offered(
            ("cli.run",), "Cross-validation", "--cross-validation/--no-cross-validation"
        ),
    )
    # Off by default: embedding every chunk on numpy costs far more than indexing its words
    # (docs/performance.md), so installing the extra for claim checks must not slow `index`.
    hybrid_search: bool = Field(
        False,
        description="Local search also ranks chunks by MiniLM vectors (needs the embeddings extra).",
        json_schema_extra=offered(
            ("cli.run",), "Hybrid local search", "--hybrid-search/--no-hybrid-search"
        ),
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
                data[name] = redact_nested(data.get(name))  # credentials inside URLs
        for server in data["mcp_servers"]:
            server["args"] = redact_args(server["args"])
        return data


SECRET_FIELDS = frozenset(
    name for name, info in Configuration.model_fields.items() if info.annotation == SecretStr | None
)


def declaration(name: str) -> dict[str, JsonValue]:
    """A setting's face metadata as `offered` declared it on its field ({} when it has none)."""
    info = Configuration.model_fields.get(name)
    extra = info.json_schema_extra if info is not None else None
    return extra if isinstance(extra, dict) and "faces" in extra else {}

"""The graphs a run can use, by name: one list of `PipelineSpec`s that every face reads.

Adding a pipeline is a folder with its `spec.py` and one line in `PIPELINES`. Everything that
names pipelines (the CLI's --pipeline, the web form, MCP, eval, bench, the runner's plan
review, the progress words, the remote client's graph ids, langgraph.json and the docs' table)
asks the functions below.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from research_studio.core.errors import ConfigError
from research_studio.pipelines.kit.spec import KIT_STEPS, GraphBuilder, PipelineSpec, load

if TYPE_CHECKING:  # names and specs are read without LangGraph (a run's first line waits on it)
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.store.base import BaseStore

# Every pipeline, as "module:attribute" of its spec, in the order the faces list them.
PIPELINES: tuple[str, ...] = (
    "research_studio.pipelines.standard.spec:STANDARD",
    "research_studio.pipelines.advanced.spec:ADVANCED",
    "research_studio.pipelines.advanced.spec:ADVANCED_FULL",
    "research_studio.pipelines.advanced.spec:ADVANCED_OPTIMIZED",
    "research_studio.pipelines.supervisor.spec:SUPERVISOR",
)


def specs() -> tuple[PipelineSpec, ...]:
    """Every registered pipeline, in the order the faces list them (spec modules are cheap:
    they import no graph)."""
    return tuple(_spec_at(reference) for reference in PIPELINES)


def _spec_at(reference: str) -> PipelineSpec:
    found = load(reference)
    if not isinstance(found, PipelineSpec):
        raise ConfigError(f"registry entry {reference!r} is not a PipelineSpec")
    return found


def names() -> tuple[str, ...]:
    """The registered pipelines' names."""
    return tuple(item.name for item in specs())


def single_worker_names() -> tuple[str, ...]:
    """Pipelines with a single-worker path: what --single-agent (and --compare) can run."""
    return tuple(item.name for item in specs() if item.single_worker)


def plan_review_names() -> tuple[str, ...]:
    """Pipelines that can pause to show their plan (the review_plan setting)."""
    return tuple(item.name for item in specs() if item.plan_review)


def spec(name: str) -> PipelineSpec:
    """The named pipeline's spec; a one-line error naming the others for an unknown name."""
    for item in specs():
        if item.name == name:
            return item
    raise ConfigError(
        f"pipeline {name!r} is not available in this version (available: {', '.join(names())})"
    )


def check_name(name: str) -> str:
    """A registered pipeline name, or ValueError (for pydantic fields and CLI parsing)."""
    if name not in names():
        raise ValueError(f"{name!r} is not one of {', '.join(map(repr, names()))}")
    return name


def _name_schema(schema: dict[str, Any]) -> None:
    schema["enum"] = list(names())


# A pipeline name wherever one is accepted: checked against the registry when it is read. Made
# when first imported: the names and specs are read without pydantic (a command's --help).
if TYPE_CHECKING:
    from pydantic import AfterValidator, Field

    PipelineName = Annotated[str, AfterValidator(check_name), Field(json_schema_extra=_name_schema)]


def __getattr__(name: str) -> Any:
    if name != "PipelineName":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pydantic import AfterValidator, Field

    made = Annotated[str, AfterValidator(check_name), Field(json_schema_extra=_name_schema)]
    globals()[name] = made
    return made


def help_text() -> str:
    """The pipelines as --pipeline's help lists them: name (summary), ..."""
    return "; ".join(f"{item.name} ({item.summary})" for item in specs())


def langgraph_graphs(root: Path) -> dict[str, str]:
    """What the "graphs" of a langgraph.json in `root` must hold: every pipeline's graph ids
    and files."""
    return {gid: path for item in specs() for gid, path in item.langgraph_graphs(root).items()}


def step_words() -> dict[str, str]:
    """Every registered pipeline's graph nodes in words, with the kit's own nodes."""
    words: dict[str, str] = dict(KIT_STEPS)
    for item in specs():
        words.update(item.steps)
    return words


def after_loop() -> frozenset[str]:
    """The steps, of any registered pipeline, that come after its research loop."""
    return frozenset().union(*(item.after_loop for item in specs()))


def graph_builder(name: str) -> GraphBuilder:
    """`build_graph(checkpointer=..., interrupt_on_clarify=...)` of the named pipeline."""
    return spec(name).graph_builder()


def graph_id(name: str) -> str:
    """The langgraph.json graph id of a pipeline (what a LangGraph server calls it)."""
    return spec(name).graph_id


def initial_state(name: str, query: str, mode: str) -> dict[str, Any]:
    """A new run's input (a ResearchInput): the same for every pipeline."""
    from research_studio.pipelines.kit.contract import research_input

    return dict(research_input(query, mode))


def compile_pipeline(
    name: str,
    checkpointer: BaseCheckpointSaver | None,
    interrupt_on_clarify: bool,
    *,
    store: BaseStore | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The named pipeline, compiled (with the store, for pipelines that keep data in one).

    Compiled once per process: compiling inspects every node (0.05-0.2 CPU-s on the event loop of
    a server running runs at once); each run gets a copy holding its own checkpointer and store.
    """
    update: dict[str, Any] = {"checkpointer": checkpointer}
    if store is not None and spec(name).uses_store:
        update["store"] = store
    return _compiled(name, interrupt_on_clarify).copy(update)


@functools.cache
def _compiled(name: str, interrupt_on_clarify: bool) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Without checkpointer or store. A pipeline's module builds its main graph so as it loads
    (the graph LangGraph's server serves, pausing before `clarify`): that graph, or a copy of it
    without the pause, not a second build (a run loads the module anyway)."""
    from research_studio.pipelines.kit.wiring import without_clarify_pause

    item = spec(name)
    main: CompiledStateGraph[Any, Any, Any, Any] = load(item.graphs[item.graph_id])
    return main if interrupt_on_clarify else without_clarify_pause(main)

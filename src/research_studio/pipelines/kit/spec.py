"""What a pipeline is, declared once: its name, builder, modes, plan review, stop rule, step
words, flags and graphs.

Each pipeline package declares its `PipelineSpec`s in its `spec.py`; `pipelines/registry.py`
lists them, and every list of pipelines (CLI, web form, MCP, eval, bench, progress words,
langgraph.json and the docs' table, both written by `pipelines/catalogue.py`) reads that list.
Builders and plan-text readers are named as "module:attribute" and imported only when used, so
listing the specs stays cheap.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from research_studio.pipelines.kit.stopping import StopReason

if TYPE_CHECKING:  # listing the specs must not import LangGraph (a run's first line waits on it)
    from langgraph.graph.state import CompiledStateGraph

Mode = Literal["single", "multi"]
GraphBuilder = Callable[..., "CompiledStateGraph[Any, Any, Any, Any]"]
PlanText = Callable[[Mapping[str, Any]], str]
# The nodes `kit.wiring` adds to any graph (its clarification and plan-review pauses), in words.
KIT_STEPS: Mapping[str, str] = {
    "clarify": "asking a clarification",
    "clarify_from_chat": "taking the clarification from the chat",
    "review_plan": "waiting for the plan review",
    "review_plan_from_chat": "taking the plan review from the chat",
}


def load(reference: str) -> Any:
    """The object a "package.module:attribute" reference names, imported now."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class PipelineSpec:
    """One selectable pipeline (or variant) and everything the faces need to know about it."""

    name: str
    summary: str  # one phrase for --pipeline help and the web form
    builder: str  # "module:build_graph": build_graph(checkpointer=..., interrupt_on_clarify=...)
    # langgraph.json graph id -> "module:attribute" of a compiled graph; the first is the main one.
    graphs: Mapping[str, str]
    # The pure rules its loop applies, in the order it applies them (each says a kit/stopping.py
    # `StopReason`); they live in its own folder beside the node that asks them.
    stop_rules: tuple[Callable[..., StopReason], ...]
    # Its graph nodes in the words a reader of the progress line understands (node -> words);
    # the kit's own nodes (`KIT_STEPS`) need none.
    steps: Mapping[str, str] = field(default_factory=dict)
    # Its steps after the research loop: progress shows the iterations done, not one running.
    after_loop: frozenset[str] = frozenset()
    modes: tuple[Mode, ...] = ("multi",)
    plan_text: str | None = None  # "module:function" showing the plan for review; None: no review
    verbatim_heading: str | None = None  # a report section of verbatim page text, if it has one
    settings: tuple[str, ...] = ()  # Configuration fields its own nodes read
    bench_modes: tuple[Mode, ...] = ()  # modes `research-studio bench` measures
    uses_store: bool = False  # keeps data in a LangGraph store
    # Its metadata confidence (or claim figures) is a ratio of its verified claims: what the
    # verified_claims_ratio evaluator reads (the supervisor's is the share of snippets that pass).
    claim_ratio: bool = False

    @classmethod
    def of_package(
        cls, spec_module: str, summary: str, *, graph_id: str | None = None, **fields: Any
    ) -> PipelineSpec:
        """A pipeline that is a package of its own (`spec_module`: its spec.py's `__name__`):
        named after the package, built by `<package>.graph:build_graph`, with one graph,
        `<package>.graph:graph`, whose id is `graph_id` (by default the pipeline's name)."""
        package = spec_module.rpartition(".")[0]
        name = package.rpartition(".")[2]
        graph = f"{package}.graph"
        return cls(
            name=name,
            summary=summary,
            builder=f"{graph}:build_graph",
            graphs={graph_id or name: f"{graph}:graph"},
            **fields,
        )

    @property
    def single_worker(self) -> bool:
        """Whether it has a single-worker path (what --single-agent runs)."""
        return "single" in self.modes

    @property
    def plan_review(self) -> bool:
        """Whether it can pause to show its plan to a person (the review_plan setting)."""
        return self.plan_text is not None

    @property
    def graph_id(self) -> str:
        """Its main graph's id in langgraph.json (what a LangGraph server calls it)."""
        return next(iter(self.graphs))

    def graph_builder(self) -> GraphBuilder:
        """Its `build_graph`, imported now."""
        builder: GraphBuilder = load(self.builder)
        return builder

    def show_plan(self, state: Mapping[str, Any]) -> str:
        """Its plan as shown for review (a pipeline without plan review has none to show)."""
        if self.plan_text is None:
            raise ValueError(f"the {self.name} pipeline has no plan review")
        reader: PlanText = load(self.plan_text)
        return reader(state)

    def langgraph_graphs(self, root: Path) -> dict[str, str]:
        """Its langgraph.json entries for a file in `root`: graph id -> "./<file>.py:<attribute>",
        the file where Python finds the module (its package is imported, not the module)."""
        return {
            graph_id: f"{_relative_file(module, root)}:{attribute}"
            for graph_id, (module, _, attribute) in (
                (gid, ref.partition(":")) for gid, ref in self.graphs.items()
            )
        }


def _relative_file(module: str, root: Path) -> str:
    """The module's source file as langgraph.json names it: relative to `root`, "./" first."""
    found = importlib.util.find_spec(module)
    if found is None or found.origin is None:
        raise ValueError(f"module {module!r} has no source file")
    return "./" + Path(os.path.relpath(found.origin, root)).as_posix()

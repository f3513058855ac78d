"""The web form's research request: what the new research page sends, and its run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from research_studio.core.config import ReportStructure, SearchProviderName
from research_studio.pipelines.registry import PipelineName
from research_studio.run.launch import PreparedRun, RunSetup, prepare

# The settings the web form offers (besides question, pipeline, mode and documents folder).
FORM_SETTINGS = (
    "model",
    "fast_model",
    "search",
    "report_structure",
    "max_iterations",
    "max_researcher_iterations",
    "max_research_questions",
    "language",
    "system_prompt",
)


class ResearchRequest(BaseModel):
    """A research request as a form or an API client sends it (empty text means "not set").

    Settings keep their configuration names; their bounds are checked by the configuration.
    """

    model_config = ConfigDict(extra="forbid")

    question: str
    pipeline: PipelineName = "standard"
    mode: Literal["multi", "single"] = "multi"
    model: str | None = None
    fast_model: str | None = None
    search: SearchProviderName | None = None
    docs: str | None = Field(None, description="A documents folder (the server checks it).")
    report_structure: ReportStructure | None = None
    max_iterations: int | None = None
    max_researcher_iterations: int | None = None
    max_research_questions: int | None = None
    language: str | None = None
    system_prompt: str | None = None
    no_clarify: bool = False

    @field_validator(*FORM_SETTINGS, "docs", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    def overrides(self) -> dict[str, Any]:
        """The configuration values this request sets, as `run` takes them from its flags."""
        values = {name: getattr(self, name) for name in FORM_SETTINGS}
        values["docs"] = [str(Path(self.docs).resolve())] if self.docs else None
        return values


def prepare_run(request: ResearchRequest, config_file: Path | None) -> PreparedRun:
    """The web page's run: the one set-up, for one pipeline and mode (blocking)."""
    setup = RunSetup(
        question=request.question,
        plans=[(request.pipeline, request.mode)],
        overrides=request.overrides(),
        config_file=config_file,
        interactive_clarify=not request.no_clarify,
        single_agent="single agent in the Mode field",
    )
    return prepare(setup)[0]

"""The web form's research request: what the new research page sends, and its run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from research_studio.core.declarations import DECLARED, client_settings
from research_studio.pipelines.registry import PipelineName
from research_studio.run.launch import PreparedRun, RunSetup, prepare

# The settings the web form offers: its fields, this request's and the page script's (which
# reads them from the rendered form), as their declarations give them to the "web" face.
FORM_SETTINGS = client_settings("web")


class FormRequest(BaseModel):
    """A research request as a form or an API client sends it (empty text means "not set").

    Its settings (`ResearchRequest` adds one field per setting the form offers) keep their
    configuration names and types; their bounds are checked by the configuration.
    """

    model_config = ConfigDict(extra="forbid")

    question: str
    pipeline: PipelineName = "standard"
    mode: Literal["multi", "single"] = "multi"
    docs: str | None = Field(None, description="A documents folder (the server checks it).")
    no_clarify: bool = False

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {
            name: None
            if name in FORM_SETTINGS and isinstance(value, str) and not value.strip()
            else value
            for name, value in data.items()
        }

    def overrides(self) -> dict[str, Any]:
        """The configuration values this request sets, as `run` takes them from its flags."""
        values = {name: getattr(self, name) for name in FORM_SETTINGS if name != "docs"}
        values["docs"] = [str(Path(self.docs).resolve())] if self.docs else None
        return values


# The request with one optional field per setting the form offers (the documents folder, one
# folder by name, is the request's own `docs`).
_SETTING_FIELDS: dict[str, Any] = {
    name: (DECLARED[name].annotation | None, None) for name in FORM_SETTINGS if name != "docs"
}
ResearchRequest = create_model("ResearchRequest", __base__=FormRequest, **_SETTING_FIELDS)


def prepare_run(request: FormRequest, config_file: Path | None) -> PreparedRun:
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

"""Eval cases: loading the cases file, choosing cases and pipelines, and each case's own checks."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from research_studio.core.config import Configuration
from research_studio.core.config_loading import error_message
from research_studio.core.errors import ConfigError
from research_studio.core.files import read_user_text
from research_studio.core.urls import is_web_url
from research_studio.evaluation.structural import MIN_WORDS, report_prose
from research_studio.evaluation.verdicts import Check, verdict
from research_studio.grounding.printed import cited_segments
from research_studio.pipelines.registry import names

CASES_FILE = "cases.toml"
# A checkout's root: relative document folders in cases (examples/...) are found from here too.
PROJECT_ROOT = Path(__file__).resolve().parents[3]
MODES = ("single", "multi")


class Expectations(BaseModel):
    """The properties a case's run must show."""

    model_config = ConfigDict(extra="forbid")

    ambiguous: bool | None = None
    min_sources: int = Field(1, ge=0)
    min_evidence: int = Field(1, ge=0)
    min_words: int = Field(MIN_WORDS, ge=0)
    must_mention: list[str] = Field(default_factory=list)
    local_sources_only: bool = False


class EvalCase(BaseModel):
    """One research question to evaluate, with its settings and expectations."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    kind: str = ""
    query: str = Field(min_length=1)
    description: str = ""
    answer: str = ""
    aspects: list[str] = Field(default_factory=list)
    settings: dict[str, Any] = Field(default_factory=dict)
    expect: Expectations = Field(default_factory=Expectations)


@dataclass(frozen=True)
class PipelineChoice:
    """A pipeline and its mode, as `--pipelines` names it: standard, standard:single, advanced."""

    name: str
    mode: str = "multi"

    @property
    def label(self) -> str:
        return self.name if self.mode == "multi" else f"{self.name}:{self.mode}"

    @property
    def folder(self) -> str:
        """The snapshot folder name (no colon, which some file systems refuse)."""
        return self.label.replace(":", "-")


def parse_pipelines(text: str) -> list[PipelineChoice]:
    """'standard,advanced,standard:single' as choices; a one-line error for unknown names."""
    choices = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, _, mode = item.partition(":")
        if name not in names() or (mode and mode not in MODES):
            raise ConfigError(
                f"unknown pipeline {item!r}; use {', '.join(names())}, "
                "optionally with :single or :multi (e.g. standard:single)"
            )
        choices.append(PipelineChoice(name, mode or "multi"))
    if not choices:
        raise ConfigError("--pipelines names no pipeline")
    return list(dict.fromkeys(choices))


def bundled_cases_text() -> str:
    """The cases file that ships with Research Studio."""
    return resources.files("research_studio.evaluation").joinpath(CASES_FILE).read_text("utf-8")


def parse_cases(text: str, origin: str) -> list[EvalCase]:
    """Cases from TOML text; one-line errors naming the file and the problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin} is not valid TOML: {exc}") from None
    entries = data.get("case")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{origin} has no [[case]] entries")
    cases = []
    for number, entry in enumerate(entries, 1):
        try:
            case = EvalCase.model_validate(entry)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "case"
            raise ConfigError(f"{origin}: case {number}: {where}: {error_message(first)}") from None
        unknown = sorted(set(case.settings) - set(Configuration.model_fields))
        if unknown:
            raise ConfigError(f"{origin}: case {case.id}: unknown setting(s) {', '.join(unknown)}")
        cases.append(case)
    ids = [case.id for case in cases]
    duplicates = sorted({case_id for case_id in ids if ids.count(case_id) > 1})
    if duplicates:
        raise ConfigError(f"{origin}: duplicate case id(s) {', '.join(duplicates)}")
    return cases


def load_cases(path: Path | None = None) -> list[EvalCase]:
    """The cases of a file, or the bundled ones."""
    if path is None:
        return parse_cases(bundled_cases_text(), f"the bundled {CASES_FILE}")
    text = read_user_text(path, "cases file ")
    return parse_cases(text, str(path))


def select_cases(cases: Sequence[EvalCase], ids: Sequence[str]) -> list[EvalCase]:
    """The named cases in the order given (all when none is named)."""
    if not ids:
        return list(cases)
    by_id = {case.id: case for case in cases}
    unknown = [case_id for case_id in ids if case_id not in by_id]
    if unknown:
        raise ConfigError(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(by_id)}")
    return [by_id[case_id] for case_id in dict.fromkeys(ids)]


def _document_folder(case: EvalCase, entry: str) -> str:
    path = Path(entry).expanduser()
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, PROJECT_ROOT / path]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate.resolve())
    raise ConfigError(
        f"case {case.id}: documents folder {entry} not found "
        "(relative folders are looked up in the current folder and the project checkout)"
    )


def case_config(base: Configuration, case: EvalCase) -> Configuration:
    """The base configuration with the case's own settings on top (validated)."""
    settings = dict(case.settings)
    if isinstance(settings.get("docs"), list):
        settings["docs"] = [_document_folder(case, str(entry)) for entry in settings["docs"]]
    try:
        return Configuration.model_validate({**base.model_dump(), **settings})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ConfigError(f"case {case.id}: setting {where}: {error_message(first)}") from None


def _sources(document: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    value = document.get("sources")
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def findings_text(document: Mapping[str, Any]) -> str:
    """The report's findings: the statements it prints with a citation. Its title repeats the
    query and its code-written notices name the very terms the sources lack ("the passages cited
    below do not mention ..."), so neither proves the report speaks of a term."""
    return "\n".join(text for text, _sids in cited_segments(report_prose(document)))


def case_checks(
    case: EvalCase, document: Mapping[str, Any], *, flagged_ambiguous: bool
) -> list[Check]:
    """The properties the case says its run must show."""
    expect = case.expect
    checks: list[Check] = []
    if expect.ambiguous is not None:
        said = "asked a clarification question" if flagged_ambiguous else "asked nothing back"
        checks.append(
            verdict(
                "expected_ambiguity",
                "case",
                flagged_ambiguous == expect.ambiguous,
                f"{'ambiguous' if expect.ambiguous else 'clear'} question; the run {said}",
            )
        )
    sources = _sources(document)
    evidence = document.get("evidence")
    count = len(evidence) if isinstance(evidence, list) else 0
    checks += [
        verdict(
            "min_sources",
            "case",
            len(sources) >= expect.min_sources,
            f"{len(sources)} source(s), {expect.min_sources} wanted",
        ),
        verdict(
            "min_evidence",
            "case",
            count >= expect.min_evidence,
            f"{count} evidence item(s), {expect.min_evidence} wanted",
        ),
    ]
    if expect.must_mention:
        body = findings_text(document).lower()
        missing = [term for term in expect.must_mention if term.lower() not in body]
        checks.append(
            verdict(
                "mentions",
                "case",
                not missing,
                f"missing: {', '.join(missing)}"
                if missing
                else f"mentions {', '.join(expect.must_mention)}",
            )
        )
    if expect.local_sources_only:
        remote = [str(s.get("sid")) for s in sources if is_web_url(str(s.get("url", "")))]
        checks.append(
            verdict(
                "local_sources_only",
                "case",
                bool(sources) and not remote,
                f"not local: {', '.join(remote)}"
                if remote
                else f"{len(sources)} local document source(s)",
            )
        )
    return checks

"""Each setting as the faces offer it, read from the declaration on its `Configuration` field.

Every face's settings are `offered_by(face)`: the CLI commands' options, the web form (its
fields, its request model and its script's list), the MCP tools' parameters; the LangGraph
context is the whole `Configuration`. Messages written with CLI flags are said in another face's
words with `reword`.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from research_studio.core.config import SECRET_FIELDS, Configuration, declaration
from research_studio.core.config_fields import FACES, Face


@dataclass(frozen=True)
class Declared:
    """One setting as the faces offer it, read from its field (nothing here is written twice)."""

    name: str
    flag: str | None  # None: no command offers it
    label: str
    faces: tuple[Face, ...]
    help: str
    annotation: Any
    default: Any
    minimum: float | None = None  # inclusive
    maximum: float | None = None  # inclusive
    above: float | None = None  # exclusive lower bound
    choices: tuple[str, ...] = ()

    def form(self) -> dict[str, Any]:
        """JSON-safe metadata for a form: label, help, bounds, choices and default."""
        return {
            "name": self.name,
            "label": self.label,
            "help": self.help,
            "min": self.minimum if self.minimum is not None else self.above,
            "max": self.maximum,
            "choices": list(self.choices),
            "default": to_jsonable_python(self.default),
        }


def _declared(name: str, info: FieldInfo) -> Declared | None:
    extra = declaration(name)
    if not extra:
        return None
    faces = extra["faces"] if isinstance(extra["faces"], list) else []
    bounds: dict[str, float] = {}
    for item in info.metadata:
        for attribute, key in (("ge", "minimum"), ("le", "maximum"), ("gt", "above")):
            if getattr(item, attribute, None) is not None:
                bounds[key] = getattr(item, attribute)
    choices: tuple[str, ...] = ()
    for part in (info.annotation, *typing.get_args(info.annotation)):
        if typing.get_origin(part) is Literal:
            choices = tuple(str(choice) for choice in typing.get_args(part))
    default = info.default_factory() if info.default_factory else info.default  # type: ignore[call-arg]
    return Declared(
        name=name,
        flag=str(extra["flag"]) if extra.get("flag") else None,
        label=str(extra["label"]),
        faces=tuple(face for face in FACES if face in faces),
        help=info.description or "",
        annotation=info.annotation,
        default=default,
        choices=choices,
        **bounds,
    )


# Every setting a face offers, by field name; built from the fields' declarations.
DECLARED: dict[str, Declared] = {
    name: declared
    for name, info in Configuration.model_fields.items()
    if (declared := _declared(name, info)) is not None
}
# A flag's settings by each of its spellings ("--no-cache" too), for rewording messages.
_BY_FLAG: dict[str, str] = {
    spelling: name
    for name, declared in DECLARED.items()
    for spelling in (declared.flag or "").split("/")
    if spelling
}


def offered_by(face: Face) -> tuple[str, ...]:
    """The settings a face offers, in the configuration's order (LangGraph's context: all but
    those that widen the server's reach, `WIDENING`: a key would be stored with the run on the
    server, and an endpoint, a command to launch or a folder is the server's to choose)."""
    if face == "langgraph":
        return tuple(name for name in Configuration.model_fields if name not in WIDENING)
    return tuple(name for name, declared in DECLARED.items() if face in declared.faces)


# Settings that widen a server's reach (keys, endpoints, private networks, storage): a face a
# remote client uses (the web form, an MCP tool, which a model may be driving) never takes one.
WIDENING = SECRET_FIELDS | {
    "allow_private_networks",
    "private_network_hosts",
    "searxng_url",
    "tavily_base_url",
    "openai_base_url",
    "ollama_host",
    "mcp_servers",
    "checkpoints",
    "langgraph_server",
    "cache_dir",
    "runs_dir",
}


def client_settings(face: Face) -> tuple[str, ...]:
    """The settings a remote client's face takes: those declared for it, none widening the
    server's reach (a declaration that gives it one fails here, when the face is built)."""
    names = offered_by(face)
    if widening := sorted(WIDENING.intersection(names)):
        raise RuntimeError(f"{face} may not take {', '.join(widening)} from a client")
    return names


_FLAG_IN_TEXT = re.compile(r"--[a-z][a-z-]*(?: (?:[A-Z][A-Z_:]*|provider:name))?")


def reword(message: str, name_of: Callable[[Declared], str]) -> str:
    """A message's CLI flags ("--docs PATH") said in another face's words (its label, its name)."""

    def replace(match: re.Match[str]) -> str:
        spelling = match.group(0).split(" ")[0]
        name = _BY_FLAG.get(spelling)
        return name_of(DECLARED[name]) if name else match.group(0)

    return _FLAG_IN_TEXT.sub(replace, message)

"""One setting as a command-line option: the type of the generated table's rows
(setting_flags_table.py), in a module of its own so that the table and its generator
(setting_flags.py) both read it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Flag:
    """One setting as a command offers it: its flag, help, value type, bounds and commands."""

    flag: str
    help: str
    annotation: Any
    faces: tuple[str, ...]  # the commands ("cli.<command>") that offer it
    minimum: float | None = None  # inclusive
    maximum: float | None = None  # inclusive

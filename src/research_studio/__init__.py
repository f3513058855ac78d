"""Research Studio: a deep research agent on LangGraph whose every citation can be trusted."""

from __future__ import annotations

import functools

__all__ = ["__version__"]


@functools.cache
def _version() -> str:
    # importlib.metadata (zipfile, email) is read when the version is asked for: every command
    # imports this package, and a run's first line should not wait for it.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("research-studio")
    except PackageNotFoundError:  # running from a source tree without installation
        return "0.0.0"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return _version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Research Studio: a deep research agent on LangGraph whose every citation can be trusted."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("research-studio")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

__all__ = ["__version__"]

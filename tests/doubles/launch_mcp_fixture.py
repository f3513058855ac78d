"""Start the MCP fixture server from its file path, whatever the working directory.

MCP clients start stdio servers with a minimal environment (no PYTHONPATH), so
`python -m tests.doubles.mcp_fixture_server` only works from the checkout's root; this launcher
puts the checkout on the path first.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    runpy.run_module("tests.doubles.mcp_fixture_server", run_name="__main__")

"""Regenerate docs/screenshots: `python -m tests.browser.screenshots` (Chromium at /usr/bin/chromium).

Runs the browser tests that take the screenshots with RESEARCH_STUDIO_UPDATE_SCREENSHOTS=1, so each
picture is of a page whose layout the same test has just asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = ["tests/browser/test_research_page.py", "tests/browser/test_phone_layout.py"]


def main() -> int:
    env = {**os.environ, "RESEARCH_STUDIO_UPDATE_SCREENSHOTS": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FILES]
    return subprocess.call(command, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())

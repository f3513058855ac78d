"""A standard run that cannot ask its clarification question (no terminal) never merges the
readings: it takes the one listed first and the report opens by saying so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.helpers import run_cli

pytestmark = pytest.mark.e2e


def test_without_a_terminal_the_first_reading_is_taken_and_named_at_the_top(
    web: FakeWeb, tmp_path: Path
) -> None:
    model = ResearchScript(ambiguous=True).model()
    result = run_cli(web, "run", "python", "--out", "py", model=model)
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "py" / "result.json").read_text())
    body = document["report"].split("\n", 1)[1]
    before_findings = body.split("[S", 1)[0]  # the notice comes before any cited statement
    assert 'this report takes the reading listed first, "The programming language"' in (
        before_findings
    ), body[:800]
    assert '"The snake"' in before_findings
    # Every later step researched that reading, as if the person had answered it.
    [plan] = model.calls_for("ResearchPlan")
    assert "The programming language" in plan.prompt

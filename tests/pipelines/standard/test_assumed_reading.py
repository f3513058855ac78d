"""A standard run that cannot ask its clarification question (no terminal) never merges the
readings: code takes the likeliest one the options name (the first; "Something else" names
none), the report opens by saying so, result.json records it, and code keeps the sources only
about the other readings out (the scripted model only offers the options)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.doubles.fake_web import FakeWeb
from tests.doubles.research_script import ResearchScript
from tests.doubles.scripted_model import use_scripted_model
from tests.helpers import run_cli
from tests.pipelines.advanced.test_namesakes import (
    NOTICE,
    READINGS,
    about_the_economist,
    opens_with_the_choice,
    run_without_a_terminal,
)

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
    assert 'this report takes the likeliest reading, "The programming language"' in (
        before_findings
    ), body[:800]
    assert '"The snake"' in before_findings and "Something else" not in before_findings
    assert document["metadata"]["referent_assumed"] == "The programming language"
    # Every later step researched that reading, as if the person had answered it.
    [plan] = model.calls_for("ResearchPlan")
    assert "The programming language" in plan.prompt


def test_without_a_terminal_the_sources_about_the_other_namesake_are_kept_out(
    web: FakeWeb, tmp_path: Path
) -> None:
    """Two Jane Roes in a documents folder: the painter's page is read, and code leaves it out."""
    spec = use_scripted_model(
        ResearchScript(ambiguous=True, clarification_options=READINGS).model()
    )
    _output, document = run_without_a_terminal("standard", spec, tmp_path)
    assert opens_with_the_choice(document["report"]), document["report"][:600]
    assert NOTICE in document["metadata"]["reading_assumed"]
    assert document["metadata"]["referent_assumed"] == READINGS[0]
    assert about_the_economist(document["sources"]), document["sources"]
    assert "painter" not in document["report"].lower().split("## sources")[-1]

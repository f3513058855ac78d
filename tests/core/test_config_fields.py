"""The building blocks of the configuration's fields: their checks and declarations."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from research_studio.core.config_fields import (
    McpServerSpec,
    budget_field,
    checkpoints_url,
    known_language,
    server_url,
)


class _Budgets(BaseModel):
    calls: int | None = budget_field("model calls", "--max-llm-calls", "Model-call")
    dollars: float | None = budget_field("cost", "--max-cost-usd", "Cost", "USD")


def test_an_mcp_server_has_exactly_one_transport() -> None:
    assert McpServerSpec(name="docs", command="docs-server").command == "docs-server"
    assert McpServerSpec(name="docs", url="http://127.0.0.1:9/mcp").url
    for given in ({}, {"command": "x", "url": "http://127.0.0.1:9/mcp"}):
        with pytest.raises(ValidationError, match="needs either command or url"):
            McpServerSpec(name="docs", **given)


def test_a_budget_is_unset_or_positive_and_declares_its_flag() -> None:
    assert _Budgets().calls is None
    assert _Budgets(calls=1, dollars=0.01).dollars == 0.01
    for bad in ({"calls": 0}, {"dollars": 0.0}):
        with pytest.raises(ValidationError):
            _Budgets.model_validate(bad)
    extra = _Budgets.model_fields["dollars"].json_schema_extra
    assert isinstance(extra, dict) and extra["flag"] == "--max-cost-usd"
    assert extra["label"] == "Cost budget USD"


def test_the_checks_keep_what_is_valid_and_refuse_the_rest() -> None:
    assert known_language("German") == "de" and known_language("  ") is None
    assert checkpoints_url("sqlite") == "sqlite"
    assert checkpoints_url("postgresql://db/runs") == "postgresql://db/runs"
    assert server_url("http://127.0.0.1:2024") == "http://127.0.0.1:2024"
    for check, value in (
        (known_language, "klingon"),
        (checkpoints_url, "mysql://x"),
        (server_url, "ftp://x"),
    ):
        with pytest.raises(ValueError):
            check(value)

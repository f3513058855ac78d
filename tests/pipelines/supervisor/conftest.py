"""Running the supervisor pipeline through its builder with a scripted model and the local web."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from research_studio.core.config import Configuration
from tests.conftest import full_state
from tests.doubles.scripted_model import use_scripted_model
from tests.doubles.supervisor_script import SupervisorChatModel, SupervisorScript

QUERY = "coral bleaching heat stress"


@pytest.fixture
def run_supervisor(
    make_config: Callable[..., Configuration],
) -> Callable[..., Any]:
    """Run the pipeline to its end (a store unless `store=False`); whole state and the model."""

    async def run(
        script: SupervisorScript | None = None,
        *,
        query: str = QUERY,
        store: bool | BaseStore = True,
        chat_model: SupervisorChatModel | None = None,
        **settings: Any,
    ) -> tuple[dict[str, Any], SupervisorChatModel]:
        model = chat_model or (script or SupervisorScript()).model()
        settings.setdefault("model", use_scripted_model(model))
        config = make_config(**settings)
        options: dict[str, Any] = {}
        if store:
            options["store"] = store if isinstance(store, BaseStore) else InMemoryStore()
        state = await full_state("supervisor", {"query": query}, config, **options)
        return state, model

    return run

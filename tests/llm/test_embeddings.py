"""Embeddings: the packaged MiniLM run on numpy (tokenizer, weights, forward pass) for real."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from research_studio.core.config import Configuration
from research_studio.core.errors import ConfigError
from research_studio.llm.embeddings import (
    PackagedEmbedder,
    ProviderEmbedder,
    choose_embedder,
    minilm_folder,
)
from research_studio.llm.minilm import WordPiece, cosine_matrix, read_safetensors

FOLDER = minilm_folder()
needs_model = pytest.mark.skipif(
    FOLDER is None, reason="install research-studio[embeddings] for the packaged MiniLM"
)


def test_safetensors_are_read_as_float32_arrays(tmp_path: Path) -> None:
    weights = np.arange(6, dtype=np.float32).reshape(2, 3)
    header = {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, "__metadata__": {}}
    raw = json.dumps(header).encode()
    path = tmp_path / "m.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + weights.tobytes())
    assert np.array_equal(read_safetensors(path)["w"], weights)


def test_cosine_matrix_compares_every_row() -> None:
    similarity = cosine_matrix(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0]]))
    assert np.allclose(similarity, [[1.0], [np.sqrt(0.5)]])


@pytest.mark.e2e  # imports the providers' embedding clients
def test_the_embedding_choice() -> None:
    assert isinstance(
        choose_embedder(Configuration(embedding_model="ollama:nomic-embed-text")), ProviderEmbedder
    )
    openai = choose_embedder(Configuration(model="openai:gpt-4o-mini", openai_api_key="k"))
    assert openai is not None and openai.name == "openai:text-embedding-3-small"
    local = choose_embedder(
        Configuration(model="openai:m", openai_base_url="http://127.0.0.1:1/v1")
    )
    assert local is None or isinstance(local, PackagedEmbedder)
    with pytest.raises(ConfigError, match="openai or ollama"):
        choose_embedder(Configuration(embedding_model="scripted:x"))


@needs_model
def test_wordpiece_matches_bert_uncased() -> None:
    assert FOLDER is not None
    tokenizer = WordPiece(FOLDER / "vocab.txt")
    assert tokenizer.encode("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    # Accents stripped, unknown words split into pieces, long input cut to the limit.
    assert tokenizer.encode("Café") == tokenizer.encode("cafe")
    assert len(tokenizer.encode("word " * 400)) == 256


@needs_model
@pytest.mark.e2e
async def test_the_packaged_model_ranks_meaning_not_words() -> None:
    assert FOLDER is not None
    vectors = await PackagedEmbedder(FOLDER).embed(
        [
            "Marine heatwaves cause coral bleaching.",
            "Corals expel their algae when the ocean gets too warm.",
            "Python 3.13 ships an experimental free-threaded build.",
        ]
    )
    assert vectors.shape == (3, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    similarity = cosine_matrix(vectors, vectors)
    assert similarity[0, 1] > 0.5 > 0.2 > similarity[0, 2]


# Computed with sentence-transformers (PyTorch) from the same package's files: the first four
# dimensions of each sentence's vector, and the tokens of the last sentence.
REFERENCE = {
    "Marine heatwaves cause coral bleaching.": [-0.015059, 0.018776, 0.072379, 0.062029],
    "Corals expel their algae when the ocean gets too warm.": [
        -0.02638,
        0.06188,
        0.022926,
        0.126864,
    ],
    "Python 3.13 ships an experimental free-threaded build.": [
        -0.133648,
        -0.014807,
        -0.011277,
        0.017086,
    ],
    "Café crème brûlée, naïve résumé — 42% of 1,200 reefs!": [
        0.069513,
        -0.049833,
        0.011737,
        0.020819,
    ],
}
REFERENCE_TOKENS = [
    101, 7668, 13675, 21382, 7987, 9307, 2063, 1010, 15743, 13746, 1517, 4413, 1003, 1997, 1015,
    1010, 3263, 21484, 999, 102,
]  # fmt: skip


@needs_model
@pytest.mark.e2e
async def test_the_numpy_forward_pass_matches_sentence_transformers() -> None:
    assert FOLDER is not None
    vectors = await PackagedEmbedder(FOLDER).embed(list(REFERENCE))
    assert np.allclose(vectors[:, :4], np.array(list(REFERENCE.values())), atol=1e-5)
    assert WordPiece(FOLDER / "vocab.txt").encode(list(REFERENCE)[-1]) == REFERENCE_TOKENS

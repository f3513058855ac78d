"""all-MiniLM-L6-v2 on numpy: the safetensors reader, BERT's WordPiece tokenizer, the forward pass.

Imported only where vectors are computed: numpy comes with the `embeddings` extra.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # the model's max_seq_length
BATCH = 32
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def cosine_matrix(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of `left` with every row of `right`."""

    def unit(matrix: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)

    return np.asarray(unit(left) @ unit(right).T)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a .safetensors file (8-byte header size, JSON header, raw little-endian data)."""
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    body = memoryview(data)[8 + size :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(body[start:end], dtype=_DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).astype(np.float32, copy=False)
    return tensors


class WordPiece:
    """BERT's uncased tokenizer: clean, lower-case, strip accents, split punctuation, WordPiece."""

    def __init__(self, vocab_file: Path) -> None:
        words = vocab_file.read_text(encoding="utf-8").splitlines()
        self.ids = {word: index for index, word in enumerate(words)}
        self.cls, self.sep, self.unk = self.ids["[CLS]"], self.ids["[SEP]"], self.ids["[UNK]"]

    @staticmethod
    def _is_punctuation(char: str) -> bool:
        code = ord(char)
        if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
            return True
        return unicodedata.category(char).startswith("P")

    @staticmethod
    def _is_cjk(code: int) -> bool:
        return any(
            low <= code <= high
            for low, high in (
                (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
                (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F),
            )
        )  # fmt: skip

    def _words(self, text: str) -> list[str]:
        cleaned = []
        for char in text:
            code = ord(char)
            if (
                code == 0
                or code == 0xFFFD
                or (unicodedata.category(char).startswith("C") and char not in "\t\n\r")
            ):
                continue
            if self._is_cjk(code):
                cleaned.append(f" {char} ")
            else:
                cleaned.append(" " if char.isspace() else char)
        text = unicodedata.normalize("NFD", "".join(cleaned).lower())
        text = "".join(char for char in text if unicodedata.category(char) != "Mn")
        words: list[str] = []
        for token in text.split():
            current = ""
            for char in token:
                if self._is_punctuation(char):
                    words += [current, char] if current else [char]
                    current = ""
                else:
                    current += char
            if current:
                words.append(current)
        return words

    def _pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = ("##" if start else "") + word[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    break
                end -= 1
            if end == start:
                return [self.unk]
            start = end
        return pieces

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """[CLS] pieces [SEP], cut to `max_tokens`."""
        ids = [piece for word in self._words(text) for piece in self._pieces(word)]
        return [self.cls, *ids[: max_tokens - 2], self.sep]


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz–Stegun 7.1.26 (error below 1.5e-7), for BERT's exact GELU."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.asarray(sign * (1.0 - poly * np.exp(-x * x)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(variance + 1e-12) * weight + bias)


class MiniLM:
    """all-MiniLM-L6-v2 (6 BERT layers, 384 dimensions, mean pooling, unit length) on numpy."""

    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.weights = read_safetensors(folder / "model.safetensors")
        self.tokenizer = WordPiece(folder / "vocab.txt")
        # Dense weights transposed once into contiguous arrays: a product with a transposed view
        # of 3-D activations does not reach BLAS's fast path (5 ms a layer for one short query).
        self._inputs_first = {
            name: np.ascontiguousarray(weight.T)
            for name, weight in self.weights.items()
            if name.endswith(".weight") and weight.ndim == 2 and "embeddings" not in name
        }

    def _w(self, name: str) -> np.ndarray:
        return self.weights[name]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        rows = x.reshape(-1, x.shape[-1]) @ self._inputs_first[f"{name}.weight"]
        return np.asarray(rows.reshape(*x.shape[:-1], -1) + self._w(f"{name}.bias"))

    def _layer(self, x: np.ndarray, mask: np.ndarray, index: int) -> np.ndarray:
        prefix = f"encoder.layer.{index}"
        batch, length, width = x.shape
        size = width // self.heads

        def heads(name: str) -> np.ndarray:
            projected = self._dense(x, f"{prefix}.attention.self.{name}")
            return projected.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        scores = heads("query") @ heads("key").transpose(0, 1, 3, 2) / np.sqrt(size)
        scores = scores + (1.0 - mask[:, None, None, :]) * -1e9
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attention = scores / scores.sum(axis=-1, keepdims=True)
        context = (attention @ heads("value")).transpose(0, 2, 1, 3).reshape(batch, length, width)
        x = _layer_norm(
            self._dense(context, f"{prefix}.attention.output.dense") + x,
            self._w(f"{prefix}.attention.output.LayerNorm.weight"),
            self._w(f"{prefix}.attention.output.LayerNorm.bias"),
        )
        inner = self._dense(x, f"{prefix}.intermediate.dense")
        inner = 0.5 * inner * (1.0 + _erf(inner / np.sqrt(2.0)))
        return _layer_norm(
            self._dense(inner, f"{prefix}.output.dense") + x,
            self._w(f"{prefix}.output.LayerNorm.weight"),
            self._w(f"{prefix}.output.LayerNorm.bias"),
        )

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length sentence vectors, one row per text."""
        # Batches of similar lengths waste little on padding; rows go back in the input's order.
        tokenized = [self.tokenizer.encode(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda index: len(tokenized[index]))
        rows = []
        for start in range(0, len(order), BATCH):
            encoded = [tokenized[index] for index in order[start : start + BATCH]]
            length = max(len(ids) for ids in encoded)
            ids = np.zeros((len(encoded), length), dtype=np.int64)
            mask = np.zeros((len(encoded), length), dtype=np.float32)
            for row, tokens in enumerate(encoded):
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1.0
            x = (
                self._w("embeddings.word_embeddings.weight")[ids]
                + self._w("embeddings.position_embeddings.weight")[:length][None]
                + self._w("embeddings.token_type_embeddings.weight")[0]
            )
            x = _layer_norm(
                x, self._w("embeddings.LayerNorm.weight"), self._w("embeddings.LayerNorm.bias")
            )
            for index in range(self.layers):
                x = self._layer(x, mask, index)
            pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
            rows.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        if not rows:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = np.empty((len(texts), rows[0].shape[1]), dtype=np.float32)
        vectors[order] = np.concatenate(rows)
        return vectors

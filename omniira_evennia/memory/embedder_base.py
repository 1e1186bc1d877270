"""What every embedder shares: the vector size, the MiniLM names, the protocol, errors, blobs."""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from omniira_evennia.memory import minilm

EMBEDDING_DIM = 384
NAME_MAX_CHARS = 100  # the `embedder` column's length

#: Stored vectors whose embedder was not recorded (made before migration 0008, or by code
#: that writes around the ORM's save). Stored as NULL or "".
UNRECORDED = ""

ONNX_MINILM_NAME = f"onnx-minilm-l6-fp32@{minilm.DERIVED_SHA256[:8]}"
#: The dynamic-int8 model the ONNX embedder ran before issue #27 (mean cosine 0.99 with the
#: fp32 vectors): still comparable, so a game's stored vectors stay searchable as they are.
ONNX_MINILM_INT8_NAME = "onnx-minilm-l6-int8@9e802515"
ST_MINILM_NAME = "st-minilm-l6"
#: Every name all-MiniLM-L6-v2's vectors were stored under: comparable with each other.
MINILM_NAMES = (ONNX_MINILM_NAME, ONNX_MINILM_INT8_NAME, ST_MINILM_NAME)


class Embedder(Protocol):
    dim: int
    # Optional: `name` (str), `compatible` (names whose vectors this one can be compared with),
    # `accepts_unrecorded` (bool), `problems(probe) -> list[str]`, `from_settings(conf)`.

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors."""


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run (a missing extra, file or endpoint)."""


class EmbeddingDimensionError(EmbedderUnavailable):
    """An embedder returned vectors of another dimension than the database stores."""


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def to_blob(vector: np.ndarray | None) -> bytes | None:
    if vector is None:
        return None
    return np.asarray(vector, dtype=np.float32).tobytes()


def from_blob(blob: bytes | memoryview | None, dim: int = EMBEDDING_DIM) -> np.ndarray | None:
    """A vector from stored bytes, or None for a missing or corrupt blob."""
    if blob is None:
        return None
    data = bytes(blob)
    if len(data) != dim * 4:
        return None
    return np.frombuffer(data, dtype=np.float32)

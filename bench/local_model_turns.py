"""
Benchmark: the offline model (llama.cpp, Qwen2.5-Coder-1.5B Q4_K_M) answering as Maren.

Measures server start to healthy, the first reply (cold prompt cache), and follow-up turns in
the same conversation (the prompt cache reuses the stable prefix), through the contrib's own
prompt renderer, client and tag parser. Writes bench/results/local_model.json.

    .venv/bin/python bench/local_model_turns.py [--turns 6] [--threads N] [--busy]

`--busy` runs one CPU-bound process beside it for the whole run (a user's machine is not idle).
`--background` keeps one long request of the game's own background work (a conversation-end
review: up to 400 tokens) in flight at the model server throughout, as `make demo` does while
other players' conversations end; `--parallel N` gives the server N slots. Any of these writes
bench/results/local_model_<variant>.json instead (e.g. local_model_busy_bg_t2_p2.json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.dialogue_eval import MODEL_NAME, competitor  # noqa: E402
from omniira_evennia.conf import build_settings  # noqa: E402
from omniira_evennia.conversation.prompts import (  # noqa: E402
    Identity,
    MemoryLine,
    PromptContext,
    Turn,
    build_messages,
    strip_character_breaks,
)
from omniira_evennia.conversation.tags import parse_reply  # noqa: E402
from omniira_evennia.llm.client import LLMClient  # noqa: E402
from omniira_evennia.llm.local_model import (  # noqa: E402
    SLOT_CTX,
    default_threads,
    start_server,
    wait_until_healthy,
)

LINES = [
    "Maren, what do you pour here?",
    "My name is Ada. I'm looking for my brother Tomas; he went missing on the river.",
    "Have you seen a tall man with a blue scarf?",
    "What do you think of Voss the smith?",
    "Can I rent a room upstairs tonight?",
    "Do you remember what I'm looking for?",
    "Thank you, Maren. Goodnight.",
]


def percentile(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--busy", action="store_true", help="one CPU-bound process beside it")
    parser.add_argument("--background", action="store_true", help="a review always in flight")
    parser.add_argument("--parallel", type=int, default=1, help="the model server's slots")
    args = parser.parse_args()
    with competitor(args.busy):
        run(args)


def run(args) -> None:
    ctx = SLOT_CTX * args.parallel  # each slot keeps the demo's window
    server, base_url = start_server(threads=args.threads, ctx=ctx, parallel=args.parallel)
    background = None
    try:
        ready_s = wait_until_healthy(base_url, server)
        conf = build_settings(
            {
                "TIERS": {
                    "voice": {
                        "base_url": base_url,
                        "max_tokens": 160,
                        "temperature": 0.7,
                        "timeout": 300,
                    },
                    "reasoning": {
                        "base_url": base_url,
                        "max_tokens": 400,
                        "temperature": 0.2,
                        "timeout": 600,
                    },
                }
            },
            {},
        )
        client = LLMClient(conf.TIERS)
        identity = Identity(
            "Maren",
            "tavern keeper of the Lantern & Lane",
            "Warm, shrewd and blunt. Remembers every face and every unpaid tab. Calls people "
            "'love'.",
            "You run the tavern: you pour cider, ale and plum wine.",
        )
        if args.background:
            background = BackgroundReviews(client)
            background.start()
        history: list[Turn] = []
        memories: list[MemoryLine] = []
        turns = []
        for number, line in enumerate(LINES[: args.turns]):
            ctx = PromptContext(
                identity=identity,
                speaker_name="Ada",
                message=line,
                place="The Lantern & Lane",
                game_time="day 1, evening (19:00)",
                memories=list(memories),
                history=list(history),
            )
            t0 = time.monotonic()
            result = client.chat("voice", build_messages(ctx), feature="bench")
            seconds = time.monotonic() - t0
            parsed = parse_reply(result.text)
            shown, _ = strip_character_breaks(parsed.text, "Maren")
            turns.append(
                {
                    "turn": number + 1,
                    "seconds": round(seconds, 2),
                    "tokens_in": result.usage.tokens_in,
                    "tokens_out": result.usage.tokens_out,
                    "reply": shown,
                    "tags": parsed.tag_count,
                }
            )
            print(f"turn {number + 1}: {seconds:.1f}s  {shown[:90]!r}", flush=True)
            history += [Turn("user", f"Ada says: {line}"), Turn("assistant", shown)]
            history = history[-8:]
            if number == 1:
                memories.append(MemoryLine("Ada is looking for her brother Tomas.", "sorrow"))
    finally:
        if background:
            background.stop()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy in a generation, it may not hear SIGTERM
            server.kill()
            server.wait(timeout=30)

    follow = [t["seconds"] for t in turns[1:]]
    result = {
        "benchmark": "local_model_turns",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform_summary()}",
        "model": MODEL_NAME,
        "threads": args.threads,
        "busy": bool(args.busy),
        "background": bool(args.background),
        "parallel": args.parallel,
        "background_reviews_done": background.done if background else None,
        "background_review_s": background.seconds if background else None,
        "background_review_tokens_out": background.tokens_out if background else None,
        "server_ready_s": round(ready_s, 2),
        "first_reply_s": turns[0]["seconds"],
        "follow_up_median_s": round(statistics.median(follow), 2) if follow else None,
        "follow_up_p95_s": round(percentile(follow, 95), 2) if follow else None,
        "turns": turns,
    }
    out = ROOT / "bench" / "results" / f"{variant_name(args)}.json"
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "turns"}, indent=2))


def variant_name(args) -> str:
    parts = (["busy"] if args.busy else []) + (["bg"] if args.background else [])
    if not parts and args.parallel == 1:  # the plain run `make bench` makes
        return "local_model"
    return "_".join(["local_model", *parts, f"t{args.threads}", f"p{args.parallel}"])


REVIEW_PROMPT = (
    "You keep notes for Maren, the tavern keeper. Read the conversation and write what she "
    "should remember about the player, as a JSON list of short sentences, each with an "
    "importance from 1 to 10 and the line it rests on.\n\n"
    # About the size of the demo's reviews (~500 prompt tokens): the conversation, twice told.
    + "\n".join(f"Ada says: {line}\nMaren says: Aye, love." for line in LINES * 2)
)


class BackgroundReviews:
    """One review-sized request always in flight (a thread), until stopped."""

    def __init__(self, client: LLMClient):
        self.client = client
        self.done = 0
        self.seconds: list[float] = []
        self.tokens_out: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()
        time.sleep(1.0)  # let the first one reach the server before the first turn

    def stop(self) -> None:
        """Let the review in flight finish (its time is part of the cost), then stop."""
        self._stop.set()
        self._thread.join(timeout=900)

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            messages = [{"role": "user", "content": REVIEW_PROMPT}]
            try:
                result = self.client.chat("reasoning", messages, feature="bench_review")
            except Exception as err:  # the server going away at the end of the run
                print(f"background review: {err}", flush=True)
                return
            self.done += 1
            self.seconds.append(round(time.monotonic() - started, 1))
            self.tokens_out.append(result.usage.tokens_out)


def platform_summary() -> str:
    import platform

    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu or platform.processor()}, Python {platform.python_version()}"


if __name__ == "__main__":
    main()

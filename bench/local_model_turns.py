"""
Benchmark: the offline model (llama.cpp, Qwen2.5-Coder-1.5B Q4_K_M) answering as Maren.

Measures server start to healthy, the first reply (cold prompt cache), and follow-up turns in
the same conversation (the prompt cache reuses the stable prefix), through the contrib's own
prompt renderer, client and tag parser. Writes bench/results/local_model.json.

    .venv/bin/python bench/local_model_turns.py [--turns 6]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

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
from omniira_evennia.llm.local_model import start_server, wait_until_healthy  # noqa: E402

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
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    server, base_url = start_server(threads=args.threads)
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
                    }
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
        server.terminate()
        server.wait(timeout=30)

    follow = [t["seconds"] for t in turns[1:]]
    result = {
        "benchmark": "local_model_turns",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform_summary()}",
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (llama.cpp via xllamacpp)",
        "threads": args.threads,
        "server_ready_s": round(ready_s, 2),
        "first_reply_s": turns[0]["seconds"],
        "follow_up_median_s": round(statistics.median(follow), 2) if follow else None,
        "follow_up_p95_s": round(percentile(follow, 95), 2) if follow else None,
        "turns": turns,
    }
    out = ROOT / "bench" / "results" / "local_model.json"
    out.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "turns"}, indent=2))


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

"""
Benchmark: the contrib's own share of a turn, black-box (issue #27, point 5).

The demo game is started (ports 4340-4346) against a scripted OpenAI-compatible server that
answers at once. One player connects by telnet and, paced under the per-player turn limit,
alternates `say Maren, <line>` (timed from the line sent to the NPC's reply arriving) and
`look` (timed to the room's exits), in one run. The share is median(say -> reply) minus
median(look): what our turn path (the reactor's gathering, the worker's retrieval and prompt,
the reactor's writes) adds to a command's round trip. Every third reply carries a REMEMBER tag
so the write path is in it. With `--probe`, the in-server probe (bench/in_server.py) times our
reactor functions and samples where the reactor spends its time.

    .venv/bin/python bench/turn_share.py [--turns 40] [--probe] [--switch-interval S] [--setup PY]

`--setup` runs a line of Python in the server (with `py`) before the turns: a trial of a
setting without a new settings file, e.g. the embedder's thread count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.demo_harness import DemoGame, machine, summary_ms, wait_for_embedder  # noqa: E402
from omniira_evennia.testing.fakes import ScriptedLLM  # noqa: E402
from tests.telnet_client import TelnetPlayer  # noqa: E402

# (the player's line, the NPC's reply: one that takes the line in, as the voice guard wants,
# so no turn is asked twice; the note kept with a telling, grounded in its words)
EXCHANGES = [
    (
        "I walked up from the docks today, and my legs are sore.",
        "Sit down by the fire and rest your legs, then.",
        "Benny walked up from the docks today.",
    ),
    (
        "I mend clocks for a living, down in Vellmoor.",
        "Clocks, is it? Vellmoor folk always did keep good time.",
        None,
    ),
    (
        "Have you seen my sister Odile? She went towards the old mill.",
        "I have not seen Odile today, love. I hope she turns up soon.",
        None,
    ),
    (
        "I cannot eat honey, so none in my tea, please.",
        "No honey in your tea, then; I'll mind that.",
        "Benny cannot eat honey.",
    ),
    (
        "What do you pour on a cold night?",
        "Mulled cider, mostly, and a dark ale for the hardy.",
        None,
    ),
    (
        "Would a clockmaker find work in this town?",
        "Ask about the market, love; someone always has a clock that wants mending.",
        None,
    ),
]
TICKET = re.compile(r"ticket (\d+)", re.IGNORECASE)  # the line is quoted capitalised


def scripted(body: dict) -> str:
    if body.get("response_format"):
        return json.dumps({"items": [], "memories": [], "beliefs": [], "reasoning": ""})
    for message in reversed(body.get("messages", [])):
        found = TICKET.search(message.get("content", ""))
        if found:
            number = int(found.group(1))
            _, reply, note = EXCHANGES[number % len(EXCHANGES)]
            if note:  # a telling every third turn: the write path is in the benchmark
                reply += ' [[REMEMBER:{"key":"note_%d","value":"%s","importance":4}]]' % (
                    number,
                    note,
                )
            return reply
    return "Aye."


def play(port: int, turns: int, pace: float) -> dict:
    conn = TelnetPlayer(port, timeout=30)
    conn.create_and_login("Benny", "pw-benny-12345")
    conn.drain(1.0)
    says, looks, asked_again = [], [], []
    for number in range(1, turns + 1):
        conn.drain(0.0)
        started = time.monotonic()
        line, reply, _ = EXCHANGES[number % len(EXCHANGES)]
        conn.send(f"say Maren, ticket {number}: {line}")
        heard = conn.read_until(r'Maren says, "[^"\n]*"', timeout=60)
        says.append(time.monotonic() - started)
        if reply.split(",")[0] not in heard:  # the guard asked again: a second call was timed
            asked_again.append(number)
        time.sleep(pace / 2)
        started = time.monotonic()
        conn.send("look")
        conn.read_until(r"Exits:", timeout=60)
        looks.append(time.monotonic() - started)
        time.sleep(pace / 2)
    conn.close()
    return {"says": says, "looks": looks, "asked_again": asked_again}


def run(args) -> dict:
    llm = ScriptedLLM(scripted, keep_alive=True).start()  # as a model server keeps them
    game = DemoGame(args.port_base, llm.base_url, keep=args.keep)
    probe = None
    try:
        print(f"[share] starting the demo in {game.dir} on port {args.port_base}", flush=True)
        game.start()
        game.add_world_module("bench_helpers", (ROOT / "bench" / "in_server.py").read_text())
        game.login_admin()
        print(f"[share] server runs {game.check_contrib_path()}", flush=True)
        wait_for_embedder(game)
        if args.switch_interval:
            game.py(
                f"import sys, json; sys.setswitchinterval({args.switch_interval}); "
                'me.msg("BENCHJSON " + json.dumps({"interval": sys.getswitchinterval()}))'
            )
        if args.setup:
            game.py(args.setup + '; import json; me.msg("BENCHJSON " + json.dumps({}))')
        if args.probe:
            game.py("from world.bench_helpers import probe_start; probe_start(me)")
        played = play(args.port_base, args.turns, args.pace)
        if args.probe:
            probe = game.py("from world.bench_helpers import probe_report; probe_report(me)")
    finally:
        game.stop()
        llm.stop()
    # The first turns warm caches (the NPC's matrix, the prompt cache): the rest are measured.
    says, looks = played["says"][args.warmup :], played["looks"][args.warmup :]
    share_ms = (statistics.median(says) - statistics.median(looks)) * 1000
    return {
        "date": date.today().isoformat(),
        "machine": machine(),
        "load_average_at_end": os.getloadavg()[0],
        "turns_measured": len(says),
        "pace_s": args.pace,
        "say_to_reply": summary_ms(says),
        "look": summary_ms(looks),
        "share_median_ms": round(share_ms, 1),
        "asked_again": played["asked_again"],
        "target_ms": 15,
        "probe": probe,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--pace", type=float, default=7.0, help="seconds per say + look")
    parser.add_argument("--port-base", type=int, default=4340)
    parser.add_argument("--probe", action="store_true")
    parser.add_argument("--switch-interval", type=float, help="the server's GIL switch interval, s")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--setup", help="Python run in the server with `py` before the turns")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "turn_share.json"))
    args = parser.parse_args()
    result = run(args)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    shown = {k: result[k] for k in ("say_to_reply", "look", "share_median_ms")}
    print(json.dumps(shown, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""
Benchmark: a hostile endpoint and a flooding player, while another player only looks (issue
#26's end-to-end acceptance: that player's `look` stays within 100 ms at p95).

The demo game is started (ports 4330-4336 by default) against a scripted OpenAI-compatible
server that answers every call at once with the worst it can send within the client's 256 KiB
limit: a reply of Evennia link fragments, bracket runs, digit-dash groups, tag openings nested
thousands deep, control characters. Three players connect by telnet:

- a flooder says a line of 5,900 hostile characters to Maren every 0.66 s (1.5 a second, the
  rate that kept others' `look` at 3.5 s before), rotating through the same families;
- a talker says an ordinary line to Lyra every 3 s and gets the hostile replies;
- an observer, in a process of its own, sends `look` every 0.5-1.5 s: first for a quiet
  baseline, then while the other two are at it.

Reported: the observer's `look` round trips (median, p95, max) quiet and under attack, the
replies the talker got (lines, fallbacks), the flooder's refusals, tracebacks in the server
log. Writes bench/results/hostile_server.json.

    .venv/bin/python bench/hostile_server.py [--seconds 60] [--baseline 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.demo_harness import DemoGame, machine, summary_ms, wait_for_embedder  # noqa: E402
from omniira_evennia.testing.fakes import ScriptedLLM  # noqa: E402
from tests.telnet_client import TelnetPlayer  # noqa: E402

REPLY_CHARS = 200_000  # the JSON around it stays under max_response_bytes (256 KiB)
LINE_CHARS = 5_900  # under Evennia's MAX_CHAR_LIMIT (6,000)
FAMILIES = [
    "|lc",
    "|lcx|lt",
    "|lu http://x |lt",
    "[[]]",
    "[[REMEMBER:",
    'REMEMBER:{"',
    '[[REMEMBER:{"a":[',
    "12-34-56-",
    "555-1234 ",
    "a@",
    "<a ",
    "\x1b[0;",
    "\u202e\u200b",
    "a",
    '|lc[[REMEMBER:{"v":"12-34 a@b |lt<a ',
]
OBSERVER_PASSWORD = "pw-observer-12345"
FALLBACK = "opens their mouth, then shakes their head|frowns, distracted"


def hostile(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


class HostileModel:
    """Every call answered at once with the next family of hostile text."""

    def __init__(self):
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> str:
        with self._lock:
            self.calls += 1
            unit = FAMILIES[self.calls % len(FAMILIES)]
        return "Evening. " + hostile(unit, REPLY_CHARS)


def flood(port: int, name: str, until: float, out: dict) -> None:
    conn = TelnetPlayer(port, timeout=30)
    conn.create_and_login(name, f"pw-{name.lower()}-12345")
    conn.drain(0.5)
    sent = 0
    while time.monotonic() < until:
        unit = FAMILIES[sent % len(FAMILIES)]
        conn.send("say Maren, " + hostile(unit, LINE_CHARS).replace("\n", " "))
        sent += 1
        time.sleep(0.66)
        conn.drain(0.0)
    text = conn.drain(2.0)
    out["flood_lines"] = sent
    out["flood_refusals_seen_last"] = text.count("One at a time")
    conn.close()


def talk(port: int, name: str, until: float, out: dict) -> None:
    conn = TelnetPlayer(port, timeout=30)
    conn.create_and_login(name, f"pw-{name.lower()}-12345")
    conn.drain(0.5)
    said, heard = 0, ""
    while time.monotonic() < until:
        conn.send("say Lyra, good evening, what's the news?")
        said += 1
        time.sleep(3.0)
        heard += conn.drain(0.0)
    heard += conn.drain(5.0)
    out["talk_lines"] = said
    out["lyra_lines_heard"] = heard.count("Lyra says")
    out["lyra_fallbacks_heard"] = sum(heard.count(part) for part in FALLBACK.split("|"))
    out["longest_line_heard"] = max((len(line) for line in heard.splitlines()), default=0)
    conn.close()


def observe(port: int, until: float, out_path: str) -> None:
    rng, samples = random.Random(0), []
    conn = TelnetPlayer(port, timeout=30)
    conn.login("Observer", OBSERVER_PASSWORD)
    conn.drain(0.5)
    while time.monotonic() < until:
        sent = time.monotonic()
        conn.send("look")
        conn.read_until(r"Exits:", timeout=60)
        samples.append((sent, time.monotonic() - sent))
        time.sleep(rng.uniform(0.5, 1.5))
    conn.close()
    Path(out_path).write_text(json.dumps(samples))


def run(args) -> dict:
    model = HostileModel()
    probe = None
    llm = ScriptedLLM(model).start()
    game = DemoGame(args.port_base, llm.base_url, keep=args.keep)
    attack: dict = {}
    try:
        print(f"[hostile] starting the demo in {game.dir} on port {args.port_base}", flush=True)
        game.start()
        game.add_world_module("bench_helpers", (ROOT / "bench" / "in_server.py").read_text())
        game.login_admin()
        print(f"[hostile] server runs {game.check_contrib_path()}", flush=True)
        game.py(
            "from world.bench_helpers import make_account; "
            f"make_account(me, 'Observer', '{OBSERVER_PASSWORD}')"
        )
        wait_for_embedder(game)
        start_at = time.monotonic() + args.baseline
        until = start_at + args.seconds
        observed = game.dir / "observer.json"
        observer = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--observe",
                str(until),
                "--port-base",
                str(args.port_base),
                "--out",
                str(observed),
            ],
            cwd=ROOT,
        )
        while time.monotonic() < start_at - 0.5:
            time.sleep(0.05)
        if args.probe:
            game.py("from world.bench_helpers import probe_start; probe_start(me)")
        print(f"[hostile] attacking for {args.seconds:.0f} s", flush=True)
        threads = [
            threading.Thread(target=flood, args=(args.port_base, "Flooder", until, attack)),
            threading.Thread(target=talk, args=(args.port_base, "Talker", until, attack)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(args.seconds + 120)
        observer.wait(120)
        samples = json.loads(observed.read_text()) if observed.exists() else []
        probe = (
            game.py("from world.bench_helpers import probe_report; probe_report(me)", timeout=300)
            if args.probe
            else None
        )
        log = (game.dir / "server" / "logs" / "server.log").read_text(errors="replace")
    finally:
        game.stop()
        llm.stop()
    quiet = [t for at, t in samples if at < start_at]
    under = [t for at, t in samples if at >= start_at]
    return {
        "date": date.today().isoformat(),
        "machine": machine(),
        "load_average_at_end": os.getloadavg()[0],
        "seconds": args.seconds,
        "reply_chars": REPLY_CHARS,
        "flood_line_chars": LINE_CHARS,
        "observer_look": {"quiet": summary_ms(quiet), "under_attack": summary_ms(under)},
        "attack": attack,
        "llm_calls": model.calls,
        "server_log_tracebacks": log.count("Traceback"),
        "target_p95_ms": 100,
        "probe": probe,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--baseline", type=float, default=20.0)
    parser.add_argument("--port-base", type=int, default=4330)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--probe", action="store_true", help="sample what the reactor does")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "hostile_server.json"))
    parser.add_argument("--observe", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.observe:
        observe(args.port_base, args.observe, args.out)
        return
    result = run(args)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(
        json.dumps(
            {
                k: result[k]
                for k in ("observer_look", "attack", "llm_calls", "server_log_tracebacks")
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""
Benchmark: the day rollover over 500 NPCs, in the running demo game.

The real demo is started with `tools/demo.py start` (temporary folder, ports 4310-4316 by
default) against a scripted OpenAI-compatible server (omniira_evennia.testing.fakes) that answers diary
and reflection calls after 1 s each: about what a hosted small model takes for a short JSON
answer, and the delay the end-to-end 200-NPC test uses, so the two figures compare. 500 NPCs are
added with what makes a diary (two memories learned today, a visit, a world event naming them);
every tenth is a headline NPC with five new memories about each of two others, so it also
reflects on them (100 reflection jobs). The rollover then runs in the server (`run_rollover`,
the background pool, ROLLOVER_CONCURRENCY from the demo settings) while one telnet player keeps
sending `look` and another talks to Maren, whose scripted replies also take 1 s: her reply
latency during the rollover is compared with the same player's on the idle server just before
(the interactive pool keeps background work out of a player's way; target within 10 %).

Measured: the talking player's reply latency idle and during the rollover, wall time, the
rollover's first job (`first_job_s`: it must not grow with the NPC count), LLM calls by feature, the scripted server's peak in-flight requests, the
server's resident memory (baseline before the rollover, peak during it from VmHWM after
resetting it, and the growth), rows written, the player's `look` round trips, and the reactor
probe (bench/in_server.py). Writes bench/results/rollover.json.

    .venv/bin/python bench/rollover.py [--npcs 500] [--delay 1.0]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.demo_harness import (  # noqa: E402
    DemoGame,
    ProcStats,
    machine,
    summary_ms,
    wait_for_embedder,
)
from omniira_evennia.testing.fakes import ScriptedLLM  # noqa: E402
from tests.telnet_client import TelnetPlayer  # noqa: E402


def feature(body: dict) -> str:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    return schema.get("name") or "conversation"


def scripted_reply(body: dict) -> str:
    kind = feature(body)
    if kind == "diary":
        return json.dumps({"entry": "Salt went up again; the market was loud.", "importance": 3})
    if kind == "reflection":
        belief = {
            "belief": "I get the sense they are up to something at the docks.",
            "importance": 5,
        }
        return json.dumps({"beliefs": [belief], "reasoning": "Seen there five times."})
    if kind != "conversation":
        return json.dumps({"items": [], "memories": [], "beliefs": [], "reasoning": ""})
    return "Aye."


PACE_S = 7.5  # 8 lines a minute at most: under the per-player limit (PLAYER_TURNS_PER_MINUTE)


def talk(player) -> float:
    """Say a line to Maren and wait for her answer: seconds from send to reply. Paced, so the
    per-player rate limit never answers instead of Maren."""
    player.drain(0.1)
    started = time.monotonic()
    player.send("say Maren, how is the cider tonight?")
    player.read_until(r"Maren says", timeout=120)
    took = time.monotonic() - started
    time.sleep(max(0.0, PACE_S - took))
    return took


def run(args) -> dict:
    delay = args.delay
    llm = ScriptedLLM(
        scripted_reply,
        delay=lambda b: delay if feature(b) in ("diary", "reflection", "conversation") else 0,
    ).start()
    game = DemoGame(args.port_base, llm.base_url, keep=args.keep)
    try:
        print(f"[rollover] starting the demo in {game.dir} on port {args.port_base}", flush=True)
        game.start()
        game.add_world_module("bench_helpers", (ROOT / "bench" / "in_server.py").read_text())
        game.login_admin()
        print(f"[rollover] server runs {game.check_contrib_path()}", flush=True)
        wait_for_embedder(game)
        crowd = game.py(
            f"from world.bench_helpers import make_crowd; make_crowd(me, {args.npcs})",
            timeout=900,
        )
        print(f"[rollover] crowd ready: {crowd}", flush=True)
        looker = TelnetPlayer(args.port_base)
        looker.create_and_login("Looker", "pw-looker-12345")
        looker.drain(0.5)
        talker = TelnetPlayer(args.port_base)
        talker.create_and_login("Talker", "pw-talker-12345")
        talker.drain(0.5)
        idle_replies = [talk(talker) for _ in range(args.talks)]
        rows_before = game.py("from world.bench_helpers import counts; counts(me)")
        llm.requests.clear()
        llm.peak_in_flight = 0

        proc = ProcStats(game.server_pid())
        time.sleep(2)  # let the creation settle before taking the baseline
        baseline = proc.memory_kb()
        peak_reset = proc.reset_peak()
        game.py("from world.bench_helpers import probe_start; probe_start(me)")
        cpu0, reactor0 = proc.cpu_seconds(), proc.reactor_cpu_seconds()
        print(f"[rollover] rolling over {args.npcs} NPCs", flush=True)
        started = time.monotonic()
        game.admin.send("py from world.bench_helpers import rollover; rollover(me)")
        looks, done, rss_samples, busy_replies = [], None, [], []
        while done is None and time.monotonic() - started < args.timeout:
            if len(busy_replies) < args.talks:
                busy_replies.append(talk(talker))
            t0 = time.monotonic()
            looker.send("look")
            looker.read_until(r"Exits:", timeout=30)
            looks.append(time.monotonic() - t0)
            rss_samples.append(proc.memory_kb()["VmRSS"])
            try:
                done = game.admin.read_until(r"BENCHJSON (\{[^\n]*\})", timeout=0.5)
            except TimeoutError:
                pass
        wall = time.monotonic() - started
        if done is None:
            raise RuntimeError("the rollover did not finish:\n" + game.log_tail())
        result = json.loads(re.search(r"BENCHJSON (\{[^\n]*\})", done).group(1))
        cpu, reactor = proc.cpu_seconds() - cpu0, proc.reactor_cpu_seconds() - reactor0
        peak = proc.memory_kb()
        probe = game.py("from world.bench_helpers import probe_report; probe_report(me)")
        looker.close()
        talker.close()
    finally:
        game.stop()
        llm.stop()

    calls: dict[str, int] = {}
    for body in llm.requests:
        calls[feature(body)] = calls.get(feature(body), 0) + 1
    rows_after = result["rows"]
    peak_kb = peak["VmHWM"] if peak_reset else max(rss_samples + [peak["VmRSS"]])
    return {
        "date": date.today().isoformat(),
        "machine": machine(),
        "npcs": args.npcs,
        "crowd": crowd,
        "llm_delay_s": delay,
        "rollover_concurrency": probe["settings"]["ROLLOVER_CONCURRENCY"],
        "interactive_threads": probe["settings"]["INTERACTIVE_THREADS"],
        "background_threads": probe["settings"]["BACKGROUND_THREADS"],
        "wall_s": round(wall, 1),
        "summary": result["summary"],
        "llm": {
            "calls": len(llm.requests),
            "by_feature": calls,
            "peak_in_flight": llm.peak_in_flight,
        },
        "memory": {
            "baseline_rss_mb": round(baseline["VmRSS"] / 1024, 1),
            "peak_rss_mb": round(peak_kb / 1024, 1),
            "growth_mb": round((peak_kb - baseline["VmRSS"]) / 1024, 1),
            "rss_after_mb": round(peak["VmRSS"] / 1024, 1),
            "peak_from": "VmHWM after clear_refs" if peak_reset else "sampled VmRSS",
        },
        "rows_written": {
            k: rows_after[k] - rows_before.get(k, 0)
            for k in ("diary_entries", "reflections", "llm_usage", "daily_work")
        },
        "server_cpu": {
            "all_threads_s": round(cpu, 1),
            "reactor_thread_s": round(reactor, 1),
        },
        "look": summary_ms(looks),
        "reply": {
            "idle": summary_ms(idle_replies),
            "during_rollover": summary_ms(busy_replies),
            "ratio_median": (
                round(statistics.median(busy_replies) / statistics.median(idle_replies), 3)
                if busy_replies
                else None
            ),
        },
        "probe": probe,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--npcs", type=int, default=500)
    parser.add_argument("--delay", type=float, default=1.0, help="scripted seconds per call")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--talks", type=int, default=6, help="replies timed idle and busy")
    parser.add_argument("--port-base", type=int, default=4310)
    parser.add_argument("--keep", action="store_true", help="keep the demo folder")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "rollover.json"))
    args = parser.parse_args()
    result = run(args)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(
        json.dumps(
            {
                k: result[k]
                for k in ("wall_s", "summary", "llm", "memory", "rows_written", "look", "reply")
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

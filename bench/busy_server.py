"""
Benchmark: a busy server. Fifty telnet players talk to ten NPCs for a few minutes while the
server keeps answering everyone's `look`.

The real demo game is started with `tools/demo.py start` (in a temporary folder, ports 4300-4306
by default) against a scripted OpenAI-compatible server (omniira_evennia.testing.fakes) that takes 2 s
per reply. Six NPCs join the demo's four (five in the tavern, five on the market square); 50
players are created through telnet's `create`, half of them walk to the market, and each
repeatedly says a line to "its" NPC ("Maren, ticket t7n3: ..."), waits for the answer (which
echoes the ticket, so a player knows its own reply among the room's chatter) up to 60 s, and
meanwhile sends `look` every few seconds and times the round trip. Every third reply carries a
REMEMBER tag, so memories are written and NPC matrices reloaded as in play. One more player,
in a process of its own, only looks (every 0.5-1.5 s), so its round trips carry none of the
benchmark client's own thread scheduling.

Measured: `look` round trips (median, p95, max), replies expected/received/lost (lost = no
answer and no in-character fallback line within the timeout), replies per minute, the scripted
LLM's peak in-flight requests, the server's CPU (all threads and the reactor thread alone), and
a reactor probe (bench/in_server.py): reactor lag, timed contrib functions and a stack-sampled
profile of what the reactor did. Writes bench/results/busy_server.json.

    .venv/bin/python bench/busy_server.py [--players 50] [--minutes 3] [--delay 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
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

NPCS = {
    "tavern": ["Maren", "Lyra", "Tamsin", "Odo", "Pell"],
    "market": ["Voss", "Wren", "Hale", "Nell", "Bram"],
}
LINES = [
    "any news from the river today?",
    "what would you recommend for a cold night?",
    "have you seen my brother Tomas?",
    "I found a blue glass bottle by the mill.",
    "who was shouting in the square this morning?",
    "do you remember what I told you yesterday?",
]
TICKET = re.compile(r"ticket (t\d+n\d+)")
OBSERVER_PASSWORD = "pw-observer-12345"
FALLBACK = r"(opens their mouth, then shakes their head|frowns, distracted)"


def scripted_reply(body: dict) -> str:
    """Echo the player's ticket; every third reply asks the NPC to remember something."""
    if body.get("response_format"):  # extraction and the other JSON features: nothing new
        return json.dumps({"items": [], "memories": [], "beliefs": [], "reasoning": ""})
    for message in reversed(body.get("messages", [])):
        found = TICKET.search(message.get("content", ""))
        if found:
            ticket = found.group(1)
            reply = f"Aye, I hear you, love (ticket {ticket})."
            if int(ticket.split("n")[1]) % 3 == 0:
                remember = {"key": f"said_{ticket}", "value": f"Said {ticket} at the bar."}
                reply += f" [[REMEMBER:{json.dumps({**remember, 'importance': 4})}]]"
            return reply
    return "Aye."


class Player(threading.Thread):
    """One scripted player: say a line to its NPC, wait for the answer, look meanwhile."""

    def __init__(self, index: int, port: int, room: str, npc: str, args):
        super().__init__(daemon=True)
        self.index, self.port, self.room, self.npc, self.args = index, port, room, npc, args
        self.name_ = f"Bench{index:02d}"
        self.looks: list[float] = []
        self.look_times: list[tuple[float, float]] = []  # (sent, answered), monotonic clock
        self.idle_looks: list[float] = []
        self.replies: list[float] = []
        self.expected = self.received = self.fallbacks = self.lost = self.refused = 0
        self.errors: list[str] = []
        self.conn: TelnetPlayer | None = None

    def setup(self) -> None:
        self.conn = TelnetPlayer(self.port, timeout=30)
        if self.args.nodelay:
            self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The portal admits two connections a second and tells the queued ones to wait, in a
        # message that mentions "connect": wait for the real screen, then hand it back.
        screen = self.conn.read_until(r"create <username> <password>", timeout=120)
        self.conn.buffer = screen + self.conn.buffer
        self.conn.create_and_login(self.name_, f"pw-{self.name_.lower()}-12345")
        if self.room == "market":
            self.conn.send("market")
            self.conn.read_until(r"Market Square", timeout=30)
        self.conn.drain(0.5)

    def run(self) -> None:
        try:
            self._talk()
        except Exception as err:  # a broken connection is reported, not hidden
            self.errors.append(repr(err))

    def _idle_looks(self, rng: random.Random) -> None:
        """Before anyone talks: the same looks on a quiet server, the baseline."""
        time.sleep(rng.uniform(0, self.args.look_every))
        while time.monotonic() < self.args.start_talking_at:
            started = time.monotonic()
            self.conn.send("look")
            self.conn.read_until(r"Exits:", timeout=30)
            self.idle_looks.append(time.monotonic() - started)
            time.sleep(rng.uniform(self.args.look_every / 3, self.args.look_every))

    def _talk(self) -> None:
        rng = random.Random(self.index)
        self._idle_looks(rng)
        time.sleep(rng.uniform(0, 5))  # players do not all speak in the same second
        number = 0
        while time.monotonic() < self.args.stop_speaking_at:
            number += 1
            ticket = f"t{self.index}n{number}"
            self.conn.send(f"say {self.npc}, ticket {ticket}: {rng.choice(LINES)}")
            self.expected += 1
            sent = time.monotonic()
            self._await_reply(ticket, sent, rng)
            time.sleep(rng.uniform(1, 4))  # reading the answer, typing the next line

    def _await_reply(self, ticket: str, sent: float, rng: random.Random) -> None:
        reply = re.compile(rf'{self.npc} says, "[^"\n]*\b{ticket}\b')
        fallback = re.compile(rf"{self.npc} {FALLBACK}")
        saw_fallback = False
        look_sent, next_look = None, sent + rng.uniform(1, self.args.look_every / 2)
        deadline = sent + self.args.reply_timeout
        wanted = rf"{reply.pattern}|{fallback.pattern}|Exits:|is still answering you"
        while True:
            now = time.monotonic()
            if look_sent is None and now >= next_look:
                look_sent = time.monotonic()
                self.conn.send("look")
            wait = deadline - now if look_sent is not None else min(deadline, next_look) - now
            try:
                text = self.conn.read_until(wanted, timeout=max(0.01, wait))
            except TimeoutError:
                text = ""
            arrived = time.monotonic()
            if look_sent is not None and "Exits:" in text:
                self.looks.append(arrived - look_sent)
                self.look_times.append((look_sent, arrived))
                gap = rng.uniform(self.args.look_every / 3, self.args.look_every)
                look_sent, next_look = None, arrived + gap
            if "is still answering you" in text:
                self.refused += 1
            saw_fallback = saw_fallback or bool(fallback.search(text))
            if reply.search(text):
                self.received += 1
                self.replies.append(arrived - sent)
                break
            if arrived >= deadline:
                # A fallback line from our NPC is an answer in character (we cannot tell whose
                # turn it ended, so count it as ours only when our own reply never came).
                if saw_fallback:
                    self.fallbacks += 1
                else:
                    self.lost += 1
                break
        if look_sent is not None:  # finish a look still on its way, so its time is kept
            try:
                self.conn.read_until(r"Exits:", timeout=10)
                self.looks.append(time.monotonic() - look_sent)
                self.look_times.append((look_sent, time.monotonic()))
            except TimeoutError:
                self.errors.append("a look went unanswered for 10 s")


def look_path(players: list[Player], events: list) -> dict:
    """
    Split each talk-phase look into where its time went, by matching the client's send and
    answer times with the server's own timestamps (both processes read the same monotonic
    clock): client->portal->server, Evennia's command dispatch, the look itself,
    server->portal->client.
    """
    by_name: dict[str, list] = {}
    for kind, name, at in events:
        by_name.setdefault(name, []).append((at, kind))
    parts: dict[str, list[float]] = {"in": [], "dispatch": [], "look": [], "out": []}
    slow: dict[str, list[float]] = {"in": [], "dispatch": [], "look": [], "out": []}
    for player in players:
        stamps = sorted(by_name.get(player.name_, []))
        for sent, answered in player.look_times:
            found = {}
            for at, kind in stamps:
                if sent <= at <= answered and kind not in found:
                    found[kind] = at
            if len(found) < 4:
                continue
            split = {
                "in": found["in"] - sent,
                "dispatch": found["start"] - found["in"],
                "look": found["end"] - found["start"],
                "out": answered - found["end"],
            }
            for key, value in split.items():
                parts[key].append(value)
                if answered - sent > 0.1:
                    slow[key].append(value)
    kinds: dict[str, int] = {}
    for kind, _, _ in events:
        kinds[kind] = kinds.get(kind, 0) + 1
    return {
        "server_events": kinds,
        "matched": len(parts["in"]),
        "parts": {k: summary_ms(v) for k, v in parts.items()},
        "looks_over_100ms": len(slow["in"]),
        "looks_over_100ms_mean_ms": {
            k: round(sum(v) / len(v) * 1000, 1) for k, v in slow.items() if v
        },
    }


def observe(port: int, name: str, password: str, until: float, out: str) -> None:
    """
    One more player in a process of its own, looking every 0.5-1.5 s: its round trips carry
    none of the benchmark client's own thread scheduling (50 players share one interpreter).
    """
    rng, samples = random.Random(0), []
    conn = TelnetPlayer(port, timeout=30)
    conn.login(name, password)
    conn.drain(0.5)
    while time.monotonic() < until:
        sent = time.monotonic()
        conn.send("look")
        conn.read_until(r"Exits:", timeout=30)
        samples.append((sent, time.monotonic() - sent))
        time.sleep(rng.uniform(0.5, 1.5))
    conn.close()
    Path(out).write_text(json.dumps(samples))


def create_players(args, port: int) -> list[Player]:
    players = []
    for i in range(args.players):
        room = "tavern" if i % 2 == 0 else "market"
        npcs = NPCS[room]
        players.append(Player(i + 1, port, room, npcs[(i // 2) % len(npcs)], args))
    # Creation hashes two passwords per player on the reactor (about 0.6 s each here), and the
    # portal admits two connections a second; a few at a time keeps every step in its timeout.
    with ThreadPoolExecutor(max_workers=args.create_batch) as pool:
        list(pool.map(lambda p: p.setup(), players))
    return players


def run(args) -> dict:
    llm = ScriptedLLM(scripted_reply, delay=args.delay).start()
    game = DemoGame(args.port_base, llm.base_url, keep=args.keep)
    started_setup = time.monotonic()
    try:
        print(f"[busy] starting the demo in {game.dir} on port {args.port_base}", flush=True)
        game.start()
        game.add_world_module("bench_helpers", (ROOT / "bench" / "in_server.py").read_text())
        game.login_admin()
        print(f"[busy] server runs {game.check_contrib_path()}", flush=True)
        print(f"[busy] {game.py('from world.bench_helpers import make_npcs; make_npcs(me)')}")
        wait_for_embedder(game)
        print(f"[busy] creating {args.players} players", flush=True)
        players = create_players(args, args.port_base)
        setup_seconds = time.monotonic() - started_setup
        llm.requests.clear()
        llm.peak_in_flight = 0
        game.py(
            "from world.bench_helpers import make_account; "
            f"make_account(me, 'Observer', '{OBSERVER_PASSWORD}')"
        )
        if args.nodelay:
            print(f"[busy] {game.py('from world.bench_helpers import nodelay; nodelay(me)')}")
        proc, portal = ProcStats(game.server_pid()), ProcStats(game.portal_pid())
        print(f"[busy] {args.baseline:.0f} s of looks, then talking for {args.minutes} min")
        args.start_talking_at = time.monotonic() + args.baseline
        args.stop_speaking_at = args.start_talking_at + args.minutes * 60
        observed = game.dir / "observer.json"
        observer = subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--observe",
                str(args.stop_speaking_at),
                "--port-base",
                str(args.port_base),
                "--out",
                str(observed),
            ],
            cwd=ROOT,
        )
        for player in players:
            player.start()
        while time.monotonic() < args.start_talking_at - 0.5:
            time.sleep(0.05)
        game.py("from world.bench_helpers import probe_start; probe_start(me)")
        started = time.monotonic()
        cpu0, reactor0, portal0 = (
            proc.cpu_seconds(),
            proc.reactor_cpu_seconds(),
            portal.cpu_seconds(),
        )
        client0 = time.process_time()
        for player in players:
            player.join(args.minutes * 60 + args.reply_timeout + 60)
        duration = time.monotonic() - started
        cpu, reactor = proc.cpu_seconds() - cpu0, proc.reactor_cpu_seconds() - reactor0
        portal_cpu, client_cpu = portal.cpu_seconds() - portal0, time.process_time() - client0
        observer.wait(120)
        observer_looks = json.loads(observed.read_text()) if observed.exists() else []
        probe = game.py("from world.bench_helpers import probe_report; probe_report(me)")
        events = json.loads((game.dir / "server" / "logs" / "bench_looks.json").read_text())
        memory = proc.memory_kb()
        for player in players:
            player.conn.close()
    finally:
        game.stop()
        llm.stop()

    looks = [t for p in players for t in p.looks]
    replies = [t for p in players for t in p.replies]
    expected = sum(p.expected for p in players)
    received = sum(p.received for p in players)
    conversation_calls = [r for r in llm.requests if not r.get("response_format")]
    return {
        "date": date.today().isoformat(),
        "machine": machine(),
        "players": args.players,
        "npcs": sum(len(v) for v in NPCS.values()),
        "rooms": {
            room: {"npcs": npcs, "players": args.players // 2} for room, npcs in NPCS.items()
        },
        "llm_delay_s": args.delay,
        "reply_timeout_s": args.reply_timeout,
        "talk_minutes": args.minutes,
        "tcp_nodelay_experiment": args.nodelay,
        "setup_seconds": round(setup_seconds, 1),
        "duration_s": round(duration, 1),
        "look_idle_server": summary_ms([t for p in players for t in p.idle_looks]),
        "look": summary_ms(looks),
        "look_path": look_path(players, events),
        "observer_look": {
            "quiet": summary_ms([t for at, t in observer_looks if at < args.start_talking_at]),
            "talking": summary_ms([t for at, t in observer_looks if at >= args.start_talking_at]),
        },
        "replies": {
            "expected": expected,
            "received": received,
            "fallbacks": sum(p.fallbacks for p in players),
            "lost": sum(p.lost for p in players),
            "refused_still_answering": sum(p.refused for p in players),
            "per_minute": round(received / (duration / 60), 1),
            "wait": summary_ms(replies),
        },
        "llm": {
            "requests": len(llm.requests),
            "conversation_requests": len(conversation_calls),
            "peak_in_flight": llm.peak_in_flight,
        },
        "server_cpu": {
            "all_threads_s": round(cpu, 1),
            "reactor_thread_s": round(reactor, 1),
            "all_threads_share_of_one_core": round(cpu / duration, 3),
            "reactor_share_of_one_core": round(reactor / duration, 3),
            "portal_s": round(portal_cpu, 1),
            "bench_client_s": round(client_cpu, 1),
            "machine_load_avg_1min_at_end": os.getloadavg()[0],
        },
        "server_memory_kb": memory,
        "player_errors": [e for p in players for e in p.errors][:20],
        "probe": probe,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--delay", type=float, default=2.0, help="scripted LLM seconds per call")
    parser.add_argument("--reply-timeout", type=float, default=60.0)
    parser.add_argument("--look-every", type=float, default=9.0, help="max seconds between looks")
    parser.add_argument("--baseline", type=float, default=30.0, help="seconds of looks only")
    parser.add_argument("--create-batch", type=int, default=5)
    parser.add_argument("--port-base", type=int, default=4300)
    parser.add_argument("--keep", action="store_true", help="keep the demo folder")
    parser.add_argument(
        "--nodelay",
        action="store_true",
        help="experiment: TCP_NODELAY on the players' sockets and the server's AMP socket",
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "busy_server.json"))
    parser.add_argument("--observe", type=float, help=argparse.SUPPRESS)  # the observer process
    args = parser.parse_args()
    if args.observe:
        observe(args.port_base, "Observer", OBSERVER_PASSWORD, args.observe, args.out)
        return
    result = run(args)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(
        json.dumps(
            {
                k: result[k]
                for k in (
                    "duration_s",
                    "look_idle_server",
                    "look",
                    "observer_look",
                    "replies",
                    "llm",
                    "server_cpu",
                )
            },
            indent=2,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""
Helpers the benchmarks run inside the demo server (copied to <demo>/world/bench_helpers.py and
called by the admin with `py`); not a benchmark itself.

- `make_npcs`, `make_crowd`: add NPCs to the demo world (and, for the rollover, a day's worth of
  memories, visits and world events for them).
- `probe_start` / `probe_report`: measure the reactor while a benchmark runs. A 10 ms
  `LoopingCall` records how late the reactor gets to it (its lag); a sampler thread looks at the
  reactor thread's Python stack every 5 ms and counts what it is doing when not idle; wrappers
  time a few known reactor-side functions of the contrib. This costs well under 1% of a core.
- `rollover`: run the day rollover and report its summary and the rows it wrote.

Every helper answers with one line, "BENCHJSON {...}", which the benchmark reads over telnet.
"""

import json
import random
import sys
import threading
import time
from collections import Counter

from evennia import create_object, search_object
from twisted.internet import task

import omniira_evennia
from omniira_evennia.conversation import service
from omniira_evennia.conversation import store as conversations
from omniira_evennia.conversation import turn
from omniira_evennia.llm import usage as llm_usage
from omniira_evennia.memory import notes_store, store
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.rollover.service import record_visit
from omniira_evennia.runtime import clock, health

EXTRA_NPCS = [
    ("Tamsin", "tavern", "serving girl", "Quick, cheerful, forgets nothing said over a tray."),
    ("Odo", "tavern", "retired sailor", "Slow-spoken, full of river lore and old grudges."),
    ("Pell", "tavern", "card sharp", "Charming, evasive, always counting."),
    ("Hale", "market", "fishmonger", "Loud, honest, suspicious of river folk."),
    ("Nell", "market", "baker", "Motherly and nosy; trades bread for news."),
    ("Bram", "market", "watchman", "Dutiful, tired, hears every complaint in town."),
]
ROOMS = {"tavern": "The Lantern & Lane", "market": "Market Square"}


def _reply(caller, payload):
    caller.msg("BENCHJSON " + json.dumps(payload))


def _room(name):
    return _room_named(ROOMS[name])


def _new_npc(key, room, role, personality):
    npc = create_object("typeclasses.npcs.NPC", key=key, location=room, home=room)
    npc.db.npc_role = role
    npc.db.npc_personality = personality
    npc.locks.add("get:false();puppet:perm(Developer)")
    return npc


def make_npcs(caller, count=6):
    """Add up to six named NPCs, alternately to the tavern and the market."""
    made = [
        _new_npc(key, _room(room), role, personality).key
        for key, room, role, personality in EXTRA_NPCS[:count]
    ]
    _reply(caller, {"npcs": made})


def make_crowd(caller, count=500, headline_every=10, targets=2, memories=5):
    """
    `count` NPCs on the market square, each with what makes a diary: two memories learned
    today, a visit and a world event naming it. Every `headline_every`-th is a headline NPC
    with `memories` new memories about each of `targets` others, enough to reflect on them.
    """
    started = time.monotonic()
    market, tavern = _room("market"), _room("tavern")
    npcs = [
        _new_npc(f"Crowd{i:03d}", market, "market trader", "Busy, practical, a little nosy.")
        for i in range(count)
    ]
    day = clock.current_game_day()
    memory_rows = 0
    for i, npc in enumerate(npcs):
        neighbour = npcs[(i + 1) % count]
        for k in range(2):
            write_note(
                npc,
                Note(
                    neighbour,
                    f"{neighbour.key} sold me {random.choice(['apples', 'rope', 'eels', 'cloth'])}.",
                    key=f"stall_{k}",
                    importance=4,
                    feeling="trust",
                    game_day=day,
                ),
            )
            memory_rows += 1
        record_visit(npc, tavern)
        omniira_evennia.log_world_event(f"{npc.key} haggled over the price of salt.", [npc])
        if i % headline_every == 0:
            npc.db.npc_headline = True
            for t in range(targets):
                target = npcs[(i + 2 + t) % count]
                for m in range(memories):
                    write_note(
                        npc,
                        Note(
                            target,
                            f"{target.key} was seen at the docks before dawn (time {m}).",
                            key=f"watch_{m}",
                            importance=6,
                            feeling="fear",
                            game_day=day,
                        ),
                    )
                    memory_rows += 1
    _reply(
        caller,
        {
            "npcs": count,
            "headline": len(range(0, count, headline_every)),
            "memories": memory_rows,
            "seconds": round(time.monotonic() - started, 1),
        },
    )


def make_account(caller, name, password):
    """An account with its character, made directly (telnet creation is throttled to 50)."""
    from typeclasses.accounts import Account

    account, errors = Account.create(username=name, password=password)
    _reply(caller, {"account": account.key if account else None, "errors": list(errors)})


def nodelay(caller):
    """Experiment: TCP_NODELAY on the server's AMP socket to the portal (Nagle off)."""
    import evennia

    transport = evennia.EVENNIA_SERVER_SERVICE.amp_protocol.transport
    _reply(caller, {"nodelay": bool(transport.setTcpNoDelay(True) or transport.getTcpNoDelay())})


# ---------------------------------------------------------------- the reactor probe

_probe = {}


def _short(code):
    path = code.co_filename
    for marker in ("site-packages/", "/omniira_evennia/", "/world/", "/lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    if "omniira_evennia" in code.co_filename:
        path = "omniira_evennia/" + path
    return f"{path.rsplit('.py', 1)[0].replace('/', '.')}:{code.co_qualname}"


def _sampler(main_id, stop, samples, interval):
    """Every `interval` s, note what the reactor thread runs (innermost frame first)."""
    while not stop.is_set():
        time.sleep(interval)
        frame = sys._current_frames().get(main_id)
        if frame is None:
            continue
        stack = []
        while frame is not None and len(stack) < 60:
            stack.append(_short(frame.f_code))
            frame = frame.f_back
        samples.append(tuple(stack))


def _thread_cpu():
    """CPU seconds of each live Python thread of this process, by thread name."""
    import os
    import re

    found = {}
    for thread in threading.enumerate():
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        found[thread.native_id] = (re.sub(r"[-_ ]?\d+$", "", thread.name), seconds)
    return found


def _cpu_by_thread_name(before, after):
    totals = Counter()
    for native_id, (name, seconds) in after.items():
        totals[name] += seconds - before.get(native_id, (name, 0.0))[1]
    return {name: round(seconds, 2) for name, seconds in totals.most_common()}


def _timed(owner, name, label):
    original = getattr(owner, name)
    stats = _probe["timers"].setdefault(label, [])
    in_worker = label.startswith("worker:")  # else only the reactor's calls are timed

    def wrapper(*args, **kwargs):
        on_reactor = threading.current_thread() is threading.main_thread()
        if on_reactor == in_worker:
            return original(*args, **kwargs)
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            stats.append(time.perf_counter() - started)

    wrapper.__wrapped__ = original
    setattr(owner, name, wrapper)
    _probe["patched"].append((owner, name, original))


def _timed_until_done(owner, name, label):
    """Time from the call of `name` (which returns a Future) to its result."""
    original = getattr(owner, name)
    stats = _probe["timers"].setdefault(label, [])

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        future = original(*args, **kwargs)
        future.add_done_callback(lambda _: stats.append(time.perf_counter() - started))
        return future

    setattr(owner, name, wrapper)
    _probe["patched"].append((owner, name, original))


def _trace_looks():
    """Timestamps of each `look` on its way through the server, by player (`_probe["looks"]`)."""
    import evennia
    from evennia.commands.default.general import CmdLook

    SESSION_HANDLER = evennia.SERVER_SESSION_HANDLER

    events = _probe["looks"]

    def name_of(session):
        puppet = getattr(session, "puppet", None)
        return puppet.key if puppet else None

    original_in, original_out, original_func = (
        SESSION_HANDLER.data_in,
        SESSION_HANDLER.data_out,
        CmdLook.func,
    )

    def data_in(session, **kwargs):
        text = kwargs.get("text")
        if text and text[0] and str(text[0][0]).strip() == "look":
            events.append(("in", name_of(session), time.monotonic()))
        return original_in(session, **kwargs)

    def data_out(session, **kwargs):
        if "Exits:" in str(kwargs.get("text", ""))[:4000]:
            events.append(("out", name_of(session), time.monotonic()))
        return original_out(session, **kwargs)

    def func(self):
        events.append(("start", self.caller.key, time.monotonic()))
        try:
            return original_func(self)
        finally:
            events.append(("end", self.caller.key, time.monotonic()))

    SESSION_HANDLER.data_in, SESSION_HANDLER.data_out, CmdLook.func = data_in, data_out, func
    _probe["patched"] += [
        (SESSION_HANDLER, "data_in", original_in),
        (SESSION_HANDLER, "data_out", original_out),
        (CmdLook, "func", original_func),
    ]


def probe_start(caller, interval=0.01):
    """Start measuring the reactor: lag, stack samples and timed contrib functions."""
    from evennia.commands.default.general import CmdLook

    from omniira_evennia import commands
    from omniira_evennia.life import service as movement
    from omniira_evennia.llm.client import LLMClient
    from omniira_evennia.memory import fulltext
    from omniira_evennia.memory.onnx_embedder import OnnxMiniLMEmbedder
    from omniira_evennia.rollover import service as daily

    if _probe:
        probe_stop()
    _probe.update(
        timers={},
        patched=[],
        lags=[],
        looks=[],
        started=time.monotonic(),
        threads=_thread_cpu(),
    )
    _trace_looks()
    last = [time.monotonic()]

    def tick():
        now = time.monotonic()
        _probe["lags"].append(max(0.0, now - last[0] - interval))
        last[0] = now

    _probe["loop"] = task.LoopingCall(tick)
    _probe["loop"].start(interval, now=False)
    _probe["stop"] = threading.Event()
    _probe["samples"] = []
    _probe["sampler"] = threading.Thread(
        target=_sampler,
        args=(threading.main_thread().ident, _probe["stop"], _probe["samples"], 0.005),
        daemon=True,
    )
    _probe["sampler"].start()
    for owner, name, label in (
        (service, "start_turn", "service.start_turn (all of it)"),
        (service, "turn_input_for", "service.turn_input_for (the reactor's gathering)"),
        (service, "turn_refusal", "service.turn_refusal"),
        (service, "detect_manipulation", "service.detect_manipulation"),
        (service, "player_line", "service.player_line"),
        (service, "clean_text", "service.clean_text"),
        (service, "defer_interactive", "service.defer_interactive (the worker's submission)"),
        (conversations, "conversation_id_for", "conversations.conversation_id_for"),
        (store, "generation", "store.generation"),
        (clock, "current_game_day", "clock.current_game_day"),
        (service.knowledge, "view_for", "knowledge.view_for"),
        (conversations, "touch_conversation", "conversations.touch_conversation"),
        (conversations, "add_turn", "conversations.add_turn"),
        (service, "_turn_in_worker", "worker: the whole job"),
        (service, "line_vectors", "worker: embed the line"),
        (service, "line_vectors_soon", "service.line_vectors_soon (start the line's embedding)"),
        (service, "run_turn", "worker: run_turn (retrieve, LLM call, parse)"),
        (LLMClient, "chat", "worker: LLMClient.chat (httpx round trip)"),
        (turn, "guarded_turn", "worker: turn.guarded_turn"),
        (turn, "retrieve_context", "worker: turn.retrieve_context"),
        (turn, "build_messages", "worker: turn.build_messages"),
        (turn, "note_the_line", "worker: turn.note_the_line"),
        (turn, "ask_until_heard", "worker: turn.ask_until_heard (call + guard)"),
        (turn, "cleaned_reply", "worker: turn.cleaned_reply"),
        (turn, "final_line", "worker: turn.final_line"),
        (service, "said_text", "worker: service.said_text"),
        (service, "build_context", "service.build_context"),
        (fulltext, "lexical_hits", "fulltext.lexical_hits"),
        (service, "apply_turn", "service.apply_turn (writes + say)"),
        (service, "_say_thinking", "service._say_thinking"),
        (store, "cached_index", "store.cached_index"),
        (store, "install_index", "store.install_index"),
        (notes_store, "reflection_records", "notes_store.reflection_records"),
        (commands.CmdSay, "func", "CmdSay.func (say + start_turn)"),
        (CmdLook, "func", "CmdLook.func (inside the look trace)"),
        (daily, "forget", "daily.forget"),
        (daily, "diary_job", "daily.diary_job (claim + signals)"),
        (daily, "day_signals", "daily.day_signals"),
        (daily, "reflection_job", "daily.reflection_job (claim + input)"),
        (daily, "reflection_targets", "daily.reflection_targets"),
        (llm_usage, "record_usage", "usage.record_usage"),
        (movement, "run_decision_tick", "movement.run_decision_tick"),
    ):
        _timed(owner, name, label)
    _timed_until_done(
        OnnxMiniLMEmbedder, "embed_soon", "onnxruntime's thread: the line's vector (start to end)"
    )
    _reply(caller, {"probe": "started"})


def probe_stop():
    if not _probe:
        return
    _probe["loop"].stop()
    _probe["stop"].set()
    _probe["sampler"].join(1)
    for owner, name, original in reversed(_probe["patched"]):
        setattr(owner, name, original)


def _pct(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def _ms(values):
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "total_s": round(sum(values), 3),
        "median_ms": round(_pct(values, 50) * 1000, 2),
        "p95_ms": round(_pct(values, 95) * 1000, 2),
        "max_ms": round(max(values) * 1000, 1),
    }


IDLE = ("epollreactor:EPollReactor.doPoll", "pollreactor:PollReactor.doPoll")


def _profile(samples, top=25):
    """What the reactor thread did while not waiting in epoll, by contrib entry and leaf."""
    busy = [s for s in samples if not (s and s[0].endswith(IDLE))]
    by_ours, by_leaf, pairs = Counter(), Counter(), Counter()
    for stack in busy:
        ours = [f for f in stack if f.startswith("omniira_evennia")]
        # The outermost contrib frame says which feature it is; the innermost where it spends.
        entry = ours[-1] if ours else "(not omniira: " + _outer_evennia(stack) + ")"
        inner = ours[0] if ours else ""
        by_ours[entry] += 1
        by_leaf[stack[0]] += 1
        pairs[f"{entry} > {inner} > {stack[0]}" if inner else f"{entry} > {stack[0]}"] += 1
    total = len(samples) or 1

    def share(counter):
        return [
            {"where": k, "samples": v, "share_of_time": round(v / total, 4)}
            for k, v in counter.most_common(top)
        ]

    return {
        "samples": len(samples),
        "busy_share": round(len(busy) / total, 4),
        "by_contrib_entry": share(by_ours),
        "by_leaf": share(by_leaf),
        "by_path": share(pairs),
    }


def _outer_evennia(stack):
    """A name for reactor work outside the contrib: the outermost command or handler frame."""
    for frame in reversed(stack):
        if ".func" in frame or "Cmd" in frame:
            return frame
    for frame in stack:
        if frame.startswith("evennia.") and "twisted" not in frame:
            return frame
    return stack[-1] if stack else "?"


def _npcs_by_room():
    """Where the NPCs are now (the demo's own walk their schedules): names, or a count."""
    rooms = {}
    for key in ROOMS.values():
        npcs = [o.key for o in _room_named(key).contents if getattr(o, "is_omniira_npc", False)]
        rooms[key] = npcs if len(npcs) <= 20 else len(npcs)
    return rooms


def _room_named(key):
    return [obj for obj in search_object(key) if obj.location is None][0]


def _settings():
    from omniira_evennia.conf import get_settings

    conf = get_settings()
    return {
        name: getattr(conf, name)
        for name in (
            "WORKER_THREADS",
            "INTERACTIVE_THREADS",
            "BACKGROUND_THREADS",
            "ROLLOVER_CONCURRENCY",
            "THINKING_DELAY",
            "TICK_SECONDS",
            "DECISION_TICK_SECONDS",
            "RETRIEVAL_MODE",
        )
    }


def probe_report(caller):
    """Stop the probe and answer with what it measured."""
    probe_stop()
    from django.conf import settings

    # Too long for one telnet line: the look trace goes to a file the benchmark reads.
    with open(f"{settings.GAME_DIR}/server/logs/bench_looks.json", "w") as fh:
        json.dump(_probe.get("looks", []), fh)
    threads = _cpu_by_thread_name(_probe.get("threads", {}), _thread_cpu())
    lags = _probe.get("lags", [])
    elapsed = time.monotonic() - _probe.get("started", time.monotonic())
    report = {
        "seconds": round(elapsed, 1),
        "reactor_lag": {
            **_ms(lags),
            "over_50ms": sum(1 for lag in lags if lag > 0.05),
            "over_100ms": sum(1 for lag in lags if lag > 0.1),
        },
        "timers": {k: _ms(v) for k, v in _probe.get("timers", {}).items() if v},
        "profile": _profile(_probe.get("samples", [])),
        "cpu_s_by_thread": threads,
        "health": health.snapshot(),
        "settings": _settings(),
        "npcs_at_end": _npcs_by_room(),
    }
    _reply(caller, report)


# ---------------------------------------------------------------- rollover


def row_counts():
    from omniira_evennia.models import (
        ConversationTurn,
        DailyWork,
        DiaryEntry,
        LLMUsage,
        Memory,
        Reflection,
    )

    return {
        "diary_entries": DiaryEntry.objects.count(),
        "reflections": Reflection.objects.count(),
        "llm_usage": LLMUsage.objects.count(),
        "daily_work": DailyWork.objects.count(),
        "memories": Memory.objects.count(),
        "conversation_turns": ConversationTurn.objects.count(),
    }


def counts(caller):
    _reply(caller, row_counts())


def rollover(caller):
    """Run today's rollover; answer with its summary and the rows it left."""
    started = time.monotonic()

    def done(summary):
        _reply(
            caller,
            {"summary": summary, "seconds": time.monotonic() - started, "rows": row_counts()},
        )

    def failed(failure):
        _reply(caller, {"error": failure.getErrorMessage()})

    omniira_evennia.run_rollover().addCallbacks(done, failed)

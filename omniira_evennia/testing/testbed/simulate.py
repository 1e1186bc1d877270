"""
The headless simulation driver and its report.

A simulated day, for each game day 1..N (the game clock is patched, nothing waits):

1. 09:00 - each scripted player visits a few NPCs and says two seeded lines to each, through
   `service.start_turn` (as the `talk` command does); leaving ends the conversation, which is
   extracted (`social.end_conversation_with`); on day 1 the first player also tells the first
   NPC a piece of news about a third party (NEWS), and the first NPC is given PLANTED_FACT;
2. 14:00 - `gossip_rounds` times: the NPCs are shuffled across the rooms (movement) and every
   pair sharing a room talks (`social.gossip_round`), unless gossip is switched off;
3. 23:00 - the diffusion probes are counted, then the day's rollover runs
   (`daily.run_rollover`: reflections and diaries).

Everything runs through the contrib's real code with `runner.run_inline(True)`, so Deferreds
fire at once; the LLM is whatever the tiers point at (the deterministic server by default).

Ablations (`SimConfig.off`) map to settings: self_tagging -> SELF_TAGGING False,
provenance_weighting -> HEARSAY_WEIGHT 1.0, feeling_weighting -> FEELING_WEIGHT 1.0,
autobiography -> DIARIES False, reflection -> REFLECTIONS False, gossip -> no gossip rounds.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from unittest import mock

# TALK, PLAYERS, build_world and shuffle_npcs are also bench/long_run.py's, imported from here.
from omniira_evennia.testing.testbed.measures import (
    LIE,
    LIE_CUES,
    NEWS,
    NEWS_CUES,
    PLANTED_CUES,
    PLANTED_FACT,
    TALK,
    last_usage_id,
    passed_on,
    probe_holders,
    usage_by_tier,
)
from omniira_evennia.testing.testbed.world import PLAYER_LINES, PLAYERS, build_world, shuffle_npcs

EXTENSIONS = (
    "self_tagging",
    "provenance_weighting",
    "gossip",
    "feeling_weighting",
    "autobiography",
    "reflection",
)


@dataclass
class SimConfig:
    days: int = 3
    npcs: int = 6
    players: int = 2
    seed: int = 1
    off: frozenset = frozenset()
    probe: bool = True  # plant a fact in one NPC on day 1 and follow it
    liar: bool = False  # one NPC plants a false rumour on day 1
    visits: int = 3  # NPCs each player talks to per day
    lines_per_visit: int = 2
    gossip_rounds: int = 2  # shuffles + talks per day
    rooms: int | None = None  # default: one room per three NPCs (2-4)
    progress: bool = False
    extra_settings: dict = field(default_factory=dict)  # merged into OMNIIRA

    def __post_init__(self):
        self.off = frozenset(self.off)
        unknown = self.off - set(EXTENSIONS)
        if unknown:
            raise ValueError(f"unknown extension(s): {', '.join(sorted(unknown))}")


def ablation_settings(off) -> dict:
    """The OMNIIRA settings for a set of switched-off extensions."""
    return {
        "SELF_TAGGING": "self_tagging" not in off,
        "HEARSAY_WEIGHT": 1.0 if "provenance_weighting" in off else 0.8,
        "FEELING_WEIGHT": 1.0 if "feeling_weighting" in off else 1.1,
        "DIARIES": "autobiography" not in off,
        "REFLECTIONS": "reflection" not in off,
        # The ticker never runs headless; rounds are driven below (or not, with gossip off).
        "GOSSIP_INTERVAL_SECONDS": 0,
        "THINKING_DELAY": 0,
    }


@contextlib.contextmanager
def game_clock():
    """Patch Evennia's game time; `set(day, hour)` moves it (day 1 starts at 00:00)."""
    state = {"seconds": 0.0}

    def _gametime(absolute=False):
        return state["seconds"]

    class Clock:
        @staticmethod
        def set(day: int, hour: float = 0.0):
            state["seconds"] = (day - 1) * 86400 + hour * 3600

    with mock.patch("evennia.utils.gametime.gametime", _gametime):
        yield Clock


class Progress:
    """tqdm when asked for and installed, else nothing."""

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, unit="step", desc="simulating")
            except ImportError:  # the testbed extra is optional
                self.bar = None

    def step(self, label: str):
        if self.bar is not None:
            self.bar.set_postfix_str(label)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------- the run


@contextlib.contextmanager
def headless_settings(tiers: dict | None, settings_on_top: dict, embedder=None):
    """The settings a headless run uses (the product's, `tiers`, the testbed's switches and
    `settings_on_top`), every cache dropped before and after, the Deferreds run inline;
    yields the patched game clock. Shared by the testbed and bench/long_run.py."""
    from django.conf import settings
    from django.test import override_settings

    from omniira_evennia import conf
    from omniira_evennia.llm import client as llm
    from omniira_evennia.memory import embeddings
    from omniira_evennia.memory import service as memory_service
    from omniira_evennia.runtime import health, runner

    omniira = dict(getattr(settings, "OMNIIRA", {}) or {})
    if tiers is not None:
        omniira["TIERS"] = tiers
    omniira.update(settings_on_top)
    previous_embedder = embeddings._embedder
    runner.run_inline(True)
    with override_settings(OMNIIRA=omniira), game_clock() as clock:
        conf.reset_settings()
        llm.reset_client()
        memory_service.invalidate()
        health.reset()
        if embedder is not None:
            embeddings.set_embedder(embedder)
        try:
            yield clock
        finally:
            embeddings.set_embedder(previous_embedder)
            conf.reset_settings()
            llm.reset_client()
            memory_service.invalidate()


def run_simulation(cfg: SimConfig, tiers: dict | None = None, embedder=None) -> dict:
    """
    Run the simulation in the current database and return the report. `tiers` are the OMNIIRA
    TIERS to use (default: whatever the settings hold); `embedder` replaces the configured one.
    """
    on_top = {**ablation_settings(cfg.off), **cfg.extra_settings}
    with headless_settings(tiers, on_top, embedder) as clock:
        return _run(cfg, clock)


def _run(cfg: SimConfig, clock) -> dict:
    started = time.monotonic()
    rng = random.Random(cfg.seed)
    clock.set(1, 8)
    rooms, npcs, players = build_world(cfg, rng)
    first_usage = last_usage_id()
    probes: dict = {}
    per_day = []
    progress = Progress(cfg.days * 3, cfg.progress)
    for day in range(1, cfg.days + 1):
        clock.set(day, 9)
        if day == 1:
            probes = _plant_probes(cfg, npcs, players)
        per_day.append(
            _simulate_day(cfg, clock, rng, day, (rooms, npcs, players), probes, progress)
        )
    progress.close()
    report = _report(cfg, (rooms, npcs, players), per_day, probes, first_usage)
    report["seconds"] = round(time.monotonic() - started, 2)
    return report


def _plant_probes(cfg: SimConfig, npcs, players) -> dict:
    """Day 1: the planted fact, the news told by a player and the liar's rumour, as probes."""
    from omniira_evennia import api
    from omniira_evennia.conversation import service as conversation_lifecycle
    from omniira_evennia.conversation.service import start_turn

    probes: dict = {}
    if cfg.probe:
        holder = npcs[0]
        api.remember(holder, players[0], PLANTED_FACT, key="planted_fact", importance=9)
        probes["fact"] = {
            "value": PLANTED_FACT,
            "cues": PLANTED_CUES,
            "origin": holder.key,
            "origin_id": holder.id,
        }
        teller, listener = players[0], npcs[0]
        teller.move_to(listener.location, quiet=True, move_type="teleport")
        start_turn(listener, teller, NEWS)
        conversation_lifecycle.close_conversations_with(listener, teller, "left")
        probes["news"] = {
            "value": NEWS,
            "cues": NEWS_CUES,
            "origin": listener.key,
            "origin_id": listener.id,
        }
    if cfg.liar:
        liar = npcs[-1]
        subject = players[1] if len(players) > 1 else players[0]
        api.remember(liar, subject, LIE, key="rumour", importance=9, feeling="anger")
        probes["lie"] = {
            "value": LIE,
            "cues": LIE_CUES,
            "origin": liar.key,
            "origin_id": liar.id,
            "lie": True,
        }
    return probes


def _simulate_day(cfg: SimConfig, clock, rng, day: int, world, probes: dict, progress) -> dict:
    """One game day (visits, gossip, the probes counted, the rollover) and its numbers."""
    from omniira_evennia.conversation import service as conversation_lifecycle
    from omniira_evennia.conversation.service import start_turn
    from omniira_evennia.models import ConversationTurn
    from omniira_evennia.rollover import service as daily
    from omniira_evennia.runtime import health
    from omniira_evennia.social import service as social

    rooms, npcs, players = world
    npc_ids = [n.id for n in npcs]
    day_usage = last_usage_id()
    tags_before = health.get("tags_remember")
    turns_before = ConversationTurn.objects.filter(npc_id__in=npc_ids, role="npc").count()

    # 1. players visit NPCs
    for player in players:
        for npc in rng.sample(npcs, min(cfg.visits, len(npcs))):
            player.move_to(npc.location, quiet=True, move_type="teleport")
            for line in rng.sample(PLAYER_LINES, cfg.lines_per_visit):
                start_turn(npc, player, line)
            conversation_lifecycle.close_conversations_with(npc, player, "left")
        player.move_to(rooms[0], quiet=True, move_type="teleport")
    progress.step(f"day {day}: visits")

    # 2. NPCs move about and gossip
    clock.set(day, 14)
    exchanges = 0
    for _ in range(cfg.gossip_rounds):
        shuffle_npcs(npcs, rooms, rng)
        if "gossip" not in cfg.off:
            exchanges += len(social.gossip_round(budget=len(npcs)))
    progress.step(f"day {day}: gossip")

    # 3. count the probes, then the night's rollover
    clock.set(day, 23)
    spread = {}
    for name, probe in probes.items():
        holders, _copies = probe_holders(npc_ids, probe)
        spread[name] = {"holders": len(holders), "fraction": round(len(holders) / len(npcs), 3)}
    rollover = {}
    daily.run_rollover(day, npcs=npcs).addCallback(rollover.update)
    progress.step(f"day {day}: rollover")
    counted = {
        "npc_conversations": exchanges,
        "probes": spread,
        "rollover": {k: rollover.get(k) for k in ("jobs", "reflection_jobs", "written")},
    }
    return _day_numbers(day, npc_ids, players, (turns_before, tags_before, day_usage), counted)


def _day_numbers(day, npc_ids, players, before: tuple, counted: dict) -> dict:
    """The rows and calls one day made (`before`: the turns, tags and usage id at its start)."""
    from omniira_evennia.models import ConversationTurn, DiaryEntry, Memory, Reflection
    from omniira_evennia.runtime import health

    turns_before, tags_before, day_usage = before
    npc_lines = ConversationTurn.objects.filter(npc_id__in=npc_ids, role="npc")
    npc_turns = npc_lines.count() - turns_before
    player_replies = npc_lines.filter(game_day=day, speaker_id__in=[p.id for p in players]).count()
    self_tags = health.get("tags_remember") - tags_before
    return {
        "day": day,
        "npc_lines": npc_turns,
        "player_replies": player_replies,
        "self_tags": self_tags,
        "self_tag_rate": round(self_tags / player_replies, 3) if player_replies else 0.0,
        "npc_conversations": counted["npc_conversations"],
        "probes": counted["probes"],
        "memory_rows": Memory.objects.filter(npc_id__in=npc_ids).count(),
        "hearsay_rows": Memory.objects.filter(npc_id__in=npc_ids, provenance__isnull=False).count(),
        "reflections": Reflection.objects.filter(npc_id__in=npc_ids, game_day=day).count(),
        "diary_entries": DiaryEntry.objects.filter(npc_id__in=npc_ids, game_day=day).count(),
        "llm_by_tier": usage_by_tier(day_usage, npc_ids),
        "rollover": counted["rollover"],
    }


def _diffusion(probes: dict, per_day: list, npc_ids, names: dict) -> dict:
    """How far each probe travelled, day by day, and through how many hops."""
    diffusion = {}
    for name, probe in probes.items():
        holders, copies = probe_holders(npc_ids, probe)
        entry = {
            "value": probe["value"],
            "cues": [list(group) for group in probe["cues"]],
            "copies_as_told": sorted({c["value"] for c in copies}),
            "origin": probe["origin"],
            "fraction_by_day": [d["probes"][name]["fraction"] for d in per_day],
            "holders_by_day": [d["probes"][name]["holders"] for d in per_day],
            "final_holders": sorted(names[i] for i in holders),
            "copies": len(copies),
            "chain_lengths": dict(sorted(Counter(c["hops"] for c in copies).items())),
            "max_chain": max((c["hops"] for c in copies), default=0),
        }
        if probe.get("lie"):
            entry["lie"] = True
            traced = [bool(c["chain"]) and c["chain"][0] == probe["origin_id"] for c in copies]
            entry["copies_traced_to_origin"] = sum(traced)
            # None, not True, when no copy exists: nothing was traced.
            entry["traceable"] = all(traced) if traced else None
        diffusion[name] = entry
    return diffusion


def _config_of(cfg: SimConfig, rooms) -> dict:
    return {
        "days": cfg.days,
        "npcs": cfg.npcs,
        "players": cfg.players,
        "seed": cfg.seed,
        "off": sorted(cfg.off),
        "on": [e for e in EXTENSIONS if e not in cfg.off],
        "probe": cfg.probe,
        "liar": cfg.liar,
        "visits": cfg.visits,
        "lines_per_visit": cfg.lines_per_visit,
        "gossip_rounds": cfg.gossip_rounds,
        "rooms": [r.key for r in rooms],
    }


def _report(cfg: SimConfig, world, per_day: list, probes: dict, first_usage: int) -> dict:
    from omniira_evennia.models import Conversation, DiaryEntry, Memory, Reflection, Source
    from omniira_evennia.runtime import health

    rooms, npcs, players = world
    npc_ids = [n.id for n in npcs]
    names = {o.id: o.key for o in [*npcs, *players]}
    memories = Memory.objects.filter(npc_id__in=npc_ids)
    by_source = Counter(memories.values_list("source", flat=True))
    rows_per_npc = Counter(memories.values_list("npc_id", flat=True))
    hearsay = list(memories.filter(provenance__isnull=False).values_list("hops", flat=True))
    llm_total = usage_by_tier(first_usage, npc_ids)
    npc_days = len(npcs) * cfg.days
    replies = sum(d["player_replies"] for d in per_day)
    self_tags = sum(d["self_tags"] for d in per_day)
    return {
        "config": _config_of(cfg, rooms),
        "per_day": per_day,
        "self_tag_cadence": {
            "self_tags": self_tags,
            "player_replies": replies,
            "tags_per_reply": round(self_tags / replies, 3) if replies else 0.0,
            "ignored_tags": health.get("tags_ignored"),
            "by_day": [d["self_tag_rate"] for d in per_day],
        },
        "gossip": {
            "npc_conversations": sum(d["npc_conversations"] for d in per_day),
            "items_written": health.get("gossip_items_written"),
            "items_rejected": health.get("gossip_items_rejected"),
            "chain_lengths": dict(sorted(Counter(hearsay).items())),
            "talk_passed_on": sorted(
                {r["value"] for r in passed_on(npc_ids) if TALK.search(r["value"])}
            ),
        },
        "diffusion": _diffusion(probes, per_day, npc_ids, names),
        "llm": {
            "by_tier": llm_total,
            "per_npc_day": {
                tier: {
                    "calls": round(v["calls"] / npc_days, 3),
                    "tokens": round((v["tokens_in"] + v["tokens_out"]) / npc_days, 1),
                    "cost_usd": round(v["cost_usd"] / npc_days, 6),
                }
                for tier, v in llm_total.items()
            },
            "failed_calls": health.get("llm_errors"),
        },
        "memory": {
            "rows": sum(by_source.values()),
            "by_source": dict(sorted(by_source.items())),
            "self_rows": by_source.get(Source.SELF, 0),
            "hearsay_rows": len(hearsay),
            "per_npc": {names[i]: rows_per_npc.get(i, 0) for i in npc_ids},
            "reflections": Reflection.objects.filter(npc_id__in=npc_ids).count(),
            "diary_entries": DiaryEntry.objects.filter(npc_id__in=npc_ids).count(),
            "conversations": Conversation.objects.filter(npc_id__in=npc_ids).count(),
        },
        "health": health.snapshot(),
    }

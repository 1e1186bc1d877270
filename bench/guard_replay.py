"""
Replay the first replies a dialogue evaluation stored (`bench/results/dialogue_eval_*.json`,
each reply's `raw`) through today's voice guard, without a model: which rule would send each
back to the model for a second try (`guard.voice_problem`), counted by rule, with the lines.

A second try costs a reply its time again and, when it fails too, ends in a plain line; this
shows, in a second, what a change to the rules does to how often that happens on replies a
real model wrote. It is a tuning tool: a seed's replies replayed here are tuned on, so that
seed is never reported again (docs/benchmarks.md).

    python bench/guard_replay.py bench/results/dialogue_eval_heldout_71359.json [...] [--lines]
        [--final]   (the replies as players met them, after that run's guard)

What it cannot rebuild is approximated: the NPC's role from the demo, the demo's open facts
for that NPC as the knowledge shown (every one, where a turn shows those its line brings to
mind) and its own facts about itself as its own life, no never-told topic, and the day's
history from the replies as they were said.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from omniira_evennia.conversation import guard  # noqa: E402
from omniira_evennia.conversation.prompts import (  # noqa: E402
    Identity,
    MemoryLine,
    PromptContext,
    Turn,
)
from omniira_evennia.conversation.reminders import mended_rather_than_asked  # noqa: E402
from omniira_evennia.conversation.tags import ParsedReply  # noqa: E402
from omniira_evennia.conversation.turn import cleaned_reply  # noqa: E402
from omniira_evennia.knowledge.facts import KnowledgeLine, written_to_it  # noqa: E402

DEMO_KNOWLEDGE = ROOT / "game_template" / "world" / "knowledge.json"

DEMO_ROLES = {
    "Maren": "tavern keeper",
    "Voss": "blacksmith",
    "Wren": "herbalist",
    "Lyra": "travelling bard",
}


@functools.lru_cache(maxsize=1)
def _demo_entries() -> tuple[dict, ...]:
    """The demo's knowledge file, read once (every replayed reply builds its context from it)."""
    return tuple(json.loads(DEMO_KNOWLEDGE.read_text())["knowledge"])


def demo_facts(npc: str) -> list[KnowledgeLine]:
    """The demo's facts an NPC may be shown: the world's, its rooms' and its own, no secret
    and no topic it will not discuss."""
    entries = _demo_entries()
    return [
        KnowledgeLine(e["text"], e.get("category", ""))
        for e in entries
        if not e.get("secret")
        and not e.get("wont_discuss")
        and e.get("scope", "world") in ("world", f"npc:{npc}")
        or str(e.get("scope", "")).startswith("room:")
        and not e.get("secret")
    ]


def demo_own_life(npc: str) -> list[str]:
    """The demo NPC's own facts about itself, as a turn's `own_life` holds them
    (knowledge.answers.own_life): its own scope, people, written to it."""
    entries = _demo_entries()
    return [
        e["text"]
        for e in entries
        if e.get("scope") == f"npc:{npc}"
        and e.get("category") == "people"
        and not e.get("secret")
        and written_to_it(e["text"])
    ]


def first_reply_as_cleaned(raw: str, ctx: PromptContext) -> str:
    """The model's first reply as the turn cleans it before the guard reads it (the stored
    runs used the lean speech prompt)."""
    turn = SimpleNamespace(npc_id=0)  # cleaned_reply reads only its id, for its log lines
    return cleaned_reply(raw, "speech", turn, ctx)[0].text


MENDED = "(of them mended in place, not asked again)"  # reminders.mended_rather_than_asked


def kept_memories(record: dict, reply: dict) -> list[MemoryLine]:
    """What the NPC of `reply` kept of its speaker by the run's end, for a reply after the
    restart (the run's record holds no earlier state): the player's memories when they ask back,
    the newcomer's when a newcomer asks."""
    if reply["day"] < 2:
        return []
    held = record.get("memories", {}).get(reply["scenario"], {})
    who = "newcomer" if reply["phase"] == "newcomer" else "player"
    return [MemoryLine(m["value"]) for m in held.get(who, [])]


def replay(
    paths: list[str], final: bool = False
) -> tuple[int, collections.Counter, dict[str, list]]:
    """(replies replayed, count by problem, the lines of each problem); with `final`, the
    replies as the players met them (after the guard of that run) rather than the first."""
    counts: collections.Counter = collections.Counter()
    lines: dict[str, list] = collections.defaultdict(list)
    total = 0
    for path in paths:
        history: dict[tuple, list[Turn]] = collections.defaultdict(list)
        record = json.loads(Path(path).read_text())["record"]
        for r in record["replies"]:
            day = (r["scenario"], r["day"])
            ctx = PromptContext(
                identity=Identity(r["npc"], DEMO_ROLES.get(r["npc"], "")),
                speaker_name=r["speaker"],
                message=r["said"],
                history=list(history[day]),
                knowledge=demo_facts(r["npc"]),
                own_life=demo_own_life(r["npc"]),
                memories=kept_memories(record, r),
            )
            raw = r.get("reply") if final else r.get("raw")
            text = first_reply_as_cleaned(raw or "", ctx)
            problem = guard.voice_problem(ParsedReply(text=text), ctx, None) or "kept"
            total += 1
            counts[problem] += 1
            if problem != "kept" and mended_rather_than_asked(text, r["said"]):
                counts[MENDED] += 1
            if problem != "kept":
                lines[problem].append((r["phase"], r["said"], text))
            history[day] += [Turn("user", r["said"]), Turn("assistant", r["reply"])]
    return total, counts, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="dialogue_eval result files")
    parser.add_argument("--lines", action="store_true", help="print each flagged reply")
    parser.add_argument(
        "--final", action="store_true", help="replay the replies players met, not the first"
    )
    args = parser.parse_args()
    total, counts, lines = replay(args.results, args.final)
    kind = "replies as met" if args.final else "first replies"
    slipped = total - counts["kept"]
    print(f"{total} {kind}; slipped: {slipped}, asked for again: {slipped - counts[MENDED]}")
    for problem, n in counts.most_common():
        print(f"{n:5d}  {problem}")
    if args.lines:
        for problem, found in lines.items():
            print(f"\n== {problem}")
            for phase, said, text in found:
                print(f"  [{phase}] {said}\n      -> {text}")


if __name__ == "__main__":
    main()

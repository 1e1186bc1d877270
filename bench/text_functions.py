"""
Benchmark: every text function that takes player or model text, on adversarial inputs of the
largest length it is ever given (issue #26: a 6 KB reply of link fragments froze every player
for 18.7 s, a `say` of bracket pairs for 6.7 s).

Each function is run on each family of hostile text (repeated markup fragments, bracket runs,
tag openings, digit groups, long letter runs, e-mail-like runs, whitespace, mixed) cut to the
function's maximum input: a reply's raw text is cut to `tags.REPLY_MAX_CHARS` (4,000), a
player's line to MAX_MESSAGE_CHARS (1,000), a spoken line to the policy's "line" limit (800),
a stored value to 500. The worst of several runs per pair is reported, in CPU time of the
calling thread (a shared machine's preemption is not the function's); the target is 5 ms.

    .venv/bin/python bench/text_functions.py [--repeat 5] [--out bench/results/text_functions.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

TARGET_MS = 5.0

FAMILIES = {
    "link fragments": "|lc",
    "link pairs": "|lcx|lt",
    "url links": "|lu http://x |lt",
    "pipes": "||",
    "colour codes": "|[#ff0|r",
    "mxp tags": "<a ",
    "mxp send": "<send href=",
    "escapes": "\x1b[0;",
    "bracket pairs": "[[]]",
    "open brackets": "[[",
    "tag openings": "[[REMEMBER:",
    "bare tags": 'REMEMBER:{"',
    "nested json": '[[REMEMBER:{"a":[',
    "digit dashes": "12-34-56-",
    "digit spaces": "1 2 3 ",
    "phone-like": "555-1234 ",
    "plus numbers": "+1 (",
    "letters": "a",
    "words": "abcdefghij ",
    "email-like": "a@",
    "dots": "a.",
    "spaces": " ",
    "newlines": "\n \n",
    "bidi": "\u202e\u200b",
    "names": "Maren, Ada ",
    "mixed": '|lc[[REMEMBER:{"v":"12-34 a@b |lt<a ',
}


def hostile(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def functions():
    """(name, max input length, callable taking one text) for every text function."""
    import django

    django.setup()
    from omniira_evennia.conversation import (
        addressing,
        claims,
        extraction,
        guard,
        prompts,
        repairs,
        tags,
        topics,
        voice,
    )
    from omniira_evennia.knowledge import contradiction
    from omniira_evennia.memory import grounding, policy, safety, sameness, verbatim
    from omniira_evennia.social import gossip
    from omniira_evennia.vocabulary import defang_tags

    reply = tags.REPLY_MAX_CHARS
    line = policy.LIMITS["line"]
    player = policy.LIMITS["player_line"]
    value = policy.LIMITS["memory"]
    names = ["Maren", "Old Tom", "Ada"]
    return [
        ("tags.parse_reply (a reply)", reply, tags.parse_reply),
        ("tags.parse_structured_reply (a reply)", reply, tags.parse_structured_reply),
        ("tags.clean_text (a player's line)", player, tags.clean_text),
        ("vocabulary.defang_tags", reply, defang_tags),
        ("policy.police line", reply, lambda t: policy.police(t, "line")),
        ("policy.police player_line", player, lambda t: policy.police(t, "player_line")),
        ("policy.police memory", value * policy.RAW_FACTOR, lambda t: policy.police(t, "memory")),
        ("safety.redact_pii", reply, safety.redact_pii),
        ("safety.neutralize_markup strip", reply, safety.neutralize_markup),
        ("safety.neutralize_markup colour", reply, lambda t: safety.neutralize_markup(t, "colour")),
        ("safety.detect_manipulation", reply, safety.detect_manipulation),
        ("safety.strip_controls", reply, safety.strip_controls),
        ("safety.unwrap_links (a player's input)", 6000, safety.unwrap_links),
        ("addressing.addressed_name", player, lambda t: addressing.addressed_name(t, names)),
        ("addressing.is_goodbye", player, addressing.is_goodbye),
        ("guard.is_echo (reply vs line)", line, lambda t: guard.is_echo(t, t[::-1], "Ada")),
        ("guard.speaks_as", line, lambda t: guard.speaks_as(t, "Ada")),
        ("prompts.is_narration", line, lambda t: prompts.is_narration(t, "Maren")),
        ("prompts.gloss", player, lambda t: prompts.gloss(t, "Ada", "Maren")),
        (
            "prompts.strip_character_breaks",
            line,
            lambda t: prompts.strip_character_breaks(t, "Maren", "Ada"),
        ),
        (
            "claims.give_back_claims",
            line,
            lambda t: claims.give_back_claims(t, [t[:player]], [t[:value]], "Ada", "Maren"),
        ),
        ("extraction.third_person", value, lambda t: extraction.third_person(t, "Ada")),
        (
            "grounding.ground",
            value,
            lambda t: grounding.ground(t, [t[::-1]] * 40, subject="Ada", npc="Maren"),
        ),
        ("extraction.names_in", player, lambda t: extraction.names_in("Ada", t)),
        ("verbatim.words", player, verbatim.words),
        ("gossip.names", line, lambda t: gossip.names(t, "Ada")),
        (
            "gossip.in_the_others_words",
            value,
            lambda t: gossip.in_the_others_words(t, t[::-1], t, "Ada"),
        ),
        ("gossip.told_as_news", line, lambda t: gossip.told_as_news(t, None)),
        ("voice.slips", line, lambda t: voice.slips(t, t[:player], "Maren", "Ada")),
        (
            "repairs.without_slips",
            line,
            lambda t: repairs.without_slips(t, t[:player], "Maren", "Ada"),
        ),
        ("voice.restates", line, lambda t: voice.restates(t, t[:player], "Maren", "Ada")),
        ("topics.asked_topic", player, topics.asked_topic),
        (
            "topics.answer_from",
            player,
            lambda t: topics.answer_from(t, [t[:value]] * 8, [t], "Ada"),
        ),
        ("topics.invents", line, lambda t: topics.invents(t, [t[:value]] * 8, "Ada", "Maren")),
        ("sameness.may_restate", value, lambda t: sameness.may_restate(t, t[::-1], "Ada")),
        ("sameness.given_up", value, sameness.given_up),
        (
            "contradiction.find (a reply against 6 facts)",
            line,
            lambda t: contradiction.find(t, [(n, t[:value]) for n in range(6)]),
        ),
    ]


def time_one(func, text: str, repeat: int) -> float:
    """The worst of `repeat` calls, in CPU time of this thread: on a shared machine a call
    preempted for a time slice would count the slice (docs/benchmarks.md)."""
    worst = 0.0
    func(text)  # warm caches and compiled patterns
    for _ in range(repeat):
        start = time.thread_time()
        func(text)
        worst = max(worst, time.thread_time() - start)
    return worst * 1000


def run(repeat: int) -> dict:
    rows = []
    for name, length, func in functions():
        times = {
            family: time_one(func, hostile(unit, length), repeat)
            for family, unit in FAMILIES.items()
        }
        family, worst = max(times.items(), key=lambda item: item[1])
        rows.append(
            {
                "function": name,
                "max_chars": length,
                "worst_ms": round(worst, 3),
                "worst_family": family,
                "ms_by_family": {k: round(v, 3) for k, v in times.items()},
            }
        )
        mark = "ok" if worst <= TARGET_MS else "OVER"
        print(f"{name:42s} {length:5d} chars  worst {worst:8.3f} ms ({family}) {mark}", flush=True)
    over = [row["function"] for row in rows if row["worst_ms"] > TARGET_MS]
    return {
        "date": date.today().isoformat(),
        "load_average": os.getloadavg()[0],
        "target_ms": TARGET_MS,
        "repeat": repeat,
        "functions": rows,
        "over_target": over,
        "worst_ms": max(row["worst_ms"] for row in rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "bench/results/text_functions.json"))
    args = parser.parse_args()
    result = run(args.repeat)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"worst {result['worst_ms']} ms; over {TARGET_MS} ms: {result['over_target'] or 'none'}")


if __name__ == "__main__":
    main()

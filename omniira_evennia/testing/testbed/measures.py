"""What a testbed run measures: who holds a probe's fact, the copies passed on, LLM usage."""

from __future__ import annotations

import re

# The diffusion probes: planted on day 1, counted each night (simulate.py).
PLANTED_FACT = "Ada hid a sealed letter under the third stone of the old bridge."
LIE = "Brannoc poisoned the crossroads well at midnight."
# A real model retells in its own words ("Ada tucked a note beneath the bridge"), so a probe
# is held by an NPC whose memory (key or value) names every cue: one stem of each group.
PLANTED_CUES = (("letter", "note", "message", "envelope", "missive"), ("bridge",))
# News about a third party, told by the first player to the first NPC on day 1 as a line of
# talk (the turn's real path keeps it as knowledge the NPC was told, issue #24).
NEWS = "Harlan the miller fell off his roof mending the thatch and broke his leg."
NEWS_CUES = (("harlan",), ("leg", "roof", "fell", "fall"))
# Talk about who knows what ("Maren doesn't know anything about Corvina") is no news: a copy
# that reads so was passed on wrongly.
TALK = re.compile(
    r"\b(?:does ?n[o']t|do ?n[o']t|did ?n[o']t|never|not)\s+(?:know|remember|recall|hear|heard)\b"
    r"|\bknows? (?:nothing|little|anything)\b|\bhas(?:n't| not)? (?:heard|been told)\b"
    r"|\b(?:asked|wondered|wants to know) (?:about|whether|if|what|who)\b",
    re.IGNORECASE,
)
LIE_CUES = (("poison", "taint", "contaminat"), ("well",))


def cue_pattern(cues) -> re.Pattern:
    """One regex per probe: every group's stems, in any order (words, case-insensitive)."""
    groups = "".join(
        rf"(?=.*\b(?:{'|'.join(re.escape(stem) for stem in group)})\w*)" for group in cues
    )
    return re.compile(groups, re.IGNORECASE | re.DOTALL)


def _words_of(row) -> str:
    return f"{row['key'].replace('_', ' ')} {row['value']}"  # keys are snake_case


def passed_on(npc_ids) -> list[dict]:
    """Every copy one NPC heard from another: hearsay memories and gossiped knowledge, as
    rows with `npc_id`, `key`, `value`, `hops`, `chain` and `provenance_id` (the teller)."""
    from omniira_evennia.models import Knowledge, Memory

    rows = list(
        Memory.objects.filter(npc_id__in=npc_ids, provenance__isnull=False).values(
            "npc_id", "key", "value", "source", "hops", "chain", "provenance_id"
        )
    )
    for row in Knowledge.objects.filter(npc_id__in=npc_ids, source="gossip").values(
        "npc_id", "key", "text", "source", "hops", "chain", "teller_id"
    ):
        rows.append({**row, "value": row.pop("text"), "provenance_id": row.pop("teller_id")})
    return rows


def probe_holders(npc_ids, probe: dict):
    """NPCs holding the probe's fact in any words (firsthand or hearsay, as a memory or as
    knowledge they were told or heard) and the copies passed on between NPCs."""
    from omniira_evennia.models import Knowledge, Memory

    pattern = cue_pattern(probe["cues"])

    def holds(row):
        return row["value"] == probe["value"] or bool(pattern.match(_words_of(row)))

    held = Memory.objects.filter(npc_id__in=npc_ids).values("npc_id", "key", "value")
    known = Knowledge.objects.filter(npc_id__in=npc_ids).values("npc_id", "key", "text")
    holders = {r["npc_id"] for r in held if holds(r)}
    holders |= {r["npc_id"] for r in known if holds({**r, "value": r["text"]})}
    return holders, [r for r in passed_on(npc_ids) if holds(r)]


def usage_by_tier(since_id: int, npc_ids) -> dict:
    from django.db.models import Count, Sum

    from omniira_evennia.models import LLMUsage

    rows = (
        LLMUsage.objects.filter(id__gt=since_id)
        .values("tier")
        .annotate(
            calls=Count("id"),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
            cost=Sum("cost_usd"),
        )
    )
    return {
        r["tier"]: {
            "calls": r["calls"],
            "tokens_in": r["tokens_in"] or 0,
            "tokens_out": r["tokens_out"] or 0,
            "cost_usd": round(r["cost"] or 0.0, 6),
        }
        for r in rows
    }


def last_usage_id() -> int:
    from omniira_evennia.models import LLMUsage

    return LLMUsage.objects.order_by("-id").values_list("id", flat=True).first() or 0

"""Knowledge passed on: gossip between NPCs, a player's news, world events, the learned cap."""

from __future__ import annotations

import time

from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge import answers, news
from omniira_evennia.knowledge.facts import KnowledgeRecord, scope_token
from omniira_evennia.knowledge.scopes import npc_scope
from omniira_evennia.knowledge.selection import KnowledgeView
from omniira_evennia.knowledge.store import npc_names
from omniira_evennia.knowledge.turn_view import doubt_for, view_for
from omniira_evennia.knowledge.writing import Fact, as_expiry, write_fact, write_later
from omniira_evennia.memory.embeddings import from_blob
from omniira_evennia.models import Knowledge
from omniira_evennia.runtime import health
from omniira_evennia.vocabulary import slug_key


def _lineages(view: KnowledgeView | None) -> set[int]:
    if view is None:
        return set()
    return {r.lineage for g in view.groups for r in g.records} | {
        r.id for g in view.groups for r in g.records
    }


def shareable(teller, listener, conf=None) -> list[KnowledgeRecord]:
    """
    What `teller` may pass on to `listener` (the seed's rules): not guarded, not the world's
    (everyone knows it), not expired, important enough (KNOWLEDGE_GOSSIP_IMPORTANCE), sure
    enough after one more hop (KNOWLEDGE_MIN_CONFIDENCE), fewer than GOSSIP_MAX_HOPS tellings
    from its source, the listener not among its tellers and not knowing it already, not
    written to the NPC as "you". Best first: events, then importance, then confidence.
    """
    conf = conf or get_settings()
    view = view_for(teller, listener, conf=conf)
    if view is None:
        return []
    known = _lineages(view_for(listener, teller, conf=conf))
    now = time.time()
    found = [
        r
        for r in view.shown(now)
        if not r.guard
        and r.scope != "world"
        and r.importance >= conf.KNOWLEDGE_GOSSIP_IMPORTANCE
        and r.confidence - conf.KNOWLEDGE_CONFIDENCE_DECAY >= conf.KNOWLEDGE_MIN_CONFIDENCE
        and r.hops < conf.GOSSIP_MAX_HOPS
        and listener.id not in r.chain
        and r.lineage not in known
        # A fact written to the NPC ("Your forge is on the square") is its own, not news.
        and not answers.addressed_to_npc(r.text)
    ]
    # What happened (an event: news a player told, a world event) before standing lore: it is
    # what people pass on, and one fact a talk (KNOWLEDGE_GOSSIP_PER_TALK) would else be a price.
    return sorted(found, key=lambda r: (r.category != "event", -r.importance, -r.confidence, r.id))


def share(teller, listener, conf=None) -> list[Knowledge]:
    """
    `teller` tells `listener` up to KNOWLEDGE_GOSSIP_PER_TALK facts (`shareable`), each kept
    as the listener's own, heard from the teller: its chain grows by the teller, its
    confidence falls by KNOWLEDGE_CONFIDENCE_DECAY, its expiry and vectors come along.
    """
    conf = conf or get_settings()
    told = []
    for record in shareable(teller, listener, conf)[: conf.KNOWLEDGE_GOSSIP_PER_TALK]:
        source = Knowledge.objects.filter(id=record.id).first()
        if source is None:
            continue
        row = write_fact(
            Fact(
                npc_scope(listener),
                source.text,
                key=source.key,
                category=source.category,
                importance=source.importance,
                expires=source.expires_at,
                topics=tuple(source.topics or ()),
                source="gossip",
                teller=teller,
                chain=(*record.chain, teller.id),
                confidence=round(record.confidence - conf.KNOWLEDGE_CONFIDENCE_DECAY, 3),
                root_id=record.lineage,
                embedding=from_blob(source.embedding),
                topic_embedding=from_blob(source.topic_embedding),
            ),
            embed=False,
        )
        if row is not None:
            told.append(row)
            health.incr("knowledge_gossiped")
    cap_learned(listener, conf.KNOWLEDGE_PER_NPC)
    return told


def hear_news(npc, speaker, line: str, conf=None) -> list:
    """
    News a player tells `npc` about someone else (knowledge/news.py), kept as knowledge it was
    told: "Ada says Harlan the miller broke his leg.", category event, teller the player, the
    confidence of one telling, KNOWLEDGE_NEWS_DAYS game days to live, important enough to pass
    on (KNOWLEDGE_GOSSIP_IMPORTANCE). News against what the NPC knows is not kept (the claim
    is noted as uncertain by the turn); a teller keeps at most KNOWLEDGE_NEWS_PER_TELLER items
    with one NPC (the oldest go). Written off the reactor (`write_later`); Deferreds returned.
    """
    conf = conf or get_settings()
    if not conf.KNOWLEDGE_NEWS_DAYS or not getattr(speaker, "key", ""):
        return []
    items = news.news_in(line, speaker.key, npc.key, set(npc_names()))
    doubt = doubt_for(npc, speaker) if items else None
    pending = []
    for sentence in items:
        if doubt is not None and doubt(sentence):
            continue
        text = news.told_text(speaker.key, sentence)
        fact = Fact(
            npc_scope(npc),
            text,
            key=("news_" + slug_key(sentence))[:60],
            category="event",
            importance=conf.KNOWLEDGE_GOSSIP_IMPORTANCE,
            expires=as_expiry(f"{conf.KNOWLEDGE_NEWS_DAYS} game days"),
            source="told",
            teller=speaker,
            chain=(speaker.id,),
            confidence=round(1.0 - conf.KNOWLEDGE_CONFIDENCE_DECAY, 3),
        )
        health.incr("news_heard")
        pending.append(write_later(fact).addCallback(_keep_news, npc, speaker, conf))
    return pending


def _keep_news(row, npc, speaker, conf):
    """After one more item from `speaker`: their oldest beyond KNOWLEDGE_NEWS_PER_TELLER go."""
    told = Knowledge.objects.filter(
        scope_token=scope_token("npc", npc.id), source="told", teller=speaker
    ).order_by("-created_at", "-id")
    extra = list(told.values_list("id", flat=True)[conf.KNOWLEDGE_NEWS_PER_TELLER :])
    if extra:
        Knowledge.objects.filter(id__in=extra).delete()
    cap_learned(npc, conf.KNOWLEDGE_PER_NPC)
    return row


def witnessed(event, npcs, expires=None, importance=None, category: str = "event") -> list:
    """
    A world event (`rollover.service.log_world_event`) becomes the knowledge of the NPCs who
    saw it (`npcs`, memory NPCs only): one fact each (key `event_<id>`), observed, with the
    builder's expiry (a datetime, a timedelta, seconds, or a span like "3 game days").
    """
    importance = importance or get_settings().KNOWLEDGE_EVENT_IMPORTANCE
    expiry = as_expiry(expires)
    rows = []
    for npc in npcs:
        if not getattr(npc, "is_omniira_npc", False):
            continue
        row = write_fact(
            Fact(
                npc_scope(npc),
                event.text,
                key=f"event_{event.id}",
                category=category,
                importance=importance,
                expires=expiry,
                source="observed",
            )
        )
        if row is not None:
            rows.append(row)
            cap_learned(npc, get_settings().KNOWLEDGE_PER_NPC)
    return rows


def cap_learned(npc, keep: int) -> int:
    """Keep at most `keep` facts an NPC saw or heard (expired first, then the least important,
    then the oldest, go); what a builder wrote is never dropped."""
    rows = Knowledge.objects.filter(scope_token=scope_token("npc", npc.id)).exclude(
        source="authored"
    )
    now = timezone.now()
    expired = list(rows.filter(expires_at__lte=now).values_list("id", flat=True))
    extra = max(0, rows.count() - len(expired) - keep)
    dropped = expired + list(
        rows.exclude(id__in=expired)
        .order_by("importance", "created_at", "id")
        .values_list("id", flat=True)[:extra]
    )
    if dropped:
        Knowledge.objects.filter(id__in=dropped).delete()
    return len(dropped)

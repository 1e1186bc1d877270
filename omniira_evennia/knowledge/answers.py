"""
What a turn does with what the NPC knows (issue #25), as plain functions the turn calls:

- `prompt_lines`: the chosen facts as the prompt shows them, and the won't-discuss topics;
- `doubts` / `doubt_note`: the player's claims against the facts the speaker may be shown
  (`contradiction.find`), and the line that tells the NPC to answer them with doubt;
- `disputes` / `doubting_line`: whether a reply to such a claim doubts it (or says what is
  known) instead of taking it as true, and the NPC's line when it does not;
- `unanswered` / `unknown_note`: a question about the world that nothing the NPC knows or
  sees answers (no fact, place, identity or memory shares a word with it, no fact is close in
  meaning, no category it asks about has a fact); the prompt then says so, and a reply that
  still does not admit it is replaced with the builder's KNOWLEDGE_UNKNOWN_LINE. Only for an
  NPC that knows something: a game with no knowledge keeps its NPCs as they were.

Plain Python and numpy (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re

import numpy as np

from omniira_evennia.knowledge.contradiction import (
    STOP_STEMS,
    Contradiction,
    clauses,
    find,
    first_clash,
    names_in,
    stem,
    stems,
)
from omniira_evennia.knowledge.facts import (
    CATEGORIES,
    CATEGORY_HINTS,
    KnowledgeLine,
    KnowledgeRecord,
    Recalled,
    WontDiscuss,
    is_question,
    written_to_it,
)
from omniira_evennia.knowledge.naming import name_asked, names_in_any
from omniira_evennia.knowledge.selection import KnowledgeView, shown_masks

MAX_CHARS = 1000
_ABOUT_YOU = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
# About the speaker's own life (conversation/voice.py answers those): "my horse", "what do I
# do", "am I", "what frightens me" (telnet trial, 2026-12-08: "It's nothing I've heard of." two
# lines after "I'm terribly afraid of thunder."); "where can I buy a horse?" and "tell me about
# the mill" are about the world.
_ABOUT_ME = re.compile(
    r"\b(?:my|mine|myself)\b|\b(?:do|did|am|was|have|had|can't|cannot|should)\s+i\b"
    r"|\b(?:frighten|scare|terrif(?:y|ie)|worr(?:y|ie)|bother|upset|anger|please|delight|make)s?"
    r"\s+me\b",
    re.IGNORECASE,
)
# Words of a question that name nothing in the world.
_ASKING = set("""tell know heard hear news anything something everything anyone someone everyone
    happen happening happened going good best worst nice like fine much many long far near
    tonight tomorrow yesterday week year day time
    kind sort way place thing things stuff around here there town folk people lately today
    please reckon think new buy sell find need want name call called get got have always
    weather rain raining rainy wet snow wind windy cold warm hot sun sunny storm fog mist
    busy quiet tired""".split())  # the weather and the day are small talk, not facts to know


def prompt_lines(records: list[KnowledgeRecord], view: KnowledgeView | None) -> Recalled:
    """The chosen facts as prompt lines (a rumour with its teller and doubt, a secret the
    speaker may be told marked as one), and the won't-discuss topics that stand."""
    lines = [
        KnowledgeLine(
            text=r.text,
            category=r.category,
            heard_from=r.teller_name if r.source == "gossip" else None,
            confidence=r.confidence,
            secret=bool(r.guard),
            own=r.scope == "npc" and written_to_it(r.text),
        )
        for r in records
    ]
    topics = [
        WontDiscuss(g.topic, g.reply) for g in (view.guards if view is not None else []) if g.topic
    ]
    return Recalled(lines=lines, records=list(records), wont_discuss=topics)


def own_life(view: KnowledgeView | None, now: float | None = None) -> list[str]:
    """The NPC's own facts about itself (its own scope, written to it, no secret), whether or
    not a line brought them up: what it says of its own life is checked against them, and a
    question about its life is answered from them."""
    return [text for text in _own_facts(view, now, "people") if written_to_it(text)]


def own_trade(view: KnowledgeView | None, now: float | None = None) -> list[str]:
    """The NPC's own wares and prices (its own scope, category "trade", no secret): asked its
    prices, they are in front of it whether or not a line brought them up."""
    return _own_facts(view, now, "trade")


def _own_facts(view: KnowledgeView | None, now: float | None, category: str) -> list[str]:
    """The texts of the NPC's own unguarded facts of `category`."""
    if view is None:
        return []
    # Its own scope's groups only: a turn reads this on every line, and the world may be large.
    return [
        r.text
        for r in view.shown(now, scope="npc")
        if r.scope == "npc" and not r.guard and r.category == category
    ]


def doubts(
    view: KnowledgeView | None, line: str, now: float | None, ignore=()
) -> list[Contradiction]:
    """The facts the speaker may be shown that `line` contradicts (the speakers' names in
    `ignore` are never read as names or subjects), one per fact. Only the facts' clauses that
    share a subject word with the line's are compared (each index keeps them by word)."""
    if view is None or not line:
        return []
    ignore = frozenset(w.lower() for name in ignore for w in str(name).split())
    said = [c for c in clauses(str(line)[:MAX_CHARS], view.names, ignore) if c.subject]
    if not said:
        return []
    found = []
    for group, mask in zip(view.groups, shown_masks(view, now)):
        by_row: dict[int, list] = {}
        for word in {w for claim in said for w in claim.subject}:
            for row, clause in group.clauses.get(word, ()):
                if mask[row]:
                    by_row.setdefault(row, []).append(clause)
        for row in sorted(by_row):
            hit = first_clash(said, dict.fromkeys(by_row[row]))
            if hit is not None:
                record = group.records[row]
                found.append(Contradiction(record.id, record.text, hit[0].text, hit[1], hit[2]))
    return found


def doubt_note(found: list[Contradiction], speaker: str) -> str:
    """The line of the prompt that tells the NPC a claim goes against what it knows."""
    known = " ".join('"' + c.known.replace('"', "'") + '"' for c in found[:2])
    return (
        f"(What {speaker} just said goes against what you know, {known} Do not agree or take "
        "it as true: answer with doubt, and say what you know.)"
    )


# A reply that says the claim is doubted ("That's not what I heard", "you're mistaken").
_DISPUTES = re.compile(
    r"\b(?:not what i|that's not|that is not|isn'?t so|not so|not right|not true|wrong|mistaken|"
    r"doubt|heard otherwise|contradicts|against what i|i don'?t think so|no,)",
    re.IGNORECASE,
)
# A reply that takes the claim as right ("Tobiah was correct about the cider cost. It's not
# two copper, but seven"): the known value said in passing does not make it a doubt.
_AGREES = re.compile(
    r"\b(?:was|is|are|were) (?:correct|right)\b|\byou'?re (?:right|correct)\b|"
    r"\bthat'?s (?:right|correct|true)\b|\bdo(?:es)? indeed\b",
    re.IGNORECASE,
)
# The doubt note read back ("What Emrys just said goes against what I know, Emrys.", held-out
# seed 70423): it names the player in the third person and says nothing known.
_NOTE_ECHO = re.compile(r"\bwhat \w+ just said\b|\bgoes against what (?:i|you) know\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours)\b", re.IGNORECASE)


# A question for the news itself (not every line with "tonight" or "week" in it).
_ASKS_NEWS = re.compile(
    r"\b(?:news|happening|happened|lately|rumou?rs?|gossip|latest|what'?s new|anything new|"
    r"going on)\b",
    re.IGNORECASE,
)


def untold_news(line: str, shown, reply: str) -> str | None:
    """
    Asked for the news with news in front of it (an event among the `shown` KnowledgeLines,
    not a secret, not written to the NPC as "you"), a reply that tells none of it ("No,
    Haldor." in the telnet trial) is replaced by the first of them, as said: "Have you heard?
    Briony says Harlan the miller broke his leg." None when the reply tells one (two of its
    words) or nothing asked for news.
    """
    line = str(line)[:MAX_CHARS]
    if not (is_question(line) and _ASKS_NEWS.search(line)) or _tells_after_asking(line):
        return None
    events = [k for k in shown if k.category == "event" and not k.secret]
    events = [k for k in events if not addressed_to_npc(k.text)]
    if not events:
        return None
    said = stems(reply)
    if any(len(said & (stems(k.text) - stems(line))) >= 2 for k in events):
        return None
    news = events[0].text.strip()
    heard = f"{events[0].heard_from} told me: " if events[0].heard_from else ""
    return f"Have you heard? {heard}{news[0].upper()}{news[1:]}"


def _tells_after_asking(line: str) -> bool:
    """ "Have you heard the news? Petra the gravedigger is leaving town." tells the news; it
    does not ask for the NPC's (held-out seed 73019: three players' news answered with the
    NPC's own tinker's caravan)."""
    last = re.findall(r"[^.!?]+[.!?]*", line.strip())[-1:]
    return bool(last) and not last[0].rstrip().endswith("?") and len(last[0].split()) >= 4


def addressed_to_npc(text: str) -> bool:
    """A fact written to its NPC in the second person ("You keep the forge")."""
    return bool(_SECOND_PERSON.search(str(text or "")[:MAX_CHARS]))


def _values(text: str) -> set:
    return {(kind, v) for c in clauses(text) for kind, found in c.values for v in found}


def disputes(reply: str, doubt: Contradiction) -> bool:
    """
    `reply` answers a claim against what the NPC knows as it should: it does not say the claim
    again as true (a clause of its own contradicting the fact), and it says what is known (a
    value or name of the fact the claim does not hold) or says it doubts the claim.
    """
    reply = str(reply or "")[:MAX_CHARS]
    wrong = _values(doubt.claim) - _values(doubt.known)
    again = [c for c in clauses(reply) if c.subject and _values(c.text) & wrong]
    if first_clash(again, clauses(doubt.known)) is not None:
        return False  # "the stalls do indeed open at dusk"
    if _AGREES.search(reply) and not _DISPUTES.search(reply):
        return False
    truth = _values(doubt.known) - _values(doubt.claim)
    if _NOTE_ECHO.search(reply):
        return bool(truth & _values(reply))
    return bool(truth & _values(reply)) or bool(_DISPUTES.search(reply))


_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def _said_price(value: tuple) -> str:
    amount, coin = value
    return f"{_NUMBER_WORDS[amount] if 0 <= amount < len(_NUMBER_WORDS) else amount} {coin}"


def doubting_line(doubt: Contradiction, speaker: str, npc: str = "") -> str:
    """What the NPC says to a claim its reply took as true: it doubts it, with what it knows
    (the fact's sentence that shares most with the claim; a fact written to the NPC as "you"
    is not said aloud; one that names the NPC itself gives only its price, as the NPC would
    say it: "That's not what I know, Ilsa: one silver.")."""
    claim = stems(doubt.claim)
    sentences = re.findall(r"[^.!?]+[.!?]*", doubt.known[:MAX_CHARS])
    best = max(sentences, key=lambda s: len(stems(s) & claim), default="").strip()
    lead = f"That's not what I know, {speaker or 'friend'}."
    if npc and best and re.search(rf"\b{re.escape(npc)}\b", best):
        parts = [c for c in clauses(best) if any(kind == "money" for kind, _ in c.values)]
        part = max(parts, key=lambda c: len(stems(c.text) & claim), default=None)
        prices = [
            v for kind, found in (part.values if part else ()) if kind == "money" for v in found
        ]
        return f"{lead[:-1]}: {_said_price(prices[0])}." if prices else lead
    if not best or addressed_to_npc(best):
        return lead
    best = best[0].upper() + best[1:]
    return f"{lead} {best if best[-1] in '.!?' else best + '.'}"


def misstates(reply: str, shown: list[KnowledgeLine], ignore=()) -> Contradiction | None:
    """The first fact the prompt showed as certain (authored or seen, not a rumour or news
    told) that `reply` says otherwise ("I charge a copper for tea" with "willow-bark tea ... at
    two copper a twist" shown, held-out seed 41257), or None. `ignore`: the speakers' names."""
    facts = [
        (i, line.text)
        for i, line in enumerate(shown or ())
        if line.heard_from is None and line.confidence >= 1.0
    ]
    if not reply or not facts:
        return None
    ignore = frozenset(w.lower() for name in ignore for w in str(name).split())
    names = names_in(text for _, text in facts)
    found = find(str(reply)[:MAX_CHARS], facts, names, ignore)
    return found[0] if found else None


def without_misstated(reply: str, doubt: Contradiction, ignore=()) -> str:
    """`reply` without its sentences that say the fact otherwise ("" if none is left)."""
    ignore = frozenset(w.lower() for name in ignore for w in str(name).split())
    names = names_in([doubt.known])
    kept = [
        s.strip()
        for s in re.findall(r"[^.!?]+[.!?]*", str(reply)[:MAX_CHARS])
        if s.strip() and not find(s, [(0, doubt.known)], names, ignore)
    ]
    return " ".join(kept)


def known_line(doubt: Contradiction, speaker: str, npc: str = "") -> str:
    """What the NPC says instead of a reply that said a fact otherwise: the fact's sentence the
    reply was about, or (a fact naming the NPC, or written to it as "you") its price."""
    line = doubting_line(doubt, speaker, npc)
    lead = f"That's not what I know, {speaker or 'friend'}"
    rest = line[len(lead) :].lstrip(".:").strip()
    if not rest:
        return ""
    if line[len(lead) : len(lead) + 1] == ".":
        return rest  # the fact's own sentence
    return f"{rest[0].upper()}{rest[1:].rstrip('.')}, {speaker or 'friend'}."  # "Two copper, Ada."


_ASKING_STEMS = frozenset(stem(w) for w in _ASKING)


def _names_it_somewhere(view: KnowledgeView, masks, context: list[str], thing: set[str]) -> bool:
    """Whether a fact the speaker may be shown, or a text the NPC sees, names the thing."""
    texts = [
        group.records[row].text
        for group, mask in zip(view.groups, masks)
        for row in np.flatnonzero(mask).tolist()
    ]
    return bool(names_in_any([*texts, *context], thing))


def asked_words(line: str, names) -> set[str]:
    """What a question asks about: its content stems, without the speakers' names and the
    words every question is made of ("tell", "news", "town")."""
    skip = {stem(w) for n in names for w in str(n).split()} | _ASKING_STEMS
    return {w for w in stems(line) if w not in skip}


def _known_words(view: KnowledgeView, masks, asked: set[str]) -> set[str]:
    """The words of `asked` that a fact the speaker may be shown holds (text or topics)."""
    return {
        word
        for word in asked
        for group, mask in zip(view.groups, masks)
        if any(mask[row] for row in group.words.get(word, ()))
    }


# The stems of the words that ask for each category (facts.CATEGORY_HINTS), by category code.
_HINT_STEMS = [frozenset(stem(w) for w in CATEGORY_HINTS.get(c, "").split()) for c in CATEGORIES]


def _hinted_and_known(view: KnowledgeView, masks) -> set[str]:
    """The stems of the words that ask for a category the NPC has a fact of: "What's on the menu
    tonight?" asks for the wares of an innkeeper who knows her prices, though no fact says
    "menu" (held-out runs: Maren told her menu was nothing she had heard of, six times of six)."""
    # A set of the codes, not np.unique (it sorts, and costs tens of microseconds a group).
    codes = {c for group, mask in zip(view.groups, masks) for c in group.category[mask].tolist()}
    return set().union(*(_HINT_STEMS[c] for c in codes if c >= 0))


def best_cosine(view: KnowledgeView, vector, now: float | None, masks=None) -> float:
    """The highest cosine of `vector` with a fact the speaker may be shown."""
    if vector is None:
        return -1.0
    best = -1.0
    vector = np.asarray(vector, dtype=np.float32)
    for group, mask in zip(view.groups, masks or shown_masks(view, now)):
        rows = np.flatnonzero(mask & group.has_vector)
        if len(rows):
            best = max(best, float(np.max(group.matrix[rows] @ vector)))
    return best


def unanswered(
    line: str,
    view: KnowledgeView | None,
    context: list[str],
    vector,
    conf,
    *,
    now: float | None = None,
    names=(),
) -> str | None:
    """
    The words of a question about the world that nothing the NPC knows answers (see the
    module), or None: not a question, about the NPC ("you") or the speaker's own life ("my"),
    naming nothing in particular, every word of it found in a fact, the place, the NPC's
    identity or a memory (`context`), or a fact within KNOWLEDGE_ANSWER_COSINE in meaning.
    """
    line = str(line or "")[:MAX_CHARS]
    if view is None or not is_question(line) or _ABOUT_YOU.search(line) or _ABOUT_ME.search(line):
        return None
    masks = shown_masks(view, now)
    thing = name_asked(line, names)
    if thing:
        return None if _names_it_somewhere(view, masks, context, thing) else " ".join(sorted(thing))
    asked = asked_words(line, names)
    if not asked:
        return None  # a general question ("what's the news?"): the category lane answers
    known = _known_words(view, masks, asked) | {w for t in context for w in stems(t)}
    if asked <= known or asked <= known | _hinted_and_known(view, masks):
        return None
    if best_cosine(view, vector, now, masks) >= conf.KNOWLEDGE_ANSWER_COSINE:
        return None
    return " ".join(sorted(asked))


_ADMITS = re.compile(
    r"\b(?:(?:never|not|haven'?t|have not|hadn'?t) (?:heard|seen|known)|no such|"
    r"(?:there'?s|there is|there are) no\b|(?:couldn'?t|can'?t|cannot) (?:tell|say)|"
    r"(?:don'?t|do not) know|no idea|not that i know|news to me|nothing i'?ve heard)",
    re.IGNORECASE,
)


def admits(reply: str) -> bool:
    """A reply that says the NPC does not know, or that there is no such thing (naming
    nothing it was not told)."""
    return bool(_ADMITS.search(str(reply or "")[:MAX_CHARS]))


def unknown_note(speaker: str) -> str:
    """The line of the prompt that says nothing the NPC knows answers the question."""
    return (
        f"(Nothing you know answers what {speaker} asks. Say plainly that you do not know; name "
        "no place, person, price or event you were not told of.)"
    )

"""
The NPC's own life said otherwise than its own facts say (issue #24, point 3): how long it has
been here (`misstated_years`), where it is from (`misstated_home`), its life given to the
listener (`own_life_given`), its own facts denied (`forgets_own_life`) and kin it never had
(`invented_kin`); each names the slip guard.own_life_slips reports; asked of its own life, the
fact that answers (`own_life_fact`, said in its own voice by `own_life_line`). Split from
plain_lines.py (which re-exports these names).

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omniira_evennia.conversation.phrasing import in_own_voice
from omniira_evennia.conversation.remembered import names_after_the_first
from omniira_evennia.conversation.voice import admits_not_knowing
from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    KIN_WORDS,
    MAX_CHARS,
    content_stems,
    rx,
    sentence_list,
)
from omniira_evennia.knowledge.contradiction import NUMBERS

# Asked of its own life, the NPC's own fact that answers it (issue #24: "About 25 years.",
# "Yes, I was born in Marrowby" from the one asked, in held-out seed 92821): what the question
# asks, and the words of an own fact about that.
_OWN_LIFE = (
    (r"\b(?:born|from|grew up|raised)\b", r"\b(?:from|born)\b"),
    (r"\bhow long\b|\bhow many years\b|\balways lived\b", r"\b(?:years?|ago|since|came to)\b"),
    (
        r"\b(?:family|kin|married|wife|husband|children|waiting for you)\b",
        r"\b(?:kin|family|married|alone|brother|sister|mother|father|grandmother|daughter|son)\b",
    ),
    (r"\b(?:favourite|favorite|best part|like most|like best)\b", r"\b(?:favourite|like)\b"),
    # Its trade: "Now there's a question, Quill. I'm not sure." to "What's your line of work?"
    # from Lyra, who plays at the market (held-out seed 97301).
    (
        r"\b(?:line of work|for a living|your (?:trade|work|job)|keeps? you busy)\b"
        # "Lyra, what is it you do?" met with "I couldn't rightly say" (held-out seed 50993).
        r"|\bwhat do you do\b(?! for fun)|\bwhat is it (?:that )?you do\b",
        r"\b(?:keep|sell|play|sing|forge|mend|tend|pour|cook|brew|bake|make|run)s?\b",
    ),
)


def own_life_line(line: str, own_facts: Sequence[str]) -> str:
    """Asked where it is from, how long it has been here, of its kin or what it likes best, the
    first of its `own_facts` (written to it, best first) about that, in its own voice; "" when
    the line asks none of these of it, or no fact says."""
    fact = own_life_fact(line, own_facts)
    return in_own_voice(fact) if fact else ""


def own_life_fact(line: str, own_facts: Sequence[str]) -> str:
    """The first of `own_facts` that answers what `line` asks of the NPC's own life (see
    `own_life_line`), as written; "" if none."""
    line = asked_of_the_npc(line)
    if not line:
        return ""
    for asked, answers in _OWN_LIFE:
        if found := re.search(asked, line, re.IGNORECASE):
            facts = [f for f in own_facts if re.search(answers, f[:MAX_CHARS], re.IGNORECASE)]
            # The fact that holds the word asked comes first: "Are you married, Wren?" is
            # answered by "You are not married; ...", not by where her grandmother taught her
            # (held-out seed 69127).
            # Then the one that says most of it: "Have you any kin in town?" is answered by
            # "... not married; your grandmother still lives ...", not by where she taught her
            # herb-lore (held-out busy seed 42139).
            word = rx(rf"\b{re.escape(found.group())}\b", re.IGNORECASE)
            facts.sort(
                key=lambda f: (
                    not word.search(f[:MAX_CHARS]),
                    -len(re.findall(answers, f[:MAX_CHARS], re.IGNORECASE)),
                )
            )
            return facts[0] if facts else ""
    return ""


_OF_THE_NPC = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)


def asked_of_the_npc(line: str) -> str:
    """The question of `line` if it asks about the NPC, not the speaker ("" if not): "Lyra,
    where am I from, do you recall?" from a newcomer was answered with Lyra's own home (held-out
    busy seed 24683); "I grew up in the hills. Where are you from?" asks of the NPC."""
    asked = [s for s in sentence_list(line[:MAX_CHARS]) if s.rstrip().endswith("?")]
    question = asked[-1] if asked else line[:MAX_CHARS]
    if not _OF_THE_NPC.search(question) or FIRST_PERSON.search(question):
        return ""
    return question


# A count of years, in words (the knowledge checks' number words) or figures, as an NPC says
# how long it has been somewhere.
_YEARS_SAID = re.compile(
    # "I have been in town for over a year now." from Lyra, of the spring thaw (held-out busy
    # seed 18443): "a" and "a couple of" are counts too.
    r"\b(?P<count>\d{1,3}|a couple of|a few|an?|" + "|".join(NUMBERS) + r")\s+"
    # Days and weeks too: "I have been in town for two days, Perrin." from Lyra, who came with
    # the spring thaw (telnet trial, 2026-12-06 night).
    r"(?:years?|decades?|springs?|winters?|summers?|months?|weeks?|days?)\b",
    re.IGNORECASE,
)
MISSTATES_ITS_YEARS = "misstates_its_own_years"  # the slip's name (guard.knowing_slips)


def misstated_years(reply: str, line: str, own_facts: Sequence[str]) -> list[str]:
    """Asked how long it has been here, the sentences of `reply` giving a count of years its
    own facts do not hold: "I've been here for over 50 years." from Lyra, who came with the
    spring thaw; "About 25 years." from Maren, twelve years at the tavern (held-out seeds 63341,
    92821)."""
    asked, answers = _OWN_LIFE[1]
    if not re.search(asked, line[:MAX_CHARS], re.IGNORECASE):
        return []
    facts = [f[:MAX_CHARS] for f in own_facts if re.search(answers, f[:MAX_CHARS], re.I)]
    if not facts:
        return []
    known = {_count(m.group("count")) for f in facts for m in _YEARS_SAID.finditer(f)}
    return [
        s
        for s in sentence_list(reply[:MAX_CHARS])
        if any(_count(m.group("count")) not in known for m in _YEARS_SAID.finditer(s))
    ]


_SOME = {"a": 1, "an": 1, "a couple of": 2, "a few": -1}  # -1: no count a fact can hold


def _count(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _SOME.get(word, NUMBERS.get(word, -1))


MISSTATES_ITS_HOME = "misstates_its_own_home"  # the slip's name (guard.knowing_slips)
_ASKS_HOME = re.compile(r"\b(?:born|from|grew up|raised|always lived)\b", re.IGNORECASE)
_BORN_HERE = re.compile(
    r"\b(?:born|raised|grew up)\b[^.!?]*\b(?:here|in this town|around here)\b"
    r"|\balways lived (?:here|in this town)\b"
    # "Yes, I have lived in this town all my life." from Lyra (held-out busy seed 18443)
    r"|\b(?:lived|been|stayed)\b[^.!?]{0,30}\b(?:all|whole) (?:of )?my life\b",
    re.IGNORECASE,
)
_HOME_CLAIMED = re.compile(
    r"\b(?:i'?m from|i am from|i was born|i come from|i came from|born (?:in|and raised))\b"
    r"|^\W*from\b",
    re.IGNORECASE,
)
_FROM_CLAUSE = re.compile(r"\b(?:from|born)\b[^;.]*", re.IGNORECASE)
_PLACE = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")


def _places(sentence: str) -> list[str]:
    """The capitalised names of `sentence`, its capitalised first word left out: "From
    Brackenridge, two weeks' ride to the west." names Brackenridge (held-out seed 97301: Wren
    gave the player's home as hers, and "From Brackenridge" was taken for one name at the
    start)."""
    found = []
    for match in _PLACE.finditer(sentence):
        words = match.group().split()[1:] if match.start() == 0 else match.group().split()
        if words:
            found.append(" ".join(words))
    return found


_CLAUSE_END = re.compile(r",\s*(?:and|but|where|when|though|while)\b|[;:]")


def _clause_from(sentence: str, start: int) -> str:
    """`sentence` from `start` to the end of that clause (the next ", and", ", but", ";" or
    ":"), its first word kept as `_places` reads it."""
    end = _CLAUSE_END.search(sentence, start)
    return sentence[: end.start() if end else len(sentence)][start:]


_BARE_PLACE = re.compile(r"^\W*(?:the\s+)?(?:[A-Z][a-z']+\s*){1,3}[.!]?\s*$")


def misstated_home(
    reply: str, line: str, own_facts: Sequence[str], names: Sequence[str] = ()
) -> list[str]:
    """Asked where it is from, the sentences of `reply` that put it somewhere by name its own
    facts of home do not: "I'm from the village of Wickham Cross, market town in the valley."
    from Voss, of a fishing village on the coast (held-out busy seed 57287)."""
    line = asked_of_the_npc(line)
    if not _ASKS_HOME.search(line):
        return []
    # Where it is from, not every place its facts name: Lyra "came to Wickham Cross with the
    # spring thaw" and is "from the river towns" ("I was born in Wickham Cross" from her passed:
    # held-out seed 39119).
    homes = " ".join(m.group() for f in own_facts for m in _FROM_CLAUSE.finditer(f[:MAX_CHARS]))
    if not homes:
        return []
    found = []
    local = re.search(r"\bborn and raised\b|\bfrom here\b", homes, re.IGNORECASE)
    for sentence in sentence_list(reply[:MAX_CHARS]):
        if _BORN_HERE.search(sentence) and not local:
            # "I was born and raised in this town." from Voss, of the coast (seed 81737).
            found.append(sentence)
            continue
        # A bare place is a claim too: "Wickham Cross." from Lyra (held-out seed 58447).
        claim = _HOME_CLAIMED.search(sentence)
        if not claim and not _BARE_PLACE.match(sentence):
            continue
        # Only the claim's own clause says where it is from: "I was born and raised in Wickham
        # Cross, and I have kept the Lantern & Lane ..." from Maren names her inn after it.
        said_home = _clause_from(sentence, claim.start()) if claim else sentence
        named = [p for p in _places(said_home) if p not in names]  # who talks is no place
        if any(p not in homes for p in named):
            found.append(sentence)
    return found


GIVES_ITS_OWN_LIFE = "gives_its_own_life"  # the slip's name (guard.knowing_slips)


def own_life_given(reply: str, line: str, own_facts: Sequence[str]) -> list[str]:
    """The sentences of `reply` that tell the listener, as "you", what is the NPC's own life:
    "..., but you are from the hill country and learned herb-lore from your grandmother." and
    "Did your grandmother teach you herb-lore?" from Wren, whose life that is (held-out busy
    seed 57287). Two content words of one own fact, not said in the line, make it."""
    said = content_stems(line[:MAX_CHARS])
    found = []
    for sentence in sentence_list(reply[:MAX_CHARS]):
        # Anyone's "you": "... by the well in Market Square is where you can buy bread." (Voss,
        # whose forge is on the market square: busy seed 52967).
        personal = _ANYONES_YOU.sub("", sentence)
        if not re.search(r"\byou(?:r|'re)?\b", personal, re.IGNORECASE):
            continue
        words = content_stems(sentence) - said
        if any(len(words & content_stems(f[:MAX_CHARS])) >= 2 for f in own_facts):
            found.append(sentence)
    return found


_ANYONES_YOU = re.compile(
    r"\byou (?:can|could|will|'ll|might|may|should) (?:buy|find|get|see|try|visit|go|hear)\b", re.I
)


FORGETS_ITS_OWN_LIFE = "forgets_its_own_life"  # the slip's name (guard.knowing_slips)
_NO = re.compile(r"\b(?:no|not|n't|never|nobody|no one)\b", re.IGNORECASE)


def _says_no_as_known(reply: str, fact: str) -> bool:
    """A bare no that its fact says too: "No, I am not married, Idris." with "You are not
    married; ..." at hand (held-out seed 69127) answers the question."""
    said = set(re.findall(r"[a-z']{4,}", reply[:MAX_CHARS].lower())) - _BARE_ANSWER
    return bool(_NO.search(reply[:MAX_CHARS])) and any(
        re.search(rf"\b(?:not|never|no)\b\W+(?:\w+\W+){{0,2}}?{re.escape(w)}\b", fact, re.I)
        for w in said
    )


def forgets_own_life(reply: str, line: str, own_facts: Sequence[str]) -> list[str]:
    """Asked of its own life with a fact of it at hand, the sentences of `reply` that say it
    does not know: "I'm sorry, I don't know the answer to that." to "How long have you been
    here, Wren?" (held-out seed 81737)."""
    fact = own_life_fact(line, own_facts)
    if not fact:
        return []
    sentences = sentence_list(reply[:MAX_CHARS])
    # A bare "Yes, Idris." to "Is anyone waiting for you at home?" from Voss, who lives alone
    # (held-out busy seed 18443), "Yes, Berwyn, I have family here." from Wren, whose family is
    # in the hill country (seed 39119): nothing but the question's words, and its fact at hand.
    words = {w for w in re.findall(r"[a-z']+", reply[:MAX_CHARS].lower()) if len(w) > 1}
    asked = set(re.findall(r"[a-z']+", line[:MAX_CHARS].lower()))
    if (
        words
        and words <= _BARE_ANSWER | names_after_the_first(reply) | asked
        and not _says_no_as_known(reply, fact)
    ):
        return sentences
    # Asked how long, nothing of how long: "I've been here for a while, Sable. I've been around
    # town for a while." from Lyra, who came with the spring thaw (held-out seed 46271).
    vague = f"{_OWN_LIFE[1][0]}|{_OWN_LIFE[3][0]}"
    if re.search(vague, line[:MAX_CHARS], re.I) and not (
        content_stems(reply[:MAX_CHARS])
        & (content_stems(fact) - content_stems(line[:MAX_CHARS]) - _ANYWHERE)
    ):
        # Asked what it likes best, nothing of what it does: "The Lantern & Lane is a charming
        # town with a great atmosphere" from Lyra, of market mornings (held-out seed 39119).
        return sentences
    return [s for s in sentences if admits_not_knowing(s) or _REFUSES.search(s)]


# "I'm sorry, Gareth. I can't tell you that." from Wren, asked if anyone waits for her at home,
# with her family in the hill country at hand (held-out busy seed 25463): no secret of hers.
_REFUSES = re.compile(
    r"\bi (?:can'?t|cannot|won'?t|will not|couldn'?t|shouldn'?t) (?:tell|say|share|speak of)\b"
    r"(?:\s+(?:you\s+)?(?:that|it|this))?\s*[.!]?\s*$",
    re.IGNORECASE,
)


_ANYWHERE = content_stems("town here place village around")  # "around town for a while"
_BARE_ANSWER = set("yes no aye nay indeed of course do does am is not don't i".split())


INVENTS_ITS_KIN = "invents_its_kin"  # the slip's name (guard.own_life_slips)
_KIN_WORD = re.compile(rf"\b(?P<kin>{KIN_WORDS}|children|kids)s?\b,?\s*(?P<name>[A-Z][a-z]{{2,}})?")
_CLAIMS_KIN = re.compile(r"\b(?:i have|i've got|my)\b", re.IGNORECASE)


def invented_kin(reply: str, line: str, own_facts: Sequence[str]) -> list[str]:
    """Asked of its kin, the sentences of `reply` that give it kin, or a name for kin, that its
    facts do not: "Yes, Aurelie, I have a sister Hilde and a cousin Aldous." from Maren, whose
    only kin is Hilde (held-out busy seed 62477)."""
    asked = asked_of_the_npc(line)
    if not asked or not re.search(_OWN_LIFE[2][0], asked, re.IGNORECASE) or not own_facts:
        return []
    known = " ".join(f[:MAX_CHARS] for f in own_facts).lower()
    return [
        sentence
        for sentence in sentence_list(reply[:MAX_CHARS])
        if _CLAIMS_KIN.search(sentence)
        and any(
            kin.group("kin").lower() not in known or (kin.group("name") or "").lower() not in known
            for kin in _KIN_WORD.finditer(sentence)
        )
    ]

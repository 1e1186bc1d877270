"""
What a question asks about someone's life, and whether the NPC holds the answer (issue #24,
point 3): an NPC says it does not know what it was never told, and answers from what it holds.

`unknown_topic` finds a question about the player's own life that nothing the NPC holds
answers ("What's my horse called?" with no memory of a horse); the prompt then says so (the
model would otherwise invent "Quinny"), and `plain_lines.dont_know_line` is the NPC's plain
answer when a reply still names something it cannot know. When something does answer it,
`answer_from` finds it (a memory, or the speaker's own earlier words in this conversation) and
`answer_note` puts it next to the question (a small model reads the end of its prompt best, and
otherwise says "I don't know" with the memory in front of it). `someone_unknown` does the same
for a question about someone else by name.

Plain Python; every function reads at most the first voice.MAX_CHARS of its text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from omniira_evennia.conversation.remembered import name_left_out
from omniira_evennia.conversation.topic_words import CAUSING, MEANT, NO_PLACE, ONE_FROM
from omniira_evennia.conversation.voice import (
    FRAMING_WORDS,
    admits_not_knowing,
    capped,
    content_stems,
    is_question,
    sentence_list,
)

# A question about the speaker's own life, and the words a memory answering it would hold.
_OWN_TOPICS = [
    (re.compile(r"\bwhat(?:'s| is| was| are)? my ([a-z]+(?:'s)?(?: [a-z]+){0,2})", re.I), None),
    (
        re.compile(
            r"\b(?:where|(?:what|which) town) (?:do|did) i (?:(?:say|tell you|mention) (?:that )?i )?"
            r"(live|come from|hail from|grow up|grew up)\b",
            re.I,
        ),
        "home",
    ),
    (re.compile(r"\bwhere (?:am|was) i (?:from|born)\b", re.I), "home"),
    # Asked inside another question ("Do you remember where I live?"): the order of a statement.
    (
        re.compile(
            r"\b(?:remember|recall|know|forget|forgotten) (?:where|what town) i (?:live|come from|"
            r"hail from|grew up)\b|\b(?:remember|recall|know|forget|forgotten) where i'?m from\b",
            re.I,
        ),
        "home",
    ),
    (
        re.compile(
            r"\bwhat (?:do |did )?i do\b|\bmy (?:trade|work|job|living|line of work|profession|"
            r"occupation|calling)\b",
            re.I,
        ),
        "trade",
    ),
    (re.compile(r"\bwho(?:'s| is| was| are) my ([a-z]+(?:'s)?)", re.I), None),
    (re.compile(r"\bwhat (?:am i|i am|i'm) (afraid|scared|frightened) of\b", re.I), "fear"),
    (
        re.compile(r"\bwhat (?:(?:did|do) i (?:tell|say to) you )?(?:scares|frightens) me\b", re.I),
        "fear",
    ),
    (
        re.compile(r"\bwhat (?:do |did )?i (?:always )?(?:carry|keep with me)\b", re.I),
        "treasure",
    ),
    (re.compile(r"\bwho (?:am i|i am|i'm) (looking|searching) for\b", re.I), "search"),
    (
        re.compile(
            r"\bwhat (?:foods? |is it )?(?:(?:can't|cannot|can not) i|can i not|"
            r"i (?:can't|cannot|can not|must not|mustn't)) eat\b",
            re.I,
        ),
        "food",
    ),
    (
        re.compile(
            r"\bwhat am i allergic to\b|\bkeep off my plate\b|\bnever put in my (?:food|drink)\b",
            re.I,
        ),
        "food",
    ),
    (re.compile(r"\bdo (?:you )?(?:know|remember) my ([a-z]+)", re.I), None),
    (re.compile(r"\bname of my ([a-z]+)", re.I), None),
    (re.compile(r"\bmy ([a-z]+)(?:'s)? (?:is )?(?:called|named|name)\b", re.I), None),
    (re.compile(r"\b(?:remember|recall|know) (?:what|who|where|how) my ([a-z]+)", re.I), None),
    (re.compile(r"\bwhat (?:do |did )?i (?:treasure|cherish|value|prize)", re.I), "treasure"),
    (
        re.compile(
            r"\bwhat (?:am i|i am|i'm) (?:saving|putting (?:money )?aside)|\bwhat (?:do |did )?i "
            r"(?:dream|plan|mean|hope|want) (?:of|to)\b",
            re.I,
        ),
        "plan",
    ),
]
TOPIC_WORDS = {
    # "from" only as where someone is from: "Ada heard it from the carter" is no home.
    # "here from": "I came here from Redfern" (seed 62903, busy: the answer in view overridden)
    "home": ["live", "lives", "home", "comes from", "come from", "came from", "here from"]
    + ["is from", "am from", "i'm from", "hail", "born", "grew", "town", "village"],
    "trade": ["trade", "work", "job", "living", "craft", "make", "mend", "sell", "build", "carve"]
    + ["dye", "weave", "bake", "brew", "sew", "sweep", "dig", "dip", "throw", "cut meat"],
    "fear": ["afraid", "fear", "scare", "frighten", "terrified", "terrifies", "dread"],
    "search": ["looking", "searching", "seeking", "search", "find", "missing", "lost"],
    # "Lavinia hasn't eaten since sunrise" is no answer to what she cannot eat (seed 41257).
    "food": [
        "allergic",
        "allergy",
        "cannot eat",
        "can't eat",
        "can not eat",
        "never eat",
        "won't eat",
        "abide",
        "stomach",
        "food",
        "plate",
        "sick",
        "rash",
    ],
    "treasure": [
        "treasure",
        "treasures",
        "precious",
        "possession",
        "prize",
        "cherish",
        "value",
        "keepsake",
        "carry",
        "carries",
        "never let",
        "never left",
    ],
    "plan": [
        "saving",
        "aside",
        "dream",
        "plan",
        "mean",
        "hope",
        "become",
        "want",
        "wish",
        "ambition",
        "one day",
    ],
}
TOPIC_PHRASE = {
    "home": "where you live",
    "trade": "what you do for a living",
    "fear": "what frightens you",
    "search": "who you are looking for",
    "food": "what you cannot eat",
    "treasure": "what you treasure most",
    "plan": "what you are hoping for",
}
_GENERIC_NOUNS = {"name", "way", "day", "time", "thing", "friend", "money", "business"}
# "my great ambition", "my most precious possession": the noun is what is asked about.
_ADJECTIVES = {
    "most",
    "great",
    "greatest",
    "best",
    "dearest",
    "favourite",
    "favorite",
    "old",
    "little",
    "big",
    "elder",
    "eldest",
    "older",
    "younger",
    "youngest",
    "precious",
    "own",
    "only",
    "dear",
}
# "What is my trade?" asks what "what do I do for a living?" asks.
_NOUN_KINDS = {
    "trade": "trade",
    "work": "trade",
    "job": "trade",
    "living": "trade",
    "craft": "trade",
    "profession": "trade",
    "occupation": "trade",
    "home": "home",
    "village": "home",
    "hometown": "home",
    "fear": "fear",
    "treasure": "treasure",
    "possession": "treasure",
    "ambition": "plan",
    "dream": "plan",
    "plan": "plan",
    "hope": "plan",
}


class AskedTopic(NamedTuple):
    """What a question asks about the speaker's own life."""

    phrase: str  # "your horse", "what you do for a living"
    stems: tuple[str, ...]  # word starts a memory answering it would hold
    trade: bool = False  # a trade said as what someone is also answers it (_TRADE_NOUN)

    def held_by(self, text: str) -> bool:
        return self.weight(text) > 0

    def weight(self, text: str) -> int:
        """How many of the topic's words `text` holds (a trade said as what someone is counts
        one more): "dyes cloth for a living; he is a dyer" answers "what is my trade?" better
        than "onions make him sick"."""
        if self.trade:
            text = CAUSING.sub(" ", text)  # "it makes him sick" makes nothing for a living
            text = MEANT.sub(" ", text)  # nor does "I mean to build a windmill"
        if self.phrase == TOPIC_PHRASE["home"]:
            # "it is all Merrick has left of home", "far from home": no place (seed 36457)
            text = NO_PLACE.sub(" ", text)
        held = [stem for stem in self.stems if re.search(rf"\b{re.escape(stem)}", text)]
        home = self.phrase == TOPIC_PHRASE["home"] and ONE_FROM.search(text)
        # A town alone is no home: "... sweeps the chimneys of the old town." (seed 61507)
        found = len(held) if home or set(held) - {"town", "village"} else 0
        return found + bool(self.trade and _TRADE_NOUN.search(text)) + bool(home)


def asked_topic(line: str) -> AskedTopic | None:
    """What a question asks about the speaker's own life (`AskedTopic`), or None."""
    line = capped(line)
    if "?" not in line and not is_question(line):
        return None
    for pattern, kind in _OWN_TOPICS:
        match = pattern.search(line)
        if not match:
            continue
        if kind is None:
            words = match.group(1).lower().replace("'s", "").split()
            noun = next((w for w in words if w not in _ADJECTIVES), words[-1])
            if noun in _GENERIC_NOUNS or len(noun) < 3:
                continue
            kind = _NOUN_KINDS.get(noun)
            if kind is None:
                return AskedTopic(f"your {noun}", (noun[:5],))
        return AskedTopic(TOPIC_PHRASE[kind], tuple(TOPIC_WORDS[kind]), trade=kind == "trade")
    return None


# "Perrin is a baker", "Ada works as a rope maker": a trade said as what someone is.
# The trade noun ends the phrase ("a dyer who dyes cloth", "a rope maker."): "is a lucky copper
# token" names a thing, not a trade (held-out seed 71359 answered a trade with it).
_TRADE_NOUN = re.compile(
    r"\b(?:is|am|i'm|was|works as|trained as) an? (?:[a-z-]+ )?[a-z-]*(?:er|or|ist|smith|wright|"
    r"maker|monger|man|wife|herd|mason|sweep|scribe|cook|nurse|clerk|guard|priest|physician|"
    r"apothecary|groom|porter|merchant)\b(?<!\bstranger)(?<!newcomer)(?<!traveller)"
    r"(?<!\bother)"
    r"(?=\s*(?:[,.;:!?]|$)|\s+(?:who|that|by|and|in|at|for|from|of|on|down|up|out|here|there|"
    r"with|like|since|now|these|all)\b)"
)


def unknown_topic(line: str, known: list[str]) -> str | None:
    """
    What the speaker asks about their own life that nothing in `known` (the memories and the
    speaker's earlier words shown to the NPC) mentions, as a phrase for the NPC to use ("your
    horse", "what you do for a living"), or None.
    """
    asked = asked_topic(line)
    if asked is None:
        return None
    text = " ".join(capped(k) for k in known).lower()
    return None if asked.held_by(text) else asked.phrase


_ABOUT_ME = re.compile(r"\b(?:i|i'm|i've|i'd|me|my|mine|myself)\b", re.IGNORECASE)
_KIN = re.compile(
    r"\b(?:mother|father|sister|brother|aunt|uncle|cousin|son|daughter|wife|husband|"
    r"grandmother|grandfather|grandma|grandpa|niece|nephew|kin)\b",
    re.IGNORECASE,
)
_KIN_SHARES = {TOPIC_PHRASE[k] for k in ("home", "trade", "search")}  # with kin, words alike


def answer_from(line: str, memories: list[str], said: list[str], speaker: str) -> str | None:
    """
    What the NPC holds that answers a question about the speaker's own life: of `memories`
    (oldest first) that name `speaker`, the one that holds most of the topic's words (the
    newest of those), else the newest of the speaker's own earlier words (`said`) that holds
    them; None if nothing does.
    """
    asked = asked_topic(line)
    if asked is None or not speaker:
        return None
    named = re.compile(rf"\b{re.escape(speaker.lower())}\b")
    # A kin's home or trade is theirs (seed 71359), a treasure may name kin ("a wooden flute my
    # mother carved", seed 73811).
    kin_asked = bool(_KIN.search(line)) or asked.phrase not in _KIN_SHARES
    best, best_weight = None, 0
    for text in [capped(m) for m in memories]:
        low = text.lower()
        theirs = named.search(low) and (kin_asked or not _KIN.search(low))
        weight = asked.weight(low) if theirs else 0
        if weight and weight >= best_weight:
            best, best_weight = text, weight
    if best is not None:
        return best
    for text in reversed(said):
        stated = own_statements(text)
        if stated and asked.held_by(stated.lower()):
            return stated
    return None


def own_statements(text: str) -> str:
    """
    What a speaker's line states about themselves: its sentences that are not questions and
    say I, me or my. A question tells nothing ("Where are you from, Maren?" is no answer to
    "Where am I from?", held-out seed 41257; "What do you sell?" says nothing of the speaker's
    trade, seed 45119), and news is not about them ("Maren is leaving town for good.", seed
    71359).
    """
    return " ".join(
        s for s in sentence_list(capped(text)) if not is_question(s) and _ABOUT_ME.search(s)
    )


def gives_answer(reply: str, answer: str, line: str, speaker: str = "") -> bool:
    """`reply` says what `answer` (`answer_from`) holds: one of its own words (not the
    question's, not the speaker's name), or it has none to say. "Yes, I remember your cat's
    name." to "Do you remember my cat's name?" with "Wystan's cat is called Ember." does not."""

    def words(text: str) -> set[str]:
        return {w.split("'")[0] for w in content_stems(text)}  # "cat's" is "cat"

    # The speaker's name as the stems have it ("Emrys" is "emry": held-out seed 29881, where
    # "Yes, Emrys, I remember your grandmother." passed for her name).
    besides = {speaker.lower()[:5]} | words(speaker) | {w[:5] for w in FRAMING_WORDS}
    besides |= {"calle", "named", "name"} | words(_ANY_FEAR)
    own = words(answer) - words(line) - besides
    if own and admits_not_knowing(reply):
        # "You never told me what you're allergic to." with "cannot eat honey" held (held-out
        # seed 41257): its "never" is no answer.
        return False
    if own and denies_it(reply, answer, own, words, line):
        return False
    if name_left_out(reply, answer, line, speaker):
        return False
    return not own or bool(own & words(reply))


# Words of any fear: "You fear them more than anything, Lavinia." with "... it's rats: I fear
# them more than anything." held does not say what (held-out seed 46271).
_ANY_FEAR = "fear fears afraid scared terrified frighten frightens more than anything"


_DENIAL = re.compile(
    r"\b(?:not|no|never|cannot|aren'?t|isn'?t|don'?t|doesn'?t|didn'?t|wasn'?t|can'?t)\b|n't\b",
    re.I,
)


def denies_it(reply: str, answer: str, own: set[str], words, line: str = "") -> bool:
    """The reply names what it remembers only to deny it: "You are not afraid of ghosts." with
    "Nothing frightens Perrin like ghosts." held (held-out seed 63341)."""
    if _DENIAL.search(answer) or _DENIAL.search(line):
        return False  # its own "can't" said back; "What must you never put ...?" (seed 73811)
    naming = [_TAG.sub("?", s) for s in sentence_list(capped(reply)) if own & words(s)]
    return bool(naming) and all(_DENIAL.search(s) for s in naming)


# A question's tail is no denial: "Ember, isn't it?"
_TAG = re.compile(r",?\s*\b(?:is|are|do|does|was|did|wo|ca)n'?t (?:it|you|she|he|they|that)\s*\?")


def answer_note(answer: str, speaker: str) -> str:
    """The line of the prompt that puts what answers the question next to it."""
    quoted = answer.replace('"', "'")
    return (
        f'(You remember this about {speaker}: "{quoted}" Answer from it, in your own words, '
        f'speaking to {speaker} as "you".)'
    )


# A question about someone else's life, by name ("Do you know what Tamsin does for a living?").
_ABOUT_SOMEONE = [
    (
        re.compile(r"\b(?i:what (?:does|did)) (?P<name>[A-Z][a-z]+) do\b"),
        "what {} does for a living",
    ),
    (
        re.compile(r"\b(?i:what) (?P<name>[A-Z][a-z]+) does for a living\b"),
        "what {} does for a living",
    ),
    (
        re.compile(r"\b(?P<name>[A-Z][a-z]+)'s (?:trade|work|job|line of work)\b"),
        "what {} does for a living",
    ),
    (re.compile(r"\b(?i:where (?:does|did)) (?P<name>[A-Z][a-z]+) live\b"), "where {} lives"),
]


def someone_unknown(line: str, in_view: str, names: set[str]) -> str | None:
    """
    What a question asks about someone else by name that nothing the NPC has in front of it
    (`in_view`: its whole prompt) so much as names, as a phrase for the NPC to use ("what
    Tamsin does for a living"), or None. The NPC itself, the speaker (`names`) and anyone its
    prompt mentions are left to the model: it has something to go on.
    """
    line = capped(line)
    if not is_question(line):
        return None
    lowered = {n.lower() for n in names if n}
    for pattern, phrase in _ABOUT_SOMEONE:
        match = pattern.search(line)
        if not match:
            continue
        name = match.group("name")
        if name.lower() in lowered or re.search(rf"\b{name}\b", in_view, re.IGNORECASE):
            return None
        return phrase.format(name)
    return None


def about_the_speaker(topic: str) -> bool:
    return bool(re.search(r"\byou\b|^your\b", topic))


def told_about(topic: str) -> str:
    return f"about {topic}" if topic.startswith("your ") else topic


_NOTE_PHRASE = {
    "where you live": "where {s} lives",
    "what you do for a living": "what {s} does for a living",
    "what frightens you": "what frightens {s}",
    "who you are looking for": "whom {s} is looking for",
    "what you cannot eat": "what {s} cannot eat",
}


def unknown_note(topic: str, speaker: str) -> str:
    """The line of the prompt that says what the NPC does not know."""
    about = _NOTE_PHRASE.get(topic, "").format(s=speaker) or topic.replace(
        "your ", f"{speaker}'s ", 1
    )
    told = f"{speaker} never told you" if about_the_speaker(topic) else "nobody told you"
    return (
        f"(You know nothing about {about}: {told}. Say so plainly, as yourself; do not guess or "
        "make it up.)"
    )


def invents(reply: str, known: list[str], speaker: str, npc: str) -> bool:
    """
    A reply to a never-told question that does not admit it and names something nobody
    told the NPC (a capitalised word not opening a sentence, not a name it knows).
    """
    reply = capped(reply)
    if admits_not_knowing(reply):
        return False
    seen = " ".join(capped(k) for k in known).lower()
    for sentence in sentence_list(reply):
        words = re.findall(r"[A-Za-z][\w'-]*", sentence)
        for word in words[1:]:
            if word[:1].isupper() and word not in (speaker, npc, "I", "I'm", "I've", "I'll"):
                if word.lower().rstrip("'s") not in seen:
                    return True
    return False

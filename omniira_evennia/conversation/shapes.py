"""
The shape of a reply, whatever its facts (issue #24, point 3): what a person across a counter
would not say, read off held-out seed 63341.

- `RUNS_ON`: an essay, not a line ("You are a falconer, which means you specialize in training
  hawks ... Falconer training is both challenging and rewarding ...": 80 words to a telling);
  `first_sentences` is what is kept of one;
- `LEAVES`: the player's goodbye met as if the NPC were the one going ("Goodbye for now, Sable.
  I'll be back soon!" from Lyra, who stays where she is);
- `ASKS_IT_BACK`: the line handed back as a question of what the player thinks ("What do you
  think about being born here?" to "Were you born around here?", "What do you think about
  heights?" to "Nothing frightens me like heights.");
- `OFF_THE_POINT`: a telling met with a question about something else ("I understand, Kestrel.
  What is your hobby?" to a fear of snakes);
- `NAMES_NONE`: asked what the town has, "many things" and none of them named;
- `WHERE_TO_GET_IT`: what they own met with where to buy or find one ("You can buy a spyglass
  from Aldous the reeve." to a brass spyglass they treasure).

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omniira_evennia.conversation.addressing import is_goodbye
from omniira_evennia.conversation.words import (
    OWN_TELLING,
    capped,
    content_stems,
    ends_asking,
    is_question,
    sentence_list,
)

RUNS_ON = "runs_on"
LEAVES = "leaves_at_their_goodbye"
ASKS_IT_BACK = "asks_it_back"
OFF_THE_POINT = "asks_off_the_point"
NAMES_NONE = "names_none_of_them"
WHERE_TO_GET_IT = "tells_where_to_get_it"

# Words a spoken reply may run to. The prompt asks for one to three short sentences; of the
# held-out replies read by hand the longest line a player would take was about 40 words.
MOST_WORDS = 50
# What is kept of a reply that runs on.
KEPT_SENTENCES = 2


def runs_on(reply: str) -> bool:
    """More words than a line said across a counter (MOST_WORDS)."""
    return len(re.findall(r"[A-Za-z']+", capped(reply))) > MOST_WORDS


def first_sentences(reply: str, n: int = KEPT_SENTENCES) -> str:
    """The first `n` sentences of `reply`: what a reply that runs on says first."""
    return " ".join(sentence_list(capped(reply))[:n])


_LEAVING = re.compile(
    r"\bi(?:'ll| will| shall) (?:be (?:back|off|going|on my way)|come back|return|see you when)\b"
    r"|\bi(?:'m| am) (?:off|going|leaving|heading (?:out|off|home))\b(?! to (?:bed|sleep))"
    r"|\bi (?:must|have to|need to) (?:go|be going|leave|get going)\b",
    re.IGNORECASE,
)


def leaves_at_their_goodbye(reply: str, line: str) -> bool:
    """To the player's goodbye, the NPC says it is the one going or coming back."""
    return is_goodbye(capped(line)) and bool(_LEAVING.search(capped(reply)))


_WHAT_THEY_THINK = re.compile(
    r"\bwhat (?:do|did) you (?:think|feel) (?:about|of) (?P<topic>[^?]*)\?", re.IGNORECASE
)
_ABOUT_IT = {"it", "that", "this", "them"}


def asks_it_back(reply: str, line: str) -> bool:
    """The reply asks the player what they think of what their own line named, and says
    nothing else of its own: a question given back, not an answer or a telling heard."""
    reply, line = capped(reply), capped(line)
    asked = _WHAT_THEY_THINK.search(reply)
    if not asked:
        return False
    topic = asked.group("topic").strip().lower()
    named = content_stems(topic)
    shared = named & content_stems(line)
    if topic not in _ABOUT_IT and not (shared and len(shared) * 2 >= len(named)):
        return False
    # Before the question, nothing but a nod ("Oh, that's interesting.", "Oh, I see.").
    before = reply[: asked.start()]
    return len(re.findall(r"[A-Za-z']+", before)) <= 6


# Words any question about a telling may use ("Tell me more about your work?"), and words that
# point back at it ("How did you find her?", "How long was it?").
_ANY_QUESTION = content_stems(
    "think feel know mean like happen happened tell more say sure okay right well true really "
    "work life day long mind"
)
_POINTS_BACK = re.compile(
    r"\b(?:it|its|that|this|those|these|her|him|them|she|he|they|there|one|so)\b", re.I
)


def asks_off_the_point(reply: str, line: str, names: Sequence[str] = ()) -> bool:
    """Told something of the player's own (a line in the first person that asks nothing), the
    reply asks about something the line never named and does not point back at it: "I
    understand, Kestrel. What is your hobby?" to a fear of snakes (held-out busy seed 25463),
    "Do you have any plans for the evening?" to an allergy. Read over 51 held-out runs, most
    such questions were a help desk's or beside the point; a telling's reply is mended in
    place, so what is lost when one was fair is the question, not the reply."""
    reply, line = capped(reply), capped(line)
    if ends_asking(line) or not OWN_TELLING.search(line):
        return False
    told = content_stems(line)
    skip = _ANY_QUESTION | content_stems(" ".join(names))
    for sentence in sentence_list(reply):
        if not sentence.rstrip().endswith("?") or _POINTS_BACK.search(sentence):
            continue
        asked = content_stems(sentence) - skip
        # "When did you last eat?" asks of "I haven't eaten since sunrise."
        if asked and not any(
            t.startswith(a[:4]) or a.startswith(t[:4]) for a in asked for t in told
        ):
            return True
    return False


# "There are many things to see in this town, Gareth." (busy seed 52967), "there's a lot of
# interesting things to see in this town." (busy seed 25463).
_MANY_THINGS = re.compile(
    r"\b(?:many|lots of|a lot of|plenty of|all sorts of|all kinds of|so many)\s+(?:\w+\s+)?"
    r"(?:things|places|sights|people|shops|stalls)\b",
    re.IGNORECASE,
)


def names_none(reply: str, line: str, facts: Sequence[str]) -> list[str]:
    """Asked a question the NPC's facts answer, the sentences of `reply` that say there are
    "many things" when the reply names nothing of any fact beyond the question's own words."""
    reply, line = capped(reply), capped(line)
    if not is_question(line) or not _MANY_THINGS.search(reply):
        return []
    asked = content_stems(line)
    known = set().union(*(content_stems(capped(f)) for f in facts[:50])) - asked
    if not known or content_stems(reply) & known - _ANY_QUESTION:
        return []
    return [s for s in sentence_list(reply) if _MANY_THINGS.search(s)]


# Held-out seed 61507: "You can buy a spyglass from Aldous the reeve." to "I always carry an old
# brass spyglass", "You can find Nutmeg in the tinker's caravan." to a ferret named Nutmeg.
_WHERE_TO_GET = re.compile(
    r"(?:^|[.!?]\s+)(?:\w+,\s+)?you (?:can|could|might|should|will|'ll) "
    r"(?:buy|find|get|purchase|pick up)\b",
    re.IGNORECASE,
)
_THEIR_OWN = re.compile(r"\bmy\b|\bi (?:always )?(?:carry|keep|have|own)\b", re.IGNORECASE)
# A want is another matter: "You can get a bowl of stew here." to "I haven't eaten since sunrise."
_A_WANT = re.compile(r"\b(?:hungry|thirsty|eaten|need|looking for|want to buy)\b", re.IGNORECASE)


def tells_where_to_get_it(reply: str, line: str) -> bool:
    """Told of something of their own (a line that asks nothing), the reply says where they
    can buy or find it: the thing, or the animal, is theirs already."""
    reply, line = capped(reply), capped(line)
    return (
        not ends_asking(line)
        and bool(_THEIR_OWN.search(line))
        and not _A_WANT.search(line)
        and bool(_WHERE_TO_GET.search(reply))
    )

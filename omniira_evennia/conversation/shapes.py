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
  heights?" to "Nothing frightens me like heights.").

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.addressing import is_goodbye
from omniira_evennia.conversation.words import capped, content_stems, sentence_list

RUNS_ON = "runs_on"
LEAVES = "leaves_at_their_goodbye"
ASKS_IT_BACK = "asks_it_back"

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

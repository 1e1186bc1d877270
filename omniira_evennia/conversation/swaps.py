"""
I and you swapped (voice.py's `swaps_i_and_you` slip): the NPC's own not knowing, not being
told, remembering, sorrow or feeling said as the player's ("You are not sure what ..."), or the
player's state and not telling said as the NPC's own ("I'm hungry!" to "I haven't eaten since
sunrise.", "I never told you what you do for a living.").

Plain Python; the caller caps its text (voice.capped).
"""

from __future__ import annotations

import re
from functools import lru_cache

from omniira_evennia.conversation import their_doings
from omniira_evennia.conversation.words import (
    ANIMALS,
    FIRST_PERSON,
    capped,
    content_stems,
    is_question,
    sentence_list,
)

# The NPC's own not knowing said as the player's ("You are not sure what Isolde's tortoise is
# called", asked "Do you remember my tortoise's name?"): a statement, not a question.
# Where such a sentence starts, and its words for not knowing (`own_doubt_turned` too).
DOUBT_LEAD = r"(?:^|[.!]\s+|,\s+)(?:but\s+|well,?\s+|oh,?\s+)?"
DOUBTING = (
    r"(?:not sure|unsure|don'?t (?:know|remember|recall)|do not (?:know|remember|recall)|"
    r"can'?t (?:say|remember|recall)|cannot (?:say|remember|recall))\b"
)
_OWN_DOUBT_AS_YOURS = re.compile(
    DOUBT_LEAD + r"you(?:'re| are)?\s+" + DOUBTING + r"[^?]*?(?:[.!]|$)", re.IGNORECASE
)


# The NPC's not having been told said as the player's: "You were never told about that, Cyra."
# to "I live in Dunmere." (long run with the offline model, seed 101, twice).
_UNTOLD_AS_YOURS = re.compile(
    DOUBT_LEAD + r"you(?: were|'ve been| have been| was) never (?:been )?told\b[^?]*?(?:[.!]|$)",
    re.IGNORECASE,
)


# The NPC's own sorrow said as the player's: "You're sorry, Zephyr, but you haven't been eating
# since sunrise." (held-out run, seed 94727), "You're sorry, but you don't have up-to-date news".
_SORRY_AS_YOURS = re.compile(r"(?:^|[.!]\s+)you(?:'re| are) (?:so |very )?sorry\b", re.IGNORECASE)

# The NPC's feeling said as the player's: "You feel terrible." to "My cloak is soaked through."
# (held-out busy run, seed 62903), "You feel scared of wolves too." (seed 26893).
_FEELING_AS_YOURS = re.compile(r"(?:^|[.!]\s+)you feel\b(?!,)[^?]*?(?:[.!]|$)", re.IGNORECASE)

# The player's state, told in the first person, taken as the NPC's: "I'm hungry!" to "I haven't
# eaten since sunrise." (held-out seed 29881), "I feel hungry." (busy seed 90271), "... and I need
# to eat something warm" (seed 77213), "I fell down and hurt my knee." to "I nearly slipped on
# the cobbles outside." (seed 83417). One sentence at a time, with no "you" in it and not the
# NPC's own in its words ("I'm tired myself", "I'm cold too").
_MISHAPS = "fell|slipped|tripped|stumbled|hurt"
_THEIR_STATE_AS_MINE = re.compile(
    r"^\W*(?:(?:oh|ah|well|yes),?\s+)?(?:[^.!?]*,\s*(?:and|but|so)\s+)?"
    # "I'm still hungry, Brielle." to "I haven't eaten since sunrise." (held-out seed 57287)
    r"(?:i(?:'m| am| feel| felt) (?:still )?(?:so |very |really |quite |a bit |a little )?"
    r"(?:hungry|starving|famished|thirsty|tired|weary|exhausted|cold|wet|soaked|drenched|sore|"
    r"lost|footsore)\b"
    r"|i need (?:to eat|something to eat|food|a meal|to rest|a rest|to sit)\b"
    rf"|i (?:{_MISHAPS}|twisted|sprained)\b)",
    re.IGNORECASE,
)
# Their mishap as the NPC's to learn from: "I'll make sure to be more careful next time." to "I
# nearly slipped on the cobbles outside." (held-out seed 44207); "I'll be careful." to an
# allergy is care for them, and stays.
_MISHAP = re.compile(rf"\bi (?:nearly |almost )?(?:{_MISHAPS})\b", re.I)
_CAREFUL_NEXT_TIME = re.compile(
    r"\bi(?:'ll| will) (?:make sure to |try to )?be (?:more )?careful (?:next time|from now on)",
    re.I,
)
# "I didn't think I would fall, but I did." to "I nearly slipped on the cobbles outside."
# (held-out busy seed 18443).
_OWN_FALL = re.compile(rf"\bi (?:would |could |might )?(?:fall|{_MISHAPS})\b[^.!?]*\bi did\b", re.I)
_OWN_TOO = re.compile(r"\b(?:too|myself|as well|also)\b", re.IGNORECASE)


# Their fear taken as the NPC's own feeling: "Oh, Perrin, it's very frightening to hear that. I
# am very anxious and observant." to "Nothing frightens me like ghosts." (held-out seed 63341).
# "I'm afraid I don't know" is an idiom, and "I'm scared of them too" a fear shared.
_THEIR_FEAR = re.compile(r"\b(?:frightens? me|afraid of|terrified of|scared of|i fear)\b", re.I)
_FEAR_AS_MINE = re.compile(
    r"\bi(?:'m| am| feel) (?:so |very |really |quite |a bit |a little )?(?:anxious|scared|"
    r"frightened|terrified|nervous|afraid of)\b"
    # "No crows frighten me at all." to "nothing frightens me like crows" (busy seed 81239)
    r"|\b(?:frighten|frightens|scare|scares|terrify|terrifies) me\b",
    re.IGNORECASE,
)


# Their aim taken up as the NPC's own doing: "I'll make a tea shop on this street, Brielle." to
# "I'm putting money aside to open a tea shop on this very street." (held-out seed 81737).
_I_WILL_DO = re.compile(
    r"(?:^|[.!?]\s+)\W*(?:\w+,\s+)?i(?:'ll| will| shall) (?!\w+ (?:you|it in)\b)", re.I
)
_HEARING_IT = set("remember keep bear think hold note pray hope wish help look watch tell".split())


def _their_aim_as_mine(reply: str, line: str) -> bool:
    if not _THEIR_AIM.search(line) or is_question(line):
        return False
    aim = content_stems(line)
    for found in _I_WILL_DO.finditer(reply):
        rest = reply[found.end() :]
        verb = re.match(r"[a-z']+", rest.lower())
        clause = re.split(r"[.!?]", rest)[0]
        if verb and verb.group(0) not in _HEARING_IT and len(content_stems(clause) & aim) >= 2:
            return True
    return False


def _their_fear_as_mine(reply: str, line: str) -> bool:
    return bool(_THEIR_FEAR.search(line)) and any(
        _FEAR_AS_MINE.search(s) and not _OWN_TOO.search(s) and not re.search(r"\byou", s, re.I)
        for s in sentence_list(reply)
    )


def _their_state_as_mine(reply: str) -> bool:
    return any(
        _THEIR_STATE_AS_MINE.search(s)
        and not re.search(r"\byou", s, re.IGNORECASE)
        and not _OWN_TOO.search(s)
        for s in sentence_list(reply)
    )


# The player's plan taken as an invitation: "Sure, I'd love to!" to "I think I'll sit a while
# and rest my legs." (held-out seed 83417).
_TAKES_UP = re.compile(
    r"^\W*(?:(?:sure|yes|oh|aye|why not),?\s+)?i(?:'d| would) (?:love|like|be glad|be happy) to\b"
    r"|^\W*(?:(?:sure|yes|oh|aye),?\s+)?i(?:'ll| will) join you\b"
    # "Thank you, Mirabel. I'll do that." to "I think I'll sit a while and rest my legs."
    # (held-out seed 92821)
    r"|\bi(?:'ll| will) do (?:that|so|just that)\W*$",
    re.IGNORECASE,
)
_INVITES = re.compile(
    r"\b(?:would|will|do|don't|won't|care to|want to) you\b|\byou (?:join|come)\b|\bjoin me\b"
    r"|\blet's\b|\bshall we\b|\bwith me\b",
    re.IGNORECASE,
)
# Their aim vowed as the NPC's own: "I'll make sure to do my best." to "Before I'm old I mean to
# climb the Greyfang mountain." (held-out run, 2026-12-06).
_VOWS = re.compile(
    r"^\W*(?:(?:oh|ah|well|sure|yes|aye)[,!.]?\s+)?i(?:'ll| will) (?:make sure to |surely )?"
    r"(?:do|try) my (?:best|utmost)(?:,?\s+[A-Z][a-z]+)?\W*$",
    re.IGNORECASE,
)
_THEIR_AIM = re.compile(
    r"\bi(?:'m| am)? (?:mean|hope|plan|want|wish|intend|long|dream)(?:s|ing)? (?:to|of)\b"
    r"|\bmy (?:dream|hope|wish|aim) is\b|\bi(?:'m| am) (?:saving|putting money aside)\b",
    re.IGNORECASE,
)
# Their treasure kept as the NPC's: "It's so special that I keep it for a long time." to "The
# thing I treasure most is a lucky copper token ..." (held-out run, 2026-12-06).
_THEIR_TREASURE = re.compile(
    r"\b(?:i treasure|treasure most|most precious|i never let it|i(?:'d| would) run into|"
    r"all i have left|never left my side|i always carry)\b",
    re.I,
)
_KEEPS_IT = re.compile(
    # "I'll keep it close." to a token they never let out of their sight (held-out seed 86753).
    r"\bi(?:'ve| have|'ll| will)?\s+(?:always\s+|still\s+)?(?:keep|kept|treasure[ds]?|cherish(?:ed)?|"
    r"carry|carried|wear|wore|guard(?:ed)?)\s+(?:it|them)\b",
    re.IGNORECASE,
)

# Their animal's keeping taken on: "Thank you, Mirabel. I'll be sure to take good care of
# Ember." and "I'll need to feed her some fresh grass." to a goat of theirs (held-out seed
# 92821).
_THEIR_ANIMAL = re.compile(
    r"\b(?:i have|i keep|i own|my)\s+(?:an?\s+)?(?:\w+\s+){0,2}?" rf"(?:{ANIMALS})\b",
    re.IGNORECASE,
)
_TAKES_ON_ITS_KEEPING = re.compile(
    r"\b[Ii](?:'ll| will)\s+(?:need to\s+|have to\s+|be sure to\s+|make sure to\s+)?"
    r"(?:take (?:good )?care of|feed|look after|mind|walk)\s+(?:her|him|it|them|[A-Z][a-z]+)\b"
    # "He was very hungry and needed food, so I made sure to feed him regularly." to a dog found
    # half-starved (held-out seed 63341): its finding and feeding told as the NPC's.
    r"|\b[Ii]\s+(?:made sure to|always|have|'ve|used to)\s+(?:feed|fed|take care of|took care of|"
    r"looked after|look after)\s+(?:her|him|it|them|[A-Z][a-z]+)\b"
    # "It's a bit sad, but I still have her." to an old cat (held-out seed 97301).
    r"|\b[Ii]\s+(?:still\s+)?(?:have|keep|own)\s+(?:her|him)\b"
    # "I love Otis, Araminta. He's been my best friend forever." (held-out seed 39119)
    r"|\bmy (?:very )?best friend\b"
)


# "Oh, Ysolde. I've been looking for that key all day! It was so important to me." to "my most
# precious possession is an iron key ..." (held-out seed 92821).
_DEAR_TO_ME = re.compile(
    r"\b(?:important|precious|special|dear) to me\b|\bi(?:'ve| have) been looking for (?:that|the)\b"
    # "I know about the red silk scarf that I love and cherish.", "I see it as a reminder of my
    # family" (held-out busy seed 18443)
    r"|\bthat i (?:love|cherish|treasure)\b|\ba reminder of my\b",
    re.IGNORECASE,
)

# What the player asks the NPC to do, given back as the player's to do: "You'll make sure to
# keep it off your plate." to "Nuts makes me break out in a rash, so keep it off my plate."
# (held-out seed 35089), "You would keep your cheese off your plate." (seed 71359).
_ASKED_OF_NPC = re.compile(
    r"(?:^|[,;:.!]\s*|\b(?:so|and|please|just)\s+)(?:never\s+|always\s+|don't\s+)?"
    r"(keep|put|serve|give|bring|save|tell|remember)\b",
    re.IGNORECASE,
)


def _asked_of_me_given_to_you(reply: str, line: str) -> bool:
    verbs = {m.group(1).lower() for m in _ASKED_OF_NPC.finditer(capped(line))}
    if not verbs:
        return False
    given = re.compile(
        r"(?:^|[.!]\s+)\W*(?:(?:oh|well|yes|aye)[^,]{0,12},\s*)?(?:\w+,\s*)?you(?:'ll| will|'d|"
        r" would| should| must)\s+(?:make sure (?:to |that you )?|always |never )?"
        r"(?:" + "|".join(sorted(verbs)) + r")\b",
        re.IGNORECASE,
    )
    return bool(given.search(capped(reply)))


# Their ailment as the NPC's own: "Oh, you're allergic to strawberries, sweetie. ... Maybe you can
# give me something to help with my rash." from Wren, the herbalist (held-out seed 44207).
_THEIR_AILMENT = re.compile(r"\b(?:allerg\w*|rash\w*|sick|ill)\b", re.IGNORECASE)
_AILMENT_AS_MINE = re.compile(
    r"\bmy (?:rash|allergy|allergies|sickness|illness)\b|\bhelp (?:me )?with my\b"
    # What they must not eat, kept off the NPC's own plate: "I'll do my best not to eat them."
    # to "Eggs makes me break out in a rash, so keep it off my plate." (held-out seed 63341).
    r"|\bi(?:'ll| will| shall)?\b[^.!?]{0,30}\bnot (?:to )?eat\b",
    re.I,
)

# The NPC's remembering said as the player's ("You remember baking bread for a living,
# Yvaine." to "I bake bread for a living"): a statement, not a question back.
_OWN_MEMORY_AS_YOURS = re.compile(
    r"(?:^|[.!]\s+)(?:(?:oh|ah|well|yes|aye),?\s+)?you (?:remember|recall)\b[^?]*?(?:[.!]|$)"
    # The player's telling said as the NPC's: "I told you that I'm afraid of ghosts." to "What
    # did I tell you scares me most?" (held-out seed 36457).
    r"|(?:^|[.!]\s+)(?:(?:oh|ah|well|yes|aye),?\s+)?i told you (?:that )?"
    r"i(?:'m| am| was|'ve| have)\b"
    # "You are afraid of milk, as you remember." (held-out seed 39119)
    r"|\bas you (?:remember|recall)\b",
    re.IGNORECASE,
)


# Asked about the player's own life ("What am I afraid of?"), the NPC's not knowing said of
# itself: "I do not remember what frightens me" (telnet trial). "... what you told me" is fine.
_ASKS_OWN = re.compile(r"\b(?:i|i'm|my|me)\b", re.IGNORECASE)
_NOT_KNOWING_MINE = re.compile(
    r"\b(?:don'?t|do not|can'?t|cannot|couldn'?t) (?:remember|recall|know|say|tell)\b"
    r"(?:(?!\byou\b|\byour\b)[^.?!])*\b(?:me|my|myself)\b",
    re.IGNORECASE,
)


# Asked about their own life, the NPC's not knowing said as theirs: "You have no idea what your
# most precious possession is." to a newcomer, "you don't even know if you have anything to
# treasure at all" (held-out seed 97301).
_NOT_KNOWING_YOURS = re.compile(
    r"\byou (?:have no idea|(?:don'?t|do not) (?:even |really )?know (?:what|if|whether|who|where|"
    r"how))\b",
    re.IGNORECASE,
)


# Asked about the player's own life, the not telling said as the NPC's own: "I never told you
# about my origins, Horatio." to "Where am I from?" (held-out run, seed 86111).
# "I never told you that." to "Do you remember my line of work?" (held-out busy seed 66617).
_NEVER_TOLD_BARE = re.compile(
    r"(?:^|[.!?]\s+)\W*I (?:never|haven'?t|have not|didn'?t|did not) (?:told|tell|mentioned) you"
    # "I never told you, Bram." to "Who is my mother, do you recall?" (held-out seed 44893).
    r"(?: (?:that|this|so|about (?:it|that)))?(?:,\s*[A-Z][a-z]+)?\s*(?:[.!]|$)"
    # "I never told him about it." to a newcomer's "what did I tell you scares me most?"
    # (held-out seed 51263): theirs, said as the NPC's, of them.
    r"|(?:^|[.!?]\s+)\W*I (?:never|haven'?t|have not|didn'?t|did not) (?:told|tell|mentioned) "
    r"(?:him|her|them)(?: (?:that|this|so|about (?:it|that)))?\s*(?:[.!]|$)"
    # "I never told you about a dog, Gisela." to "What's the name of my dog?" (held-out seed
    # 63341); "I told you that nothing frightens you like heights." to "What did I tell you
    # scares me most?": their telling said as the NPC's.
    r"|(?:^|[.!?]\s+)\W*(?:(?:yes|no|oh|ah|well),?\s+)?I (?:never |have never |haven'?t |"
    r"didn'?t |did not )?(?:told|mentioned|said to) you (?:about|of|that) (?:an? |your )?\w+"
    # "I told you it was deep water, Bram." to "What did I tell you scares me most?" (seed 73529)
    r"|(?:^|[.!?]\s+)\W*I told you (?:that )?(?:it|they) (?:was|were|is|are)\b",
    re.IGNORECASE,
)
# Their never telling said as the NPC's: "I have never told you what your great ambition is."
# to "What is my great ambition, Voss?" (held-out seed 92821).
_NEVER_TOLD_YOURS = re.compile(
    r"\bI (?:have |had )?(?:never|haven'?t|have not|didn'?t|did not) (?:told|tell|mentioned|mention)"
    r"(?: to)? you (?:what|about|of|where|who|how|that|whether)\b[^.?!]*\byour\b",
    re.IGNORECASE,
)


_NEVER_TOLD_MINE = re.compile(
    r"\bI (?:never|haven'?t|have not|didn'?t|did not) (?:told|tell|mentioned|mention)(?: to)? you"
    r" (?:about |of )?my\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=256)
def _NEVER_TOLD_BY_ME(speaker: str) -> re.Pattern:
    """The player's not telling said as the NPC's: "I never told you about Isolde's raven", "I
    never told you what your dog is called", "I never told you what I do for a living", "I
    never told you that Niall cannot eat." (held-out seed 84211)."""
    sp = re.escape(speaker)
    return re.compile(
        r"\bI (?:never|haven'?t|have not|didn'?t|did not) (?:told|tell|mentioned|mention|said)"
        # "I never told you about what I treasure most." (held-out seed 28751): "about" first.
        rf"(?: to)? you (?:(?:about|of) (?:your|{sp}'s)\b"
        rf"|(?:(?:about|of) )?(?:what|where|who|whom|how) (?:i|your|{sp})\b"
        rf"|your\b|{sp}'s\b|that (?:i|my|{sp})\b"
        # "I never told you what you do for a living.", "... what scares me most." (held-out
        # busy seed 58873): anything but the NPC's own ("I never told you about my brother").
        r"|(?:what|where|who|how)\b(?![^.!?]*\bmy\b))",
        re.IGNORECASE,
    )


# Asked about the player's own life, their fact recalled as the NPC's: "Oh, you remember how I
# grew up in Sedgewick?", "Oh, you know how I always carry a cracked hourglass?" (held-out seed
# 48527).
_THEIRS_RECALLED_AS_MINE = re.compile(
    r"\byou (?:know|remember|recall) (?:how|that|when|where) i\b", re.IGNORECASE
)
# "I'm sorry, I don't understand what you are telling you." (held-out seed 81737)
_TELLING_YOU = re.compile(
    r"\byou(?:'re| are)? (?:tell|tells|telling|told|ask|asks|asking|asked|show|shows|showing|"
    r"showed|give|gives|giving|gave|bring|brings|brought) you\b"
    # "You tell you that Pebble is a cat in your tavern who hates the rain." (seed 97301)
    # "You know nothing about what frightens you. You never told you." to a newcomer (held-out
    # busy seed 24683): the prompt's note of what it was never told, said as theirs.
    r"|\byou (?:never|didn'?t|did not) (?:told|tell) you\b|\byou know nothing (?:about|of) what\b"
    # Their plea made theirs to themselves: "Please don't laugh at you for it." from "please
    # never laugh at me for it" (held-out seed 74573).
    r"|(?:^|[.!?]\s+)(?:please,?\s+)?(?:don'?t|do not|never)\s+\w+\s+(?:at|to|with|of)\s+you\b"
    # "I never told me what scares her." to a newcomer (held-out seed 74573)
    r"|\bi (?:never|didn'?t|did not) (?:told|tell) me\b"
    # "You said that I grew up in Briarholt, beyond the marshes." (held-out busy seed 81239)
    r"|\byou (?:said|told me|mentioned) (?:that )?i (?:grew up|come|came|am|was born|live|lived|"
    r"fear|keep|have|earn|work|mean|want)\b",
    re.IGNORECASE,
)
# "What else do you know about you?" to a cartographer's telling (held-out seed 57287): "me".
_ASKS_OF_YOU_ABOUT_YOU = re.compile(
    r"\b(?:do|did|can) you (?:know|remember|recall|tell me) about you\b", re.IGNORECASE
)


# What the NPC never heard of or did said of them: "Redfern? Mordecai, you've never heard of
# Redfern.", "you've never won a contest before." to their tellings (held-out busy seed 81239).
_YOUR_NEVER = re.compile(r"\byou(?:'ve| have) never\b", re.IGNORECASE)
_YOUR_NAME = re.compile(r"\byour name is\b", re.IGNORECASE)
# A question of the name of someone or something of theirs, not their own name.
_THEIR_OWN_NAMED = re.compile(
    r"\bname of (?:my|your)\b|\bmy (?!name\b)\w+(?:'s)? (?:name|called)\b|\bwhat is my \w+ called\b",
    re.IGNORECASE,
)


def swapped(reply: str, line: str, speaker: str) -> bool:
    """The reply to `line` (said by `speaker`) swaps I and you in one of the ways above."""
    if _YOUR_NAME.search(reply) and _THEIR_OWN_NAMED.search(line):
        return True  # "Your name is Pocket." to "Maren, what's the name of my dog?" (seed 81239)
    told = not is_question(line) and FIRST_PERSON.search(line)
    if told and _YOUR_NEVER.search(reply) and not re.search(r"\bnever\b", line, re.IGNORECASE):
        return True
    if _OWN_DOUBT_AS_YOURS.search(reply) and (
        re.search(r"\byou\b", line, re.IGNORECASE) or is_question(line)
    ):
        return True
    if speaker and _NEVER_TOLD_BY_ME(speaker).search(reply) and FIRST_PERSON.search(line):
        return True
    if _OWN_MEMORY_AS_YOURS.search(reply) or _UNTOLD_AS_YOURS.search(reply):
        return True
    if _SORRY_AS_YOURS.search(reply) and not re.search(r"\bsorry\b", line, re.IGNORECASE):
        return True
    if _FEELING_AS_YOURS.search(reply) and not re.search(r"\bfeel", line, re.IGNORECASE):
        return True
    if _their_state_as_mine(reply) and not is_question(line) and FIRST_PERSON.search(line):
        return True
    if _their_fear_as_mine(reply, line) and not is_question(line):
        return True
    if _ASKS_OF_YOU_ABOUT_YOU.search(reply) or _TELLING_YOU.search(reply):
        return True
    if _their_aim_as_mine(reply, line):
        return True
    if _MISHAP.search(line) and (_CAREFUL_NEXT_TIME.search(reply) or _OWN_FALL.search(reply)):
        return True
    takes_up = _TAKES_UP.search(reply) and their_doings.OWN_PLAN.search(line)
    if (takes_up or their_doings.plan_as_mine(reply, line)) and not _INVITES.search(line):
        return True
    if _VOWS.search(reply) and _THEIR_AIM.search(line) and not is_question(line):
        return True
    if _THEIR_TREASURE.search(line) and (_KEEPS_IT.search(reply) or _DEAR_TO_ME.search(reply)):
        return True
    if (
        _THEIR_ANIMAL.search(line)
        and (_TAKES_ON_ITS_KEEPING.search(reply) or their_doings.animal_doing_as_mine(reply, line))
        and not _INVITES.search(line)
    ):
        return True
    if _asked_of_me_given_to_you(reply, line):
        return True
    if _THEIR_AILMENT.search(line) and _AILMENT_AS_MINE.search(reply):
        return True
    if their_doings.home_as_mine(reply, line):
        return True
    return bool(
        is_question(line)
        and _ASKS_OWN.search(line)
        and (
            _NOT_KNOWING_MINE.search(reply)
            or _NOT_KNOWING_YOURS.search(reply)
            or _NEVER_TOLD_MINE.search(reply)
            or _NEVER_TOLD_BARE.search(reply)
            or _NEVER_TOLD_YOURS.search(reply)
            or _THEIRS_RECALLED_AS_MINE.search(reply)
            or their_doings.doing_as_mine(reply, line)
        )
    )


_ASKS_FOR_THEMSELVES = re.compile(
    r"\b(?:can|could|may|might|should|shall|will|would|do|did)\s+i\s+([a-z']+)\s+([^?.!]*)", re.I
)


# Asked for something to eat, drink or stay in, the NPC orders it itself: "Could I get a bowl
# of stew?" "The stew smells good. I'll order it." (telnet trial, 2026-12-06).
_BUYING = {"get", "have", "buy", "order", "try", "take", "rent"}
_ORDERS = re.compile(
    r"\bi(?:'ll|'d| will| would| shall)\s+(?:order|buy|have|take|try)\s+(?:it|one|some|that|a bowl|"
    r"a mug|a cup|a room)\b(?!\s+(?:for|to)\s+you)",
    re.IGNORECASE,
)


def takes_their_question(reply: str, line: str) -> bool:
    """Asked what the speaker may do ("Could I get a room?"), the NPC says it of itself: "Yes, I
    could get a room upstairs." (held-out seed 77213), the same verb and thing with "I" and no
    "you" to give it to ("I can get you a room" is the NPC's own offer)."""
    asked = _ASKS_FOR_THEMSELVES.search(capped(line))
    if asked is None:
        return False
    verb, thing = asked.group(1).lower(), content_stems(asked.group(2))
    if verb in _BUYING and any(
        _ORDERS.search(sentence) for sentence in sentence_list(capped(reply))
    ):
        return True
    taken = re.compile(
        rf"\bi\s+(?:(?:can|could|may|might|will|would|should|shall|do|did)\s+)?{re.escape(verb)}"
        r"\s+(?!you\b|yourself\b)((?:[a-z']+\s+){0,3}[a-z']+)",
        re.IGNORECASE,
    )
    return any(
        (found := taken.search(sentence)) and content_stems(found.group(1)) & thing
        for sentence in sentence_list(capped(reply))
        if not sentence.endswith("?")
    )


_THIRD = re.compile(r"\b(?:he|him|his|she|her)\b", re.IGNORECASE)
_SECOND = re.compile(r"\b(?:you|your|you're|yours)\b", re.IGNORECASE)
# Whom else a "he" or "she" may be: kin, folk, beasts.
SOMEONE = re.compile(
    r"\b(?:mother|father|ma|pa|mum|sister|brother|aunt|uncle|cousin|son|daughter|wife|husband|"
    r"friend|grand\w+|man|woman|girl|boy|lad|lass|neighbou?r|master|mistress|teacher|king|queen|"
    r"lord|lady|guard|priest|smith|baker|keeper|child|baby|folk|stranger|someone|somebody|"
    rf"{ANIMALS})s?\b",
    re.IGNORECASE,
)


def listener_as_third_person(reply: str, speaker: str, npc: str = "") -> bool:
    """The listener as "he" or "she" beside "you": "Your allergies make him allergic to
    pepper." (held-out seed 83417, "Fenwick's" turned to "your" and "him" left), when no one
    else is named or spoken of whom the pronoun could be."""
    text = capped(reply)
    if not (_SECOND.search(text) and _THIRD.search(text)) or SOMEONE.search(text):
        return False
    named = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+", text)} - _OPENERS
    return not named - {speaker.lower(), (npc or "").lower()}


# Capitalised words that name nobody (a sentence's first word).
_OPENERS = set(
    "you your i the a an it its yes no oh ah aye well that this there he she his her what thank "
    "thanks good my and but so if when maybe sure then now here how why who where".split()
)

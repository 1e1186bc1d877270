"""
What an NPC says in its own plain words when its model's reply could not be kept (voice.py
names why): it heard the line, a goodbye, what it remembers, what it was never told.

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omniira_evennia.conversation.addressing import is_goodbye, tells_more_than_a_greeting
from omniira_evennia.conversation.own_life import (  # noqa: F401  (plain_lines.*, as before)
    FORGETS_ITS_OWN_LIFE,
    GIVES_ITS_OWN_LIFE,
    INVENTS_ITS_KIN,
    MISSTATES_ITS_HOME,
    MISSTATES_ITS_YEARS,
    asked_of_the_npc,
    forgets_own_life,
    invented_kin,
    misstated_home,
    misstated_years,
    own_life_fact,
    own_life_given,
    own_life_line,
)
from omniira_evennia.conversation.phrasing import in_own_voice
from omniira_evennia.conversation.remembered import names_after_the_first, remembered_line
from omniira_evennia.conversation.topics import about_the_speaker, told_about
from omniira_evennia.conversation.voice import MAX_CHARS, admits_not_knowing
from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    KIN_WORDS,
    content_stems,
    ends_asking,
    sentence_list,
)
from omniira_evennia.knowledge.contradiction import NUMBERS

# What the NPC says to a line it could only give back: it heard it, in its own words. Chosen by
# the line (the same line, the same answer), skipping one said already in the conversation.
_HEARD = (
    "Is that so, {speaker}? I'll remember that.",
    "Well now, {speaker}, I'll keep that in mind.",
    "I hear you, {speaker}. I won't forget it.",
    "That's worth knowing, {speaker}. Go on.",
    "Thank you for telling me, {speaker}.",
    "Ah. I'll bear that in mind, {speaker}.",
)


_FAREWELLS = ("Safe home, {speaker}.", "Mind how you go, {speaker}.", "Until next time, {speaker}.")


def _unsaid(lines: tuple[str, ...], line: str, speaker: str, said: Sequence[str] = ()):
    """One of `lines`, chosen by `line` (the same line, the same answer), for `speaker`: the
    first from there on that is not among the lines `said` already in the conversation (the
    same canned line twice reads like a clerk: held-out seed 73019); None if all were."""
    start = sum(map(ord, line[:MAX_CHARS])) % len(lines)
    used = {" ".join(s[:MAX_CHARS].lower().split()) for s in said}
    options = [
        lines[(start + i) % len(lines)].format(speaker=speaker or "friend")
        for i in range(len(lines))
    ]
    return next((o for o in options if " ".join(o.lower().split()) not in used), None)


def _one_of(lines: tuple[str, ...], line: str, speaker: str, said: Sequence[str] = ()) -> str:
    """`_unsaid`, or when every one was said already, the one chosen by `line` again."""
    return _unsaid(lines, line, speaker, said) or _unsaid(lines, line, speaker)


# To a question its model could only answer with a line it had said already.
_UNSURE = (
    "I couldn't rightly say, {speaker}.",
    "Hard to say, {speaker}. I'd have to think on it.",
    "Now there's a question, {speaker}. I'm not sure.",
)


# To a yes-or-no question of its days ("Have you had a long day, Maren?", "Is the forge always
# this hot?", "Do you ever tire of singing?"): "Hard to say, Thorne. I'd have to think on it."
# was no answer a person gives (held-out seed 92821).
_OF_ITS_DAYS = ("Some days more than others, {speaker}.", "It depends on the day, {speaker}.")
_YES_OR_NO = re.compile(
    r"^\W*(?:[A-Z][a-z]+,\s*)?(?:have|has|is|are|do|does|did|was|were) (?:you|it|the|this)\b", re.I
)


def unsure_line(line: str, speaker: str, said: Sequence[str] = ()) -> str:
    """The NPC's plain answer to a question when all its model gave was a line said before."""
    asked = line[:MAX_CHARS]
    if _YES_OR_NO.match(asked) and not FIRST_PERSON.search(asked):
        return _one_of(_OF_ITS_DAYS, line, speaker, said)
    return _one_of(_UNSURE, line, speaker, said)


def farewell_line(line: str, speaker: str, said: Sequence[str] = ()) -> str:
    """The NPC's plain goodbye, for a farewell its model could only give back."""
    return _one_of(_FAREWELLS, line, speaker, said)


# Small talk of the moment is no fact to remember: "Is that so, Nell? I'll remember that." to "The
# wind off the river is bitter tonight." (held-out seed 74573, four times in eight scenarios).
# The weather, being worn out, and the way here, each met as a person would.
_MOMENT = (
    (
        re.compile(r"\b(?:hungry|thirsty|eaten|starving)\b", re.I),
        (
            "You'd best get something warm in you, {speaker}.",
            "Nobody should go that long without a bite, {speaker}.",
        ),
    ),
    (
        re.compile(
            r"\b(?:rain\w*|wind|snow\w*|storm\w*|weather|bitter|freezing|fog|soaked|wet)\b", re.I
        ),
        ("Aye, it's that kind of day, {speaker}.", "It's that time of year, {speaker}."),
    ),
    (
        re.compile(
            r"\b(?:tired|weary|slept|legs|feet|rest|sit|slipped|tripped|footsore)\b",
            re.I,
        ),
        ("Sit and rest a while, {speaker}.", "Take a moment and catch your breath, {speaker}."),
    ),
    (
        # "Well, you're here now, Xander." to "The road was full of pilgrims today." (held-out
        # seed 31079): the crowd is the news, not their way here.
        re.compile(r"\b(?:pilgrims|crowds?|full of|travell?ers)\b", re.I),
        ("Busy times, {speaker}.", "So I hear, {speaker}."),
    ),
    (
        re.compile(r"\b(?:walk|road|roads|journey|ride|docks|climb)\b", re.I),
        ("Well, you're here now, {speaker}.", "So I hear, {speaker}."),
    ),
)


# What a player tells of their own life, met as a person would, never in their words: a third
# of the tellings in held-out seed 17389 met one of the six _HEARD lines, a clerk's courtesy.
_TOLD = (
    (
        r"\b(?:allergic|rash|can'?t (?:eat|touch|stomach)|cannot (?:eat|touch)|"
        r"makes? me (?:sick|ill|break)|off my plate|anything you serve me)\b",
        (
            "I'll see none of it comes your way, {speaker}.",
            "None of that for you, then, {speaker}.",
        ),
    ),
    (
        r"\b(?:afraid|fear\w*|scared|frighten\w*|terrif\w*|dread\w*)\b",
        (
            "There's no shame in that, {speaker}.",
            "I'll not laugh at it, {speaker}. We all fear something.",
        ),
    ),
    (
        # "the lost mine of Carrow" is no loss
        r"\b(?:vanished|disappeared|died|dead|drowned|lost (?:my|his|her|their|our)|"
        r"(?:was|were|got) lost|missing|burned|burnt|"
        r"never (?:came back|wrote back|returned))\b",
        ("I'm sorry to hear it, {speaker}.", "That's a hard thing, {speaker}. I'm sorry."),
    ),
    (
        r"\b(?:by trade|for a living|earn my living|my trade)\b",
        ("An honest trade, {speaker}.", "Good work, that, {speaker}."),
    ),
    (
        r"\b(?:dream|ambition|one day i|before i'?m old|i mean to|i want to|i hope to|"
        r"money aside|saving (?:up )?(?:for|to))\b",
        ("I hope you get there, {speaker}.", "A fine thing to aim for, {speaker}."),
    ),
    (
        r"\b(?:treasure|precious|never left my side|always carry)\b",
        ("Keep it close, {speaker}.", "Mind you keep it safe, {speaker}."),
    ),
    (
        r"\bmy (?:[\w-]+ ){0,2}(?:dog|cat|goat|horse|raven|parrot|ferret|tortoise|donkey|mule|"
        r"hound|pony|hen|pig|owl|crow|rabbit|hare)\b",
        ("Sounds a fine beast, {speaker}.", "Good to have a companion, {speaker}."),
    ),
    (
        r"\b(?:i'?m from|i am from|i come from|i came (?:here )?from|grew up in|home for me)\b",
        ("Welcome, {speaker}. You're among friends here.", "Welcome to our town, {speaker}."),
    ),
)
# No line opens "Then ...": a small model copies the opening it sees in its history, and
# "Then welcome, Verity." was followed by "Then remember. You're not alone." to news of silver
# found and "Then remember. You'll never be old." to a climb planned (held-out seed 33457).
_TOLD_KINDS = tuple((re.compile(pattern, re.I), lines) for pattern, lines in _TOLD)


_GREETING = re.compile(r"\b(?:good (?:morning|evening|day|afternoon)|hello|greetings)\b", re.I)


def heard_line(line: str, speaker: str, said: Sequence[str] = ()) -> str:
    """The NPC's plain answer to a line its model could only hand back (see `restates`): to
    small talk of the moment, a word for it; to what they tell of their own life, a word for
    that kind of thing (`_TOLD`, not said twice in a conversation); to a greeting alone, the
    greeting; else that it heard it."""
    head = line[:MAX_CHARS]
    greeting = _GREETING.search(head)
    if greeting and not tells_more_than_a_greeting(head, (speaker,)):
        # "Is that so, Corwen? I'll remember that." to "Good evening, Voss." (telnet trial)
        return f"{greeting.group(0).capitalize()}, {speaker}."
    if not _LASTING.search(head) and not _NEWS.search(head):
        for pattern, lines in _MOMENT:
            if pattern.search(head):
                return _one_of(lines, line, speaker, said)
    for pattern, lines in _TOLD_KINDS if FIRST_PERSON.search(head) else ():
        if pattern.search(head):
            if kind := _unsaid(lines, line, speaker, said):
                return kind
            break
    return _one_of(_HEARD, line, speaker, said)


def all_heard_lines(speaker: str) -> list[str]:
    """Every line `heard_line` may say to a telling of `speaker`'s own life, small talk aside."""
    told = [t for _pattern, lines in _TOLD_KINDS for t in lines]
    return [t.format(speaker=speaker) for t in (*told, *_HEARD)]


# News of someone else is no small talk: "Well, you're here now, Quentin." to "Essa the goose
# girl was robbed on the north road." (held-out seed 69127).
_NEWS = re.compile(
    r"\b(?:heard|news|they say)\b"
    r"|\b(?!(?:The|It|My|This|That|A|An|I|Our|Your)\b)[A-Z][a-z]+ (?:[a-z]+ ){0,3}"
    r"(?:had|has|was|got)\b"
)


# What is told for good, not of the moment: "I cannot eat wheat", "I'm a carpenter".
_LASTING = re.compile(
    r"\b(?:always|never|can'?t|cannot|afraid|fear\w*|allergic|trade|living|born|grew up|"
    r"(?:i'?m|i am|come|came|hail) from|"
    # "... my grandmother, Winifred: she lives alone out past the marsh road." was met with
    # "Well, you're here now, Aurelie." (held-out busy seed 62477): kin of any kind, and where
    # someone lives, are told for good.
    # A plan is no walk of the moment: "I'm putting money aside to climb the Greyfang mountain."
    # was met with "Well, you're here now, Yestin." (held-out busy seed 25463).
    r"one day|dream|ambition|mean to|want to|hope to|money aside|saving|"
    r"called|named|lives?|you should know|my (?:\w+ )?(?:brother|sister|mother|father|son|"
    r"daughter|wife|husband|grand\w+|uncle|aunt|cousin|nephew|niece|friend))\b",
    re.I,
)


def dont_know_line(topic: str, speaker: str) -> str:
    """The NPC's plain answer about something it was never told."""
    if not about_the_speaker(topic):
        return f"I couldn't tell you {topic}, {speaker}."
    return f"You never told me {told_about(topic)}, {speaker}."


def plain_line(
    message: str, speaker: str, topic: str | None, answer: str | None, said: Sequence[str] = ()
) -> str | None:
    """The NPC's own plain line for what `speaker` said (`message`), when the model's will not
    do: what it was never told (`topic`) it does not know; a question about the speaker's own
    life, what it remembers (`answer`); a goodbye, a goodbye; a statement, that it heard it
    (not in words it `said` already). None for another question (nothing plain to say)."""
    if topic:
        return dont_know_line(topic, speaker)
    if answer:
        return remembered_line(answer, speaker)
    if is_goodbye(message):
        return farewell_line(message, speaker, said)
    if not ends_asking(message):  # "See this? It's an iron key." tells
        return heard_line(message, speaker, said)
    return None

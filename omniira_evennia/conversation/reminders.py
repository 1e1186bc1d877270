"""
The reminder a reply that slipped is asked again with (turn.run_turn), suited to the slip: the
NPC's own words for a line given back, who it is for a reply in the player's or an
assistant's voice, that it was never told, what it knows, or that it said this already.

Plain Python.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation import (
    embellishments,
    narration,
    plain_lines,
    recitals,
    registers,
    shapes,
    trades,
    voice,
)
from omniira_evennia.conversation.prompts import PromptContext
from omniira_evennia.conversation.wares import own_wares
from omniira_evennia.conversation.words import ends_asking

NEVER_TOLD = "answered what it was never told"
MISSTATES = "said otherwise what it knows"
REPEATED = "said again what it said before"  # repeats.repeats_earlier
WONT_DISCUSS = "speaks_of_what_it_will_not"  # the slip's name (guard.unwanted_topics)
OWN_WARES = "did not know its own wares"  # guard.wares_unknown
TURNED_ROUND = "said the question's words back"  # handback.question_turned_round


# Reminders for slips that need no more than the two names.
_SLIP_REMINDERS = {
    voice.CHEERS: "({speaker} told you of something hard for them. Answer as {name}, kindly, in "
    "your own words.)",
    embellishments.INVENTS_WHAT_THEY_NAMED: "(You know nothing of what {speaker} named but what "
    "{speaker} said: do not describe it or say you have been there. Answer as {name}, with a "
    "question of your own.)",
    registers.OUT_OF_WORLD: "(There is no such thing in your world, {name}. Answer {speaker} "
    "with what you know of it.)",
    trades.MISGIVEN_ROLE: "(Say of the people of this town only what you know of them, {name}; "
    "what you do not know of them, say you do not know.)",
    recitals.RECITES: "(Answer what {speaker} just said, as {name}, in your own words: not a "
    "line of what you know that they did not ask about.)",
    narration.NARRATES: "({speaker} knows what they just told you: do not tell it back to them. "
    "Answer as {name}, with what you think of it, or a question of your own.)",
    voice.GIVEN_TO_ANOTHER: "({speaker} said this of themselves, not of anyone else. Answer "
    "{speaker} about it, as {name}.)",
    plain_lines.MISSTATES_ITS_YEARS: "(Say how long you have been here as you know it, {name}: "
    "no other number.)",
    trades.THEIRS_AS_MINE: "(What you remember of {speaker} is {speaker}'s own life, not yours, "
    "{name}: say it to {speaker} as theirs.)",
    shapes.RUNS_ON: "(Say it as {name} would across the counter: one or two short sentences.)",
    shapes.LEAVES: "({speaker} is the one leaving; you stay here. Say goodbye as {name}.)",
    shapes.ASKS_IT_BACK: "(Answer {speaker} yourself, as {name}, with what you think or know: "
    "do not ask {speaker} what they think of it.)",
    embellishments.THEIR_KIN_UNTOLD: "(Of {speaker}'s family you know only what {speaker} told "
    "you. Answer as {name}, in your own words.)",
    shapes.NAMES_NONE: "(Name them, {name}: say which, from what you know of this town.)",
}


def mended_rather_than_asked(reply: str, line: str) -> bool:
    """
    Told something (the line ends asking nothing), a reply that slipped is mended where it
    stands (turn.final_line: without its slipped sentences, else the plain line that it heard)
    rather than asked for again. Read by hand over 147 first replies the guard asked again
    (held-out seeds 31079, 42139, 58447), a telling's second try from the model was one a player
    would accept 12 times in 31 and worse than the first 10 times ("Oh, sorry, I didn't
    understand what you meant. Could you please rephrase your question?" to a home told), where
    the plain lines were acceptable 41 times in 42. A question is still asked again: there the
    second try was acceptable 22 times in 31. A reply with nothing to mend is asked again.
    """
    return bool(reply.strip()) and not ends_asking(line)


def asked_again(
    messages: list[dict[str, str]], ctx: PromptContext, problem: str = ""
) -> list[dict[str, str]]:
    """The same request with a reminder on the last line, suited to what went wrong."""
    name, speaker = ctx.identity.name, ctx.speaker_name
    if problem == REPEATED:
        reminder = (
            f"(You have said that already. Answer what {speaker} just said, as {name}, in new "
            "words.)"
        )
    elif problem.startswith("slipped") and (
        "doubts_the_telling" in problem or embellishments.KNEW_IT_ALREADY in problem
    ):
        # Met with not knowing it, the news is often given back too ("I don't know if you can
        # touch pepper."): what it is told is the reminder that helps.
        reminder = (
            f"({speaker} is telling you this now, so now you know it. Answer as {name}, in your "
            "own words.)"
        )
    elif problem == f"slipped: {voice.RESTATED}":
        # Only their words given back ("Yes, the forge is always hot." to "Is the forge always
        # this hot, Voss?"): who it is was never in doubt, so that reminder would not help.
        reminder = (
            f"(Answer {speaker} in your own words, as {name}: not {speaker}'s words back; say "
            "what you think of it, or ask about it.)"
        )
    elif problem == f"slipped: {trades.ANOTHERS_TRADE}":
        role = f", the {ctx.identity.role}" if ctx.identity.role else ""
        reminder = (
            f"(Say what you yourself do, {name}{role}: not another's trade. If it is not "
            "yours, say so.)"
        )
    elif problem.startswith("slipped") and WONT_DISCUSS in problem:
        # First, whatever else slipped with it: "your late husband, Tomas" is untold kin too.
        topics = "; ".join(w.topic for w in ctx.wont_discuss)
        reminder = f"(Do not speak of {topics}. Answer {speaker} as {name}, in your own words.)"
    elif problem.removeprefix("slipped: ") in _SLIP_REMINDERS:
        reminder = _SLIP_REMINDERS[problem.removeprefix("slipped: ")].format(
            name=name, speaker=speaker
        )
    elif problem.startswith("slipped"):
        reminder = (
            f"(You are {name}, a person in this world, not an assistant and not {speaker}: "
            f'"I" is you, {name}; "you" is {speaker}. Answer in your own voice; offer no help.)'
        )
    elif problem == OWN_WARES:
        wares = " ".join(k.text for k in own_wares(ctx)[:4])
        reminder = f"(You know what you sell, {name}: {wares} Answer {speaker} from that.)"
    elif problem == TURNED_ROUND:
        reminder = (
            f"(Answer {speaker}'s question as {name}, and add something of your own: why, or "
            "how you feel about it. Not the question's words turned round.)"
        )
    elif problem == NEVER_TOLD:
        reminder = f"({speaker} never told you this. Say plainly that you do not know.)"
    elif problem.startswith(MISSTATES):
        known = problem[len(MISSTATES) + 2 :]
        reminder = f"(That goes against what you know, {known}. Say it as you know it.)"
    else:
        reminder = (
            f"(Answer {speaker} now with the words you, {name}, say aloud: first person, your "
            "own words, no narration, not their words repeated.)"
        )
    nudged = [dict(m) for m in messages]
    nudged[-1]["content"] += f"\n\n{reminder}"
    return nudged


# The openings of `asked_again`'s reminders: a note that quotes one is the prompt's words.
REMINDER = re.compile(
    r"\((?:You are [^,]+, a person in this world|That goes against "
    r"what you know|Answer \S+ now with the words|Answer \S+ in your own words|"
    r"You have said that already|Say what you yourself do|"
    r"\S+ never told you this|\S+ is telling you this now|Do not speak of|You know what you sell|"
    r"Answer \S+'s question as|You know nothing of what|Answer what \S+ just said|"
    r"\S+ told you of something hard|Say of the people of this town|"
    r"There is no such thing in your world|\S+ said this of themselves|\S+ knows what they just|"
    r"Say how long you have been here|Say it as \S+ would across|\S+ is the one leaving|"
    r"Answer \S+ yourself, as|What you remember of \S+ is|Of \S+'s family you know|Name them, \S+: say which)"
)

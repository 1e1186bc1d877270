"""
What a reply that slipped becomes (guard.repaired): a question about the NPC answered as the
player's said as its own (`turned_round`), its own doubt said as its own (`own_doubt_turned`),
or the reply without its sentences that slip (`without_slips`); and how every reply names the
two of them (`unaddressed`: not the NPC's own name said to the listener, `to_the_listener`:
"your" for the listener's name). The slips are voice.py's.

Plain Python; reads at most voice.MAX_CHARS of a reply.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.phrasing import ADVERB, first_person_verb
from omniira_evennia.conversation.swaps import DOUBT_LEAD, DOUBTING, SOMEONE
from omniira_evennia.conversation.voice import (
    CLAUSE_LEAD,
    FIRST_PERSON,
    GREETING_LEAD,
    SAID_VERBS,
    answered_as_player,
    answers_about_them,
    capped,
    is_question,
    sentence_list,
    slips,
)
from omniira_evennia.conversation.words import rx

_YOU_SUBJECT = re.compile(
    r"^(?P<lead>\W*(?:(?:yes|no|oh|well|ah|aye|hm+)[,!.]?\s+)?)(?P<you>you(?:'re|'ve|'ll|'d)?)"
    r"(?P<verb>\s+(?:are|were)\b)?",
    re.IGNORECASE,
)
_AS_MINE = {"you": "I", "you're": "I'm", "you've": "I've", "you'll": "I'll", "you'd": "I'd"}


def turned_round(reply: str, line: str) -> str:
    """
    A question about the NPC answered as the player's ("What do you charge?" -> "You charge two
    copper for a cider."): each such sentence said as the NPC's own ("I charge two copper for a
    cider."). Only the subject that opens the sentence turns round; the rest stays.
    """
    out = []
    whole = answers_about_them(reply, line)  # every statement of it: each turns round
    for sentence in sentence_list(capped(reply)):
        match = _YOU_SUBJECT.match(sentence)
        if match and (whole or answered_as_player(sentence, line)):
            verb = (match.group("verb") or "").strip().lower()
            mine = _AS_MINE[match.group("you").lower()]
            verb = {"are": " am", "were": " was"}.get(verb, "")
            sentence = match.group("lead") + mine + verb + sentence[match.end() :]
        out.append(sentence)
    return " ".join(out)


_DOUBT_AS_YOURS_TURN = re.compile(
    rf"(?P<lead>{DOUBT_LEAD})(?P<you>you(?:'re| are)?)(?=\s+{DOUBTING})", re.IGNORECASE
)
_DOUBT_AS_MINE = {"you": "I", "you're": "I'm", "you are": "I am"}


def own_doubt_turned(reply: str) -> str:
    """The NPC's own not knowing said back as its own ("You do not know." -> "I do not know.",
    "You're not sure where the shrine is." -> "I'm not sure where the shrine is.")."""
    return _DOUBT_AS_YOURS_TURN.sub(
        lambda m: m.group("lead") + _DOUBT_AS_MINE[" ".join(m.group("you").lower().split())],
        capped(reply),
    )


# A spoken line is weighed a sentence at a time, at most this many (each costs a few patterns).
MAX_SENTENCES = 6


def without_slips(reply: str, line: str, npc: str, speaker: str, role: str = "") -> str:
    """`reply` without its sentences that slip (the rest stays); "" if nothing is left."""
    pieces = sentence_list(capped(reply))
    if len(pieces) > MAX_SENTENCES:  # "a.a.a..." is 400 sentences: the rest is read as one
        pieces = pieces[: MAX_SENTENCES - 1] + [" ".join(pieces[MAX_SENTENCES - 1 :])]
    kept = [s for s in pieces if not slips(s, line, npc, speaker, role)]
    return " ".join(kept)


def unaddressed(reply: str, npc: str, speaker: str = "") -> str:
    """`reply` without the NPC's own name said to the listener ("I play at the market, Lyra."
    from Lyra -> "I play at the market."; "Wren, it's late." -> "It's late."). A speaker of
    the same name is addressed rightly, and the reply stays as it is."""
    if not npc or npc.lower() == (speaker or "").lower():
        return reply
    name = re.escape(npc)
    text = _unframed(capped(reply), name)
    text = _GIVES_ITSELF.sub(r"\1 you", _NOUN_AS_A_NAME.sub(r"\1", text))
    text = re.sub(rf",\s*{name}\s*([.!?])", r"\1", text, flags=re.IGNORECASE)
    opening = re.match(
        rf"^(?P<pre>\W*)(?P<greeting>{GREETING_LEAD})?{name}\s*,\s*", text, re.IGNORECASE
    )
    if opening:
        greeting, rest = (opening.group("greeting") or "").strip(), text[opening.end() :]
        rest = f"{greeting.rstrip(',!.')}, {rest}" if greeting else rest[:1].upper() + rest[1:]
        text = opening.group("pre") + rest
    return text


# The question's own noun said as if it were a name: "You draw maps of the marshes, your
# trade.", "You shouldn't touch mushrooms, your plate." (held-out busy seed 57287).
_NOUN_AS_A_NAME = re.compile(r",\s+your\s+(?!love\b|dear\b)[a-z]+\s*([.!?])\s*$")
# "I could give me a willow-bark tea for aches" (held-out busy seed 57287): the listener.
_GIVES_ITSELF = re.compile(r"\b([Ii] (?:could|can|will|'ll|would|shall) give) me\b")


def _unframed(reply: str, name: str) -> str:
    """The NPC's line framed as said to itself ('You, Maren, say, "I remember that you said you
    were from Frosthollow."': held-out seed 63341) -> the words inside the quotes."""
    framed = re.match(
        rf"^\W*you,\s*{name}\s*,\s*(?:say|said|reply|replied|answer|answered)\s*[,:]?\s*"
        rf'["\u201c](?P<said>[^"\u201d]+)["\u201d]?\s*$',
        reply,
        re.IGNORECASE,
    )
    return framed.group("said").strip() if framed else reply


def own_name_as_mine(reply: str, npc: str, speaker: str = "") -> str:
    """`reply` with the NPC's own name in the possessive said as "my": "Wren's herb stall sells
    willow-bark tea ..." from Wren (held-out seed 92821, asked what she sells) -> "My herb stall
    sells ...". A speaker of the same name may be meant, and the reply stays as it is."""
    if not npc or npc.lower() == (speaker or "").lower():
        return reply

    def mine(match: re.Match) -> str:
        opens = match.start() == 0 or re.search(r"[.!?]\W*$", reply[: match.start()])
        return "My" if opens else "my"

    return re.sub(rf"\b{re.escape(npc)}'s\b", mine, capped(reply))


# "You're right, Leander." to "If you ever see me go pale, it's rats: I fear them more than
# anything." (held-out seeds 19447, 45119, 62903, 67219, 71359, 94727; busy 90271 to "what am I
# afraid of?"), "That's true, Katriona." to "I cannot eat milk" (seed 35089): agreement with a
# line that asserted nothing to agree with.
_HOLLOW_AGREEMENT = re.compile(
    # "Oh, Zinnia, you're right. Ottilie lives out past ..." (held-out seed 86753): a name first.
    r"^\W*(?:(?:yes|oh|ah|well|aye),?\s+)?(?:[A-Z][a-z]+,\s+)?(?:you'?re|you are|that'?s|that is) "
    r"(?:quite |absolutely |so )?(?:right|correct|true)(?:,\s*[A-Z][a-z]+)?"
    r"\s*[.!,;:\u2014-]+\s*(?=\S)",
    re.IGNORECASE,
)


def without_hollow_agreement(reply: str, line: str) -> str:
    """`reply` without a leading "You're right[, name]." ("That's true.") when the line it
    answers asked, or told of the speaker (FIRST_PERSON): there was no opinion of theirs to
    agree with. An opinion ("The ale here is the best in the valley.") may be agreed with."""
    if not (is_question(line) or FIRST_PERSON.search(line)):
        return reply
    lead = _HOLLOW_AGREEMENT.match(capped(reply))
    if lead is None:
        return reply
    rest = reply[lead.end() :]
    return rest[:1].upper() + rest[1:]


_TO_THEM = {"is": "are", "was": "were", "has": "have", "does": "do", "doesn't": "don't"}
_TO_THEM |= {"isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't"}  # not "you am not"


def _said_to_them(rest: str) -> str:
    """What follows "you never told me" with them as he or she said to them as "you"."""
    rest = re.sub(r"\b(?:his|her|their)\b(?=\s+[a-z])", "your", rest)
    # Any verb of theirs agrees with "you": "where she comes from" -> "where you come from"
    # (held-out busy seed 25463 said "You never told me where you comes from.").
    return re.sub(
        rf"\b(?:he|she)\b(?:\s+({ADVERB})([a-z']+)\b)?",
        lambda m: "you"
        + (
            f" {m.group(1) or ''}{_TO_THEM.get(m.group(2), first_person_verb(m.group(2)))}"
            if m.group(2)
            else ""
        ),
        rest,
    )


_LOWERED = frozenset("you your yours yes no it that there the a an we my aye well oh".split())


def _lowered(word: str) -> str:
    """A sentence's first word, now inside one: a name or "I" keeps its capital."""
    return word.lower() if word.lower() in _LOWERED else word


def to_the_listener(reply: str, speaker: str, npc: str = "", of_them: bool = False) -> str:
    """The speaker called by name in what is said to them: "I don't know Gerwyn's dog's name,
    Gerwyn." -> "I don't know your dog's name, Gerwyn."; "Gerwyn never told me" -> "You never
    told me"; "Wow, talia!" -> "Wow, Talia!" (a player sharing the NPC's name is left as said)."""
    if not speaker or speaker.lower() == (npc or "").lower():
        return reply
    # The speaker's own line written for them ('Jessamy says: "..."') stays as written, for the
    # guard to see it so (turned, it read 'You say: "..."': held-out seed 44207).
    if rx(rf"^\W*{re.escape(speaker)}\s+{SAID_VERBS}\b", re.I).match(reply):
        return reply
    # Called by name as a sentence of its own: "Quill. You grew up in the hill country." (held-out
    # seed 51263, twice) -> "Quill, you grew up ...".
    reply = rx(rf"^(\W*{re.escape(speaker)})\.\s+([A-Z]\w*)").sub(
        lambda m: f"{m.group(1)}, {_lowered(m.group(2))}", reply
    )
    # Called at both ends: "Fiora, your great ambition is to climb the Greyfang mountain,
    # Fiora." (held-out seed 70919) keeps the first.
    if rx(rf"^\W*{re.escape(speaker)},").match(reply):
        reply = rx(rf",\s*{re.escape(speaker)}\s*([.!?])\s*$").sub(r"\1", reply)

    def yours(match: re.Match) -> str:
        opens = match.start() == 0 or re.search(r"[.!?]\s*$", reply[: match.start()])
        return "Your" if opens else "your"

    name = re.escape(speaker)
    # "Emrys' brother Godfrey" to Emrys (held-out seed 19447) as much as "Emrys's brother".
    text = rx(rf"\b{name}(?:'s\b|’s\b|'(?=\s))").sub(yours, capped(reply))
    # Called by name in lower case ("Wow, talia!": seed 62903, busy): as they spell it.
    text = rx(rf"(,\s*){name}(?=\s*[.!?,])", re.I).sub(lambda m: m.group(1) + speaker, text)
    # "Ysolde never told me about a dog." said to Ysolde: "You never told me about a dog."
    # After a colon too: "I know nothing about your life: Yara never told me." (seed 19447).
    text = rx(
        rf"(^|[.!?]\s+|[:;]\s*){name} (never|didn't|did not|hasn't|has not) (told|tell|mentioned|"
        r"mention|said|say)\b([^.!?]*)"
    ).sub(
        lambda m: f"{m.group(1)}{_you_after(m.group(1))} {_HAVE.get(m.group(2), m.group(2))} "
        f"{m.group(3)}"
        # "... the name of his goat": theirs, said to them (held-out seed 67219); "... what he
        # cannot eat" too (busy seed 42139).
        + _said_to_them(m.group(4)),
        text,
    )
    # "I do not remember Fenwick doing anything for a living." said to Fenwick (held-out seed
    # 77213): "remember you doing".
    text = rx(
        rf"\b(remember|recall|know of|imagine|picture|see)\s+{name}\s+(?=[a-z]+ing\b)",
        re.IGNORECASE,
    ).sub(r"\1 you ", text)
    # "I don't know what frightens Odalys." said to Odalys (telnet trial, 2026-12-05).
    text = rx(rf"\b(what|who)\s+([a-z]+s)\s+{name}\b(?!')").sub(r"\1 \2 you", text)
    # "I remember: you ferret's name is Pocket." (held-out seed 73811): "your ferret's".
    text = re.sub(
        r"\b([Yy])ou (?!(?:what|that|it|there|here|who|where|how|he|she|let|one|when|why)'s)"
        r"(?=[a-z]+'s\b)",
        r"\1our ",
        text,
    )
    return _spoken_to(text, name, of_them)


_HAVE = {"hasn't": "haven't", "has not": "have not"}
_BEFALLS_THEM = re.compile(
    r"\b(makes?|made|gives?|gave)\s+(?:him|her)\b(?!\s+[a-z]+s\b)|\b(leaves?|left)\s+him\b"
)
# "... it has never left her side." is their side: "left you side" (held-out seed 35089).
_THEIR_TRADE_NAMED = re.compile(
    r"([;:]\s+|,\s+and\s+)(?:he|she|they)\s+(is|was|are|were)(?=\s+an?\s+[a-z]+"
    r"(?:er|or|ist|smith|wright)\b)"
)
_BE = {"is": "are", "was": "were", "are": "are", "were": "were"}
# Their "her" (or "him") as an object, after a clause's subject of the other sex or "it".
_THEM_AFTER_OTHER = re.compile(
    r"\b(he\b[^.;!?]*?\b)(her)\b(?=\s+(?:everywhere|around|about|home|away|back|again|too|"
    r"always|dearly|so|very|more|most|to|from|with|at|in|on|for|into)\b|\s*[.,;!?]|\s*$)",
    re.IGNORECASE,
)
_LEFT_THEIRS = re.compile(r"\b(leaves?|left)\s+her\b(?=\s+[a-z])")


def _you_after(lead: str) -> str:
    return "you" if lead.strip() in (":", ";") else "You"


_SECOND_PERSON = {
    **{"is": "are", "was": "were", "has": "have", "does": "do", "doesn't": "don't"},
    **{"are": "are", "were": "were", "have": "have"},  # "since they were a child"
    **{"isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't"},
    # The same for "you": "I don't know what Benedikt cannot eat." -> "what you cannot eat".
    **{v: v for v in "can can't cannot could will won't would did didn't never".split()},
}
_PAST = set("grew came went had lost found said told kept sold fell broke left".split())
# The speaker as a sentence's subject, at its start or after "I know" ("Linnea is from Redfern."
# to Linnea, "I know Maelis keeps a speckled horse": replayed held-out replies), or of a
# clause ("I don't know what Araminta does for a living.", 16 of 821 replayed first replies).
_SUBJECT = (
    r"(?P<lead>^\W*|[.!?]\s+|\b(?:yes|no|oh|ah|well|aye),\s+|\b(?:know|remember|recall|heard)"
    r"(?: that)?\s+|" + CLAUSE_LEAD + r")"
    r"{name}\s+(?P<adverb>(?:always|never|often|still|also|usually|sometimes|just|really)\s+)?"
    r"(?P<verb>[a-z']+)\b"
)
_THIRD_PERSON_PRONOUN = re.compile(r"\b(?:he|she|his|him|her|hers|himself|herself)\b", re.I)


def _second_person(verb: str) -> str | None:
    """A present or past verb said of "you": is -> are, keeps -> keep, grew -> grew; None for a
    word that is no verb it knows to turn."""
    if verb in _SECOND_PERSON:
        return _SECOND_PERSON[verb]
    if verb.endswith("ed") or verb in _PAST:
        return verb
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:sh|ch|ss|x|o)es$", verb):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss") and len(verb) > 3:
        return verb[:-1]
    return None


# In a memory of them, "She makes and mends shoes." after "Keturah is a cobbler." is theirs too
# (held-out busy seed 66617): the sentence after one turned to them (`_spoken_to`).
_FOLLOWING = re.compile(r"^(?P<lead>\W*)(?:she|he|they)\s+(?P<verb>[a-z']+)\b", re.IGNORECASE)


# "... since she was a child" in a memory of the listener is their childhood: a he or she
# in a clause of time after their turned subject is theirs, whoever else the sentence names.
_THEIR_TIME = re.compile(
    r"\b(since|when|while|before|after|until)\s+(?:he|she|they)\s+(was|were|is|are|has|have|had)\b",
    re.I,
)


_HE = ("he", "his", "him", "himself")
_SHE = ("she", "her", "hers", "herself")
# Someone the pronoun could be instead of the listener: kin, a person, by the pronoun's sex.
_OTHERS_OF = {
    _HE: r"brother|father|son|husband|uncle|grandfather|grandson|nephew|man|boy|lad|cousin|friend",
    _SHE: r"sister|mother|daughter|wife|aunt|grandmother|granddaughter|niece|woman|girl|lass|"
    r"cousin|friend",
}


def _only_theirs(sentence: str, name: str) -> bool:
    """Whether every he (or every she) of a sentence about the listener can be only theirs:
    one sex of pronoun, no other name and no other person of that sex in it ("Niall treasures
    his wife's portrait, which he never lets out of his sight": held-out seed 44207)."""
    words = re.findall(r"[a-z']+", sentence.lower())
    used = [kind for kind in (_HE, _SHE) if any(w in kind for w in words)]
    if len(used) != 1:
        return False
    names = set(re.findall(r"(?<=\S )[A-Z][a-z]+", sentence)) - {name}
    others = re.search(rf"\b(?:{_OTHERS_OF[used[0]]})s?\b", sentence, re.IGNORECASE)
    # "Niall loves her": one spoken of, not the speaker ("herself" would be).
    spoken_of = re.search(
        r"\bhim\b|\bher\b(?=\s*(?:[.,;:!?]|$|(?:to|and|with|so|for|at|in|on|"
        r"from|back|again|too|dearly|very|a|an|the)\b))",
        sentence,
        re.I,
    )
    return not names and others is None and spoken_of is None


def _their_pronouns(sentence: str) -> str:
    """he / she, his / her, himself / herself said to the listener: "which he never lets out
    of his sight" -> "which you never let out of your sight" (`_only_theirs` holds)."""

    def subject(match: re.Match) -> str:
        adverb, verb = match.group(1) or "", match.group(2)
        turned = _second_person(verb.lower())
        return f"you {adverb}{turned}" if turned else match.group(0)

    sentence = re.sub(
        r"\b(?:he|she)\s+((?:never|always|often|still|also|just)\s+)?([a-z']+)\b",
        subject,
        sentence,
    )
    sentence = re.sub(r"\b(?:himself|herself)\b", "yourself", sentence)
    sentence = re.sub(r"\b(?:his|hers)\b", "your", sentence)
    return re.sub(r"\bher\b(?=\s+[a-z])", "your", sentence)  # her own: what follows is hers


def _spoken_to(text: str, name: str, of_them: bool = False) -> str:
    """Sentences with the speaker as their subject said to them ("Linnea is from Redfern." ->
    "You are from Redfern."), unless the sentence also says he or she: whose is then unclear.
    In a memory of them (`of_them`) it is clear: the sentence is about them, and the "her" of
    "Yara earns her living" theirs ("You earn your living"; held-out seed 19447)."""

    def turned(match: re.Match) -> str:
        verb = _second_person(match.group("verb").lower())
        if verb is None:
            return match.group(0)
        lead, adverb = match.group("lead"), match.groupdict().get("adverb") or ""
        opens = not lead.strip(" \t\"'") or lead.rstrip().endswith((".", "!", "?"))
        return f"{lead}{'You' if opens else 'you'} {adverb}{verb}"

    pattern = rx(_SUBJECT.format(name=name), re.IGNORECASE)
    parts = re.split(r"((?<=[.!?])\s+)", text)  # sentences and the spaces between them

    def said_to_them(sentence: str, after_theirs: bool) -> str:
        if not of_them:
            if not _THIRD_PERSON_PRONOUN.search(sentence):
                return pattern.sub(turned, sentence)
            spoken = pattern.sub(turned, sentence, count=1)
            if spoken == sentence or not _only_theirs(sentence, name):
                return sentence
            return _their_pronouns(spoken)
        spoken = pattern.sub(turned, sentence, count=1)
        if spoken == sentence and after_theirs:
            spoken = _FOLLOWING.sub(turned, sentence, count=1)
        if spoken == sentence:
            # Named as the object, theirs is every he of it: "Honey makes Idris break out in a
            # rash, so he keeps it off his plate." (held-out seed 92821; named_as_you turns the
            # name).
            named = re.search(rf"\b{re.escape(name)}\b", sentence)
            return _their_pronouns(sentence) if named and _only_theirs(sentence, name) else sentence
        # "You make and mends shoes": the second verb of the pair too.
        spoken = re.sub(
            r"\b([Yy]ou \w+ and )([a-z]+s)\b",
            lambda m: m.group(1) + (_second_person(m.group(2)) or m.group(2)),
            spoken,
            count=1,
        )
        # "Linnea has been terrified of rats since she was a child." -> "... since you were a
        # child" (held-out seed 77213).
        spoken = _THEIR_TIME.sub(
            lambda m: f"{m.group(1)} you {_second_person(m.group(2).lower())}", spoken
        )
        # Their memory's singular "they" after the turned subject: "Isolde always carries a tin
        # whistle; they would run into a burning house for it." (held-out seed 52391).
        spoken = re.sub(r"([;:]\s+|,\s+and\s+)they\b", r"\1you", spoken)
        # Their "she" too, after a thing, not a beast or a person: "Yvaine treasures a tin
        # whistle; she would run into a burning house for it." (held-out seed 63341).
        spoken = _THEY_AFTER_A_THING.sub(
            lambda m: m.group(0) if SOMEONE.search(m.group(1)) else m.group(1) + m.group(2) + "you",
            spoken,
        )
        # "... barrels for the brewers for a living; she is a cooper." (held-out seed 86753):
        # their trade named after the turned subject.
        if re.search(r"\b(?:living|trade|earn)", spoken):
            spoken = _THEIR_TRADE_NAMED.sub(lambda m: f"{m.group(1)}you {_BE[m.group(2)]}", spoken)
        # "... when they found him on the road." (held-out seed 71993): their time too.
        spoken = re.sub(r"\b(since|when|while|before|after|until)\s+they\b", r"\1 you", spoken)
        # "he follows her everywhere" (a pet's he, their her; held-out seed 71993): them.
        spoken = _THEM_AFTER_OTHER.sub(r"\1you", spoken)
        # "Faelan cannot touch pepper, it makes him sick." -> "it makes you sick".
        spoken = _BEFALLS_THEM.sub(lambda m: f"{m.group(1) or m.group(2)} you", spoken)
        spoken = _LEFT_THEIRS.sub(r"\1 your", spoken)
        # Their own "her living": the first possessive after the turned subject.
        return re.sub(r"\b(?:his|her|their)\b(?=\s+[a-z])", "your", spoken, count=1)

    out, after_theirs = [], False
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
            continue
        spoken = said_to_them(part, after_theirs)
        after_theirs = spoken != part
        out.append(spoken)
    return "".join(out)


_THEY_AFTER_A_THING = re.compile(
    r"^(\W*you\b[^;:]*)([;:]\s+)(?:she|he)\b(?= (?:would|will|could|can|never|always)\b)",
    re.IGNORECASE,
)


def named_as_you(text: str, speaker: str) -> str:
    """In a memory of the listener said to them, their name wherever it is still left: as a
    subject with its verb turned ("it is all Merrick has left" -> "all you have left"), else
    as "you" ("Shellfish makes Quill break out in a rash" -> "makes you break out": held-out
    runs, read again)."""
    if not speaker:
        return text
    name = re.escape(speaker)

    def turned(match: re.Match) -> str:
        verb = match.group(1)
        second = _second_person(verb.lower()) if verb else None
        return f"you {second}" if second else "you" + (f" {verb}" if verb else "")

    return re.sub(rf"\b{name}\b(?!'|’)(?:\s+([a-z']+)\b)?", turned, text, flags=re.IGNORECASE)


def in_first_person(fact: str, name: str) -> str:
    """A fact of the NPC's that names it, said by it: "At his forge Voss mends a tool for two
    copper and sells a good knife" -> "At my forge I mend a tool for two copper and sell a good
    knife" (held-out seed 86753: Voss said "I don't charge." with it in front of him)."""
    if not name or not re.search(rf"\b{re.escape(name)}\b", fact):
        return fact
    # "Wren's herb stall sells ..." said by Wren as it was (held-out seed 73811): "My herb stall".
    fact = re.sub(rf"^(\W*){re.escape(name)}'s\b", r"\1My", fact)
    fact = re.sub(rf"\b{re.escape(name)}'s\b", "my", fact)

    def spoken(match: re.Match) -> str:
        verb = match.group(1)
        if verb.lower() == "is":
            return "I am"
        return f"I {_second_person(verb.lower()) or verb}"

    text = re.sub(rf"\b{re.escape(name)}\s+([a-z]+)\b", spoken, fact)
    text = re.sub(
        r"\band ([a-z]+s)\b", lambda m: f"and {_second_person(m.group(1)) or m.group(1)}", text
    )
    return re.sub(r"\b(?:his|her)\b", "my", text, count=1) if "I " in text else text

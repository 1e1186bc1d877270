"""
Grounding: a fact about a person is kept only when it rests on what was said (issue #24).

`ground(value, lines, subject=..., npc=...)` decides whether a proposed memory about `subject`
is grounded in `lines`, deterministically, and says why: which words of which line ground it,
or what is missing. Two kinds of evidence:

- the subject's own words (`told=False`, the default: a player's or an NPC's lines in their
  conversation): only their statements count, not their questions ("Do you have family
  here?" is no fact about them), and only statements about themselves (in the first person:
  "I", "my", "me", "we");
- a teller's words about someone else (`told=True`: gossip, a belief drawn from memories):
  statements that name the subject, or the teller's memories about them.

A value is grounded in one statement when every name or number in it is in that statement,
and at least half of its substantive words are (by their first five letters): the words left
once names, stop words and the common words of paraphrase ("works", "lives", "afraid",
"looking") are set aside. A value of common words only ("has had a long day") needs all of
them. A small model's inventions bring new nouns ("afraid of spiders" when
deep water was said; a horse "called Quinny" never named); its paraphrases bring common
verbs. And a fact whose subject is the person's kin ("Hesketh's sister was looking for him")
needs the kin in the subject's place in the statement ("my sister was looking for me"), not in
the object's ("I am looking for my sister").

Plain Python, linear in its input and bounded: the newest MAX_LINES lines, each cut to
LINE_CHARS, MAX_CHARS in all; `evidence` reads them once for many facts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from omniira_evennia.memory import claim_kinds
from omniira_evennia.memory.quoting import SENTENCE, quote_rests_on, quoted_words, without_address

MAX_LINES = 40
LINE_CHARS = 1000
MAX_CHARS = 4000  # of the newest lines read in all (a review grounds a fact on its window)
MAX_STATEMENTS = 120  # the newest statements weighed (a line of many short ones counts them all)
SHARE = 0.5  # of a value's substantive words that its statement must hold
ONLY_ASKED = "rests on what they only asked"  # a refusal's reason, with the words

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_FIRST_PERSON = re.compile(
    r"\b(i|i'm|i’m|i've|i’ve|i'll|i’ll|i'd|i’d|me|my|mine|myself|we|we're|we've|us|our|ours)\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^\W*(?:(?:so|and|but|well|tell me|say|hey|oh)\W+)*(?:what|who|whom|whose|where|when|why|"
    r"how|which|do|does|did|is|are|was|were|am|can|could|will|would|should|shall|have|has|had|"
    r"may|might|must|any|anything|know)\b",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\b(asks?|asked|asking|wants to know|wanted to know|wonders?|wondered|inquire[sd]?|"
    r"question(s|ed)?|thank(s|ed|ing)?|greet(s|ed|ing)?|"
    # "Nell says farewell for now, Lyra." (held-out seed 38261, read again)
    r"(?:says?|said|bids?|bade) (?:goodbye|farewell|good ?night|good evening|hello))\b",
    re.IGNORECASE,
)
_GOES_ON = re.compile(
    r"^\W*(?:she|he|it|they|her|his|its|their|him|them|that|this|there|and|but|so)\b", re.I
)
STOPWORDS = frozenset(
    "a an the and or but of to in on at for from with by as is are was were be been being has "
    "have had do does did not no never this that these those it its he she they them his her "
    "their theirs him hers who whom which what when where why how very so too also just only "
    "about into over under than then there here some any all each every one said says told "
    "tells person named called name would could should will shall can may must own i me my "
    "mine myself we us our ours you your yours yourself am i'm i've i'll i'd it's s".split()
)
# The common words of paraphrase: a fact may say them though its speaker did not.
GENERIC = frozenset(
    "work works worked working job trade living live lives lived living home house from come "
    "comes came born grew up family kin relative relatives like likes liked love loves loved "
    "hate hates hated enjoy enjoys want wants wanted wish wishes hope hopes plan plans planned "
    "fear fears feared afraid scared frightened terrified looking look looks search searches "
    "searching seeking seek find finding lost missing cannot can't cant eat eats allergic "
    "allergy keep keeps kept own owns owned have has get gets got make makes made go goes went "
    "going travel travels travelling traveling stay stays staying named called name years year "
    "long time old new good bad little big great lot lots much many way day days now today "
    "still always usually often sometimes really well currently recently ago once "
    # Where everyone in the game is: "this town" grounds nothing ("Benedikt runs this town." drew
    # on "I mean to become the mayor of this town.", busy held-out seed 50423).
    "town village city place".split()
)
KIN = frozenset(
    "mother father mum mom dad mam ma pa sister brother son daughter wife husband cousin aunt "
    "uncle grandmother grandfather grandma grandpa granny nephew niece twin child children "
    "baby friend partner betrothed fiance fiancee".split()
)


@dataclass(frozen=True)
class Grounding:
    """Whether a value is grounded, why, and in which words of which line."""

    ok: bool
    reason: str
    line: str = ""
    words: tuple[str, ...] = field(default_factory=tuple)

    def as_record(self) -> dict:
        return {"line": self.line, "words": list(self.words)}


def _stem(word: str) -> str:
    """Its first five letters, after a plural's or a verb's -s: "carries" and "carry" meet
    ("Niall carries a jade ring" from "I always carry a jade ring", seed 84211 read again)."""
    low = word.lower().replace("’", "'").strip("'")
    if len(low) > 4 and low.endswith("ies"):
        low = low[:-3] + "y"
    elif len(low) > 4 and low.endswith("s") and not low.endswith(("ss", "'s", "us", "is")):
        low = low[:-1]
    return low[:5]


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(text)]


def _names(*names: str) -> set[str]:
    found = set()
    for name in names:
        for word in _words(name or ""):
            found.add(word.lower())
            found.add(word.lower() + "'s")
    return found


def is_question(sentence: str) -> bool:
    text = sentence.strip()
    return text.endswith("?") or bool(_QUESTION_START.match(text))


def sentences(lines, limit: int = MAX_LINES) -> list[str]:
    """The sentences of `lines`, oldest first: the newest `limit` lines, each cut to
    LINE_CHARS, and of them the newest 2 x MAX_STATEMENTS sentences."""
    out: list[str] = []
    room = MAX_CHARS
    for line in reversed(list(lines)[-limit:]):
        text = str(line)[: min(LINE_CHARS, room)]
        room -= len(text)
        found = [s.strip() for s in SENTENCE.findall(text) if s.strip()]
        out = found + out
        if len(out) >= 2 * MAX_STATEMENTS:
            return out[-2 * MAX_STATEMENTS :]
        if room <= 0:
            break
    return out


def statements(lines, *, about_self: bool = True) -> list[str]:
    """The sentences of `lines` that state something: not questions; with `about_self`, only
    those in the first person (what a speaker says about themselves)."""
    return [
        s
        for s in sentences(lines)
        if not is_question(s) and (not about_self or _FIRST_PERSON.search(s))
    ]


def substantive(value: str, skip: set[str]) -> list[str]:
    """The words of `value` a statement must hold (names, stop words and paraphrase aside)."""
    out = []
    for word in _words(value):
        low = word.lower()
        if low in skip or low in STOPWORDS or low in GENERIC or len(low) < 3:
            continue
        out.append(low)
    return out


def _opening(value: str) -> str:
    words = _words(value)
    return words[0].lower() if words else ""


def specifics(value: str, skip: set[str]) -> list[str]:
    """Names and numbers in `value` (a capitalised word not opening a sentence, digits). A
    word opening the note is a name too when the note names its subject later: "Bryn has a
    speckled raven named Pocket; she sleeps at the foot of Berwyn's bed." (held-out seed
    71993: Berwyn's name miscopied) is about a Bryn nobody spoke of."""
    out = []
    words = _words(value)
    if words and words[0][:1].isupper() and any(w.lower().rstrip("'s") in skip for w in words[1:]):
        first = words[0].lower()
        if first not in skip | STOPWORDS | GENERIC | KIN:
            out.append(first)
    for sentence in SENTENCE.findall(value):
        for i, word in enumerate(_words(sentence)):
            low = word.lower()
            if low in skip or low.rstrip("'s") in skip:
                continue
            if any(ch.isdigit() for ch in word) or (i > 0 and word[:1].isupper()):
                out.append(low)
    return list(dict.fromkeys(out))


def _REPORTS(subject: str) -> re.Pattern:
    """A note that reports what `subject` said ("Ada told me ...", "Ada says that ...")."""
    name = re.escape(subject or "\0")
    return re.compile(
        rf"^\W*{name}\s+(?:told|tells|said|says|mentioned|mentions|claims|claimed|swears|swore)\b",
        re.IGNORECASE,
    )


_POSSESSED_SUBJECT = re.compile(r"^\W*[\w'’-]+(?:'s|’s)\s+([a-z]+)", re.IGNORECASE)


def content(value: str, skip: set[str]) -> list[str]:
    """The words of `value` but names and stop words (paraphrase words included)."""
    return [
        w.lower()
        for w in _words(value)
        if w.lower() not in skip and w.lower() not in STOPWORDS and len(w) > 2
    ]


# A statement whose subject is the speaker's kin: "My uncle Ambrose vanished ...", "Maren, my
# sister sings ...".
_KIN_LEAD = re.compile(r"^\W*(?:[A-Z][\w'-]*,\s*)?(?:my|our)\s+([\w'-]+)(?:\s+([\w'-]+))?", re.I)


# A clause about the speaker's kin inside a statement: "I have a cousin called Winifred; she
# runs a stall ...", "I have a cousin who runs a stall ...": what follows is the kin's doing.
_KIN_CLAUSE = re.compile(
    rf"\b(?:my|our|an?)\s+(?:[\w'-]+\s+)?(?:{'|'.join(sorted(KIN))})\b"
    r"(?:,?\s+(?:called|named)\s+[\w'-]+|,?\s+[A-Z][\w'-]*)?"
    r"\s*[,;:.!]?\s*(?:who|that|she|he|they)\b",
    re.IGNORECASE,
)


def _roles_agree(value: str, statement: str, wanted: list[str]) -> bool:
    """
    A fact about someone's kin ("Ada's sister was looking for her") needs the kin as the
    statement's subject ("my sister was looking for me"): after "my <kin>" the statement must
    go on with the fact's other words, not end there ("I am looking for my sister").
    """
    match = _POSSESSED_SUBJECT.match(value)
    if not match or match.group(1).lower() not in KIN:
        # And a fact about them, not their kin, does not rest on what their kin did ("Gisela is
        # from the old mill" from "My uncle Ambrose vanished near the old mill", seed 41257).
        if any(w.lower() in KIN for w in _words(value)):
            return True
        lead = _KIN_LEAD.match(statement)
        if lead and any(g and g.lower() in KIN for g in lead.groups()):
            return False
        # Nor on a clause about their kin later in the line: "Cedric charges for his stall at
        # the spring fair" from "I have a cousin called Winifred; she runs a stall at the
        # spring fair" (held-out seed 91823). Some word of the fact must come before it.
        clause = _KIN_CLAUSE.search(statement)
        own = [w for w in wanted if w not in GENERIC]
        if clause and own:
            before = {_stem(w) for w in _words(statement[: clause.start()])}
            return any(_stem(w) in before for w in own)
        return True
    kin = match.group(1).lower()
    found = re.search(rf"\b(?:my|our)\s+(?:[\w'-]+\s+)?{kin}\b(.*)$", statement, re.IGNORECASE)
    if not found:
        return True  # the kin is named some other way: leave it to the words
    rest = {_stem(w) for w in _words(found.group(1))}
    others = [w for w in wanted if w != kin]
    return not others or any(_stem(w) in rest for w in others)


@dataclass(frozen=True)
class Evidence:
    """The statements of some lines, read once for many facts (a review's conversation)."""

    statements: tuple[tuple[str, frozenset[str]], ...]  # (sentence or pair, its word stems)
    told: bool
    subject: str
    # Their statements about others (not `told`): only to say why a fact of news is refused.
    others: tuple[tuple[str, frozenset[str]], ...] = ()
    # The stems of words they only asked about, in no statement of theirs.
    asked: frozenset[str] = frozenset()


def _line_ends(lines: list) -> set[str]:
    """The last sentence of each of `lines` (as `sentences` reads them)."""
    split = (SENTENCE.findall(str(line)[:LINE_CHARS]) for line in lines)
    return {kept[-1] for found in split if (kept := [s.strip() for s in found if s.strip()])}


def _with_what_it_leans_on(every: list[str], i: int) -> str:
    """A statement that goes on from the one before ("it makes me ill, so never put it in my
    food." after "I cannot eat milk;") together with it: alone it grounds a note that lost its
    thing, and the note kept in their words quoted only half (held-out seed 35089)."""
    # Only within one sentence: "It has not stopped raining since this morning." after "I dip
    # candles ..., day in, day out." is weather, not the candles (held-out seed 44207).
    before = every[i - 1] if i else ""
    if before.endswith(";") and _GOES_ON.match(every[i]) and _FIRST_PERSON.search(before):
        return f"{before} {every[i]}"
    return every[i]


def evidence(
    lines, *, subject: str, told: bool = False, pooled: bool = False, own: bool = False
) -> Evidence:
    """What `lines` state (see the module): each statement, and each two in a row (a fact may
    join two things said one after the other), with their word stems; with `pooled`, also
    all of them as one (a belief drawn from several memories). `own` with `told`: the lines
    are the subject's own ("Ada told me: I have a pony" rests on any line of Ada's, not only on
    those naming her)."""
    # The lines split once: their statements, and their questions (for `asked`, below).
    lines = list(lines)
    split = sentences(lines)
    every = [s for s in split if not is_question(s)][-MAX_STATEMENTS:]
    if told:
        said = every
        naming = [s for s in said if any(w.lower() in _names(subject) for w in _words(s))]
        said = said if own else (naming or said)
        joined = said + [f"{a} {b}" for a, b in zip(said, said[1:])]
    else:
        # A statement about themselves, alone or with the sentence after it ("I'm looking for
        # my sister Odile. She vanished near the old mill.").
        said = [_with_what_it_leans_on(every, i) for i in range(len(every))]
        said = [s for s in said if _FIRST_PERSON.search(s)]
        # The sentence after must go on about it ("She ...", "It ..."): a new subject ("Mildreth
        # the priest's housekeeper got into a brawl, they say") is someone else's news.
        # Two of their own in a row are theirs together too ("I always carry a jade ring; I
        # would run into a burning house for it.").
        # Within one line: "It has not stopped raining ..." goes on from no "...; it has never
        # left my side." of the line before (held-out busy seed 18443 kept the two as one).
        ends = _line_ends(lines)
        joined = said + [
            f"{a} {b}"
            for a, b in zip(every, every[1:])
            if a not in ends
            and _FIRST_PERSON.search(a)
            and (_GOES_ON.match(b) or _FIRST_PERSON.search(b))
        ]
        joined = list(dict.fromkeys(joined))
    if pooled and len(said) > 2:
        joined.append(" ".join(said))
    others = () if told else [s for s in every if not _FIRST_PERSON.search(s)]
    stated = {_stem(w) for s in every for w in _words(s)}
    asked = {_stem(w) for s in split if is_question(s) for w in _words(s)} - stated
    return Evidence(
        tuple((text, frozenset(_stem(w) for w in _words(text))) for text in joined),
        told,
        subject,
        tuple((text, frozenset(_stem(w) for w in _words(text))) for text in others),
        frozenset(asked),
    )


def _news_of_others(lines: Evidence, names: list[str], wanted: list[str]) -> Grounding | None:
    """A value that one of their statements about others holds whole ("Harlan the miller fell
    off his roof"): news, kept as what the NPC was told, no fact of the teller's."""
    every = names + wanted
    for statement, stems in lines.others:
        if len(every) >= 2 and all(_stem(w) in stems for w in every):
            return Grounding(False, f"news of someone else, not about {lines.subject}", statement)
    return None


# "it" or "them" standing for a thing, not the "it" of "it makes me ill" or a sentence's start.
_PRONOUN_OBJECT = re.compile(
    r"(?<=[a-z,;] )(?:it|them)\b(?!\s+(?:is|was|makes|made|has|had|gets|got|hurts|means)\b)"
)


def _grounded_quote(quote: str, lines: Evidence) -> Grounding:
    """A quote rests on its lines when each of its sentences is in one of them (quote_rests_on)."""
    said = [text for text, _ in lines.statements] + [text for text, _ in lines.others]
    return Grounding(*quote_rests_on(quote, said))


LACKS_OBJECT = "says 'it' or 'them' without what it is"
MISNAMED = "opens on a name nobody spoke of"  # kept in their words instead (memory/write.py)


def _lacks_its_object(value: str, skip: set[str]) -> bool:
    """A short note whose thing is only "it" or "them": "Xander never let it out of their
    sight." and "Xander fears them more than anything." were drawn from "It's an iron key
    ..., and I never let it out of my sight" and "it's spiders: I fear them more than anything"
    (held-out seed 84211): the key and the spiders were lost, so the note says nothing."""
    return bool(_PRONOUN_OBJECT.search(value)) and len(content(value, skip)) <= 3


# Why the statement that held a fact's words does not ground it, by the mark `ground` leaves.
_REFUSALS = {"(said of someone else)": "their words say it the other way round"}
_REFUSALS.update(claim_kinds.REFUSALS)


def _refused_on_its_face(value: str, subject: str, npc: str) -> Grounding | None:
    """A value that is no fact about `subject` whatever was said: a question, or the NPC's."""
    if _ASKING.search(value) or value.rstrip(" \"'").endswith("?"):
        # "Have Kaspar always lived in this town?": a question turned round is still no fact.
        return Grounding(False, "records a question or a greeting, not a fact")
    npc_words = _names(npc) - {""}
    if (
        npc
        and any(w.lower() in npc_words for w in _words(value))
        and not (any(w.lower() in _names(subject) for w in _words(value)))
    ):
        return Grounding(False, f"about {npc}, not about {subject}")
    return None


def ground(value: str, lines, *, subject: str, npc: str = "", told: bool = False) -> Grounding:
    """
    Whether `value`, a fact about `subject`, rests on `lines` (a list of lines, or their
    `Evidence`; see the module). `npc` is the one who keeps the memory (its own doings are not
    the subject's).
    """
    if not isinstance(lines, Evidence):
        # "Maren told me Oskar poisoned the well": a note of what its subject said rests on
        # any statement of theirs, not only on what they said about themselves.
        reported = not told and bool(_REPORTS(subject).match(value))
        lines = evidence(lines, subject=subject, told=told or reported, own=reported)
    value = str(value or "")[:LINE_CHARS]
    if quote := quoted_words(value, subject):
        # Half a line whose thing is in the other half: 'Gwendolyn said: "I would run into a
        # burning house for it."' beside "... always carries a book of old sea charts" (held-out
        # busy seed 44893) tells nothing.
        if _lacks_its_object(quote, set()):
            return Grounding(False, LACKS_OBJECT)
        return _grounded_quote(quote, lines)
    if refused := _refused_on_its_face(value, subject, npc):
        return refused
    skip = _names(subject, npc)
    lacks_object = _lacks_its_object(value, skip)
    wanted = substantive(value, skip)
    names = specifics(value, skip)
    words = content(value, skip)
    required = SHARE
    if not wanted and not names:
        # Only common words ("has family here"): then they are what must have been said, all of
        # them: one common word is no ground ("has had a long day" from "it's a long way from
        # here", held-out seed 94727).
        wanted, required = words, 1.0
    if not wanted and not names:
        return Grounding(False, "says nothing but a name")
    if not lines.statements:
        news = _news_of_others(lines, names, wanted)
        return news or Grounding(False, "no statement of theirs to rest on (questions only)")
    # Besides its names, a statement must hold one of the value's other words: a name said in
    # one line does not ground what was only asked in another ("Tamsin's dog called Elowen"
    # from "My sister Elowen lives ..." and "What's my dog called?").
    plain = [w for w in wanted if w not in names]
    best, best_found, missing = None, (), []
    for statement, stems in lines.statements:
        found = tuple(w for w in dict.fromkeys(wanted + names) if _stem(w) in stems)
        lacking_names = [n for n in names if _stem(n) not in stems]
        share = sum(1 for w in wanted if _stem(w) in stems) / len(wanted) if wanted else 1.0
        if plain and not any(_stem(w) in stems for w in plain):
            share = 0.0
        if lacking_names == names[:1] != [] and names[0] == _opening(value) and share >= required:
            # All but its opening name, miscopied ("Bryn" for "Berwyn"): their statement.
            return Grounding(False, MISNAMED, without_address(statement, npc), found)
        if lacking_names or share < required or not found:
            if len(found) > len(best_found) or best is None:
                best, best_found = statement, found
                missing = lacking_names or [w for w in wanted if _stem(w) not in stems]
            continue
        if not _roles_agree(value, statement, words):
            best, best_found, missing = statement, found, ["(said of someone else)"]
            continue
        if kind := claim_kinds.mismatch(value, statement):
            best, best_found, missing = statement, found, [kind]
            continue
        if lacks_object:
            # Refused, with the line it rests on: the write policy keeps that line, quoted.
            return Grounding(False, LACKS_OBJECT, without_address(statement, npc), found)
        if asked := [w for w in words if _stem(w) not in stems and _stem(w) in lines.asked]:
            # "Rosalie would find a doctor at the chapel yard." from "Where would I find a
            # doctor?" and "I carve gravestones for the chapel yard." (held-out seed 70919);
            # common words too: "Piers has kept this place for longer than he remembered." from
            # "How long have you kept this place?" (busy seed 52967).
            return Grounding(False, f"{ONLY_ASKED}: {', '.join(asked[:4])}", statement, found)
        return Grounding(True, "grounded", statement, found)
    if lacks_object:
        return Grounding(False, LACKS_OBJECT)
    if len(missing) == 1 and missing[0] in _REFUSALS:
        return Grounding(False, _REFUSALS[missing[0]], best or "", best_found)
    news = _news_of_others(lines, names, wanted)
    if news:
        return news
    return Grounding(False, f"not in their words: {', '.join(missing[:4])}", best or "", best_found)

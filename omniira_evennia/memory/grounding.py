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

MAX_LINES = 40
LINE_CHARS = 1000
MAX_CHARS = 4000  # of the newest lines read in all (a review grounds a fact on its window)
MAX_STATEMENTS = 120  # the newest statements weighed (a line of many short ones counts them all)
SHARE = 0.5  # of a value's substantive words that its statement must hold

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;]*")
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
    r"question(s|ed)?|said goodbye|says goodbye|thank(s|ed|ing)?|greet(s|ed|ing)?)\b",
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
    "still always usually often sometimes really well currently recently ago once".split()
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
    return word.lower().replace("’", "'").strip("'")[:5]


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
        found = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
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


def specifics(value: str, skip: set[str]) -> list[str]:
    """Names and numbers in `value` (a capitalised word not opening a sentence, digits)."""
    out = []
    for sentence in _SENTENCE.findall(value):
        for i, word in enumerate(_words(sentence)):
            low = word.lower()
            if low in skip or low.rstrip("'s") in skip:
                continue
            if any(ch.isdigit() for ch in word) or (i > 0 and word[:1].isupper()):
                out.append(low)
    return out


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
        lead = _KIN_LEAD.match(statement)
        about_kin = lead and any(g and g.lower() in KIN for g in lead.groups())
        return not about_kin or any(w.lower() in KIN for w in _words(value))
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


def evidence(
    lines, *, subject: str, told: bool = False, pooled: bool = False, own: bool = False
) -> Evidence:
    """What `lines` state (see the module): each statement, and each two in a row (a fact may
    join two things said one after the other), with their word stems; with `pooled`, also
    all of them as one (a belief drawn from several memories). `own` with `told`: the lines
    are the subject's own ("Ada told me: I have a pony" rests on any line of Ada's, not only on
    those naming her)."""
    every = statements(lines, about_self=False)[-MAX_STATEMENTS:]
    if told:
        said = every
        naming = [s for s in said if any(w.lower() in _names(subject) for w in _words(s))]
        said = said if own else (naming or said)
        joined = said + [f"{a} {b}" for a, b in zip(said, said[1:])]
    else:
        # A statement about themselves, alone or with the sentence after it ("I'm looking for
        # my sister Odile. She vanished near the old mill.").
        said = [s for s in every if _FIRST_PERSON.search(s)]
        # The sentence after must go on about it ("She ...", "It ..."): a new subject ("Mildreth
        # the priest's housekeeper got into a brawl, they say") is someone else's news.
        joined = said + [
            f"{a} {b}"
            for a, b in zip(every, every[1:])
            if _FIRST_PERSON.search(a) and _GOES_ON.match(b)
        ]
    if pooled and len(said) > 2:
        joined.append(" ".join(said))
    others = () if told else [s for s in every if not _FIRST_PERSON.search(s)]
    return Evidence(
        tuple((text, frozenset(_stem(w) for w in _words(text))) for text in joined),
        told,
        subject,
        tuple((text, frozenset(_stem(w) for w in _words(text))) for text in others),
    )


# Words that frame a note without saying anything of the fact ("Ada told me that ...",
# "Ada mentioned ..."); the long-run benchmark met the review's "Ada mentioned that I live in
# Brackwater" beside the tag's "Ada told me: I live in Brackwater".
_FRAMING = frozenset(
    _stem(w)
    for w in "told tells said says mentioned mentions mention shared explained claims claimed "
    "admitted confided noted remarked me that".split()
)


def _framed_words(value: str, subject: str) -> list[str]:
    skip = _names(subject)
    return [
        w.lower()
        for w in _words(str(value or "")[:LINE_CHARS])
        if w.lower() not in skip and _stem(w) not in _FRAMING
    ]


def gist(value: str, subject: str = "") -> frozenset:
    """What a note says, as word stems without its framing, its subject's name and small words:
    two notes with one gist say one thing ("Ada told me: I live in Brackwater", "Ada lives in
    Brackwater"). Empty for a note of nothing but such words."""
    return frozenset(_root(w) for w in _framed_words(value, subject) if w not in STOPWORDS)


# At most this many substantive words on each side of what two notes do not share, for them
# to be one sentence with one thing swapped ("my dog is called Rex" / "my cat is called Rex").
SWAP_WORDS = 2


def _proper_names(value: str, subject: str) -> set[str]:
    """The capitalised words of a note that do not open a sentence or a clause (its subject's
    name aside): the names and places it speaks of."""
    skip = _names(subject)
    found = set()
    for sentence in re.split(r"[.!?:;]\s*", str(value or "")[:LINE_CHARS]):
        for word in _words(sentence)[1:]:
            low = word.lower()
            if word[:1].isupper() and low not in skip and low not in STOPWORDS:
                found.add(low)
    return found


# Words of time and degree that a retelling adds or drops ("Eudo still has nine of my coins").
FILLER = frozenset(
    "still always usually often sometimes really once ago now today currently recently ever "
    "again these days years year".split()
)
_NEGATION = frozenset("not no never nor cannot none".split())


def _negated(words: list[str]) -> bool:
    return any(w in _NEGATION or w.endswith("n't") for w in words)


def may_restate(value: str, other: str, subject: str = "") -> bool:
    """
    Whether two notes about `subject` could say one fact in other words, as far as their words
    tell; a meaning check (the embedder's cosine) decides the rest. Not when one names someone
    or somewhere the other does not ("Ada found a coin" / "Dunstan found a coin"), nor when
    they are one sentence with one thing swapped: "my dog is called Rex" and "my cat is called
    Rex", "I love the cold" and "I hate the cold", "my sister lives in Ashby" and "my brother
    lives in Ashby" sit as near as any paraphrase to an embedder and are different facts.
    """
    a, b = _framed_words(value, subject), _framed_words(other, subject)
    if not a or not b:
        return False
    words_a, words_b = {w.replace("'", "") for w in a}, {w.replace("'", "") for w in b}
    for name in _proper_names(value, subject) | _proper_names(other, subject):
        if name.replace("'", "") not in words_a or name.replace("'", "") not in words_b:
            return False
    start = 0
    while start < min(len(a), len(b)) and _root(a[start]) == _root(b[start]):
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and _root(a[-1 - end]) == _root(b[-1 - end]):
        end += 1
    # What each says in the stretch where they part that the other does not: both something,
    # and little, in one frame, is a swap ("dog" / "cat"); one side nothing is the same fact
    # told with more ("I play the hurdy-gurdy", "in the evenings I play my hurdy-gurdy").
    left = {_sense(w) for w in a[start : len(a) - end] if w not in STOPWORDS | FILLER}
    right = {_sense(w) for w in b[start : len(b) - end] if w not in STOPWORDS | FILLER}
    only_left, only_right = left - right, right - left
    # ... in one frame: what they share around it is at least half the shorter sentence.
    framed = 2 * (start + end) >= min(len(a), len(b))
    if framed and _negated(a) != _negated(b):
        return False  # "I'm afraid of the dark" / "I'm not afraid of the dark"
    small = 0 < len(only_left) <= SWAP_WORDS and 0 < len(only_right) <= SWAP_WORDS
    return not (framed and small)


# Words one feeling is said with: "I have always feared deep water" and "I am afraid of deep
# water" part on "feared" / "afraid", which is no swap (long run, seed 5: two memories of one
# fear). Only same-meaning words; "love" and "hate" stay apart.
_SENSES = {
    # By root (`_root`: "scares" is "scar", "loves" "lov", "hates" "hat").
    **dict.fromkeys(("fear", "afrai", "scar", "dread", "terri", "frigh"), "fear"),
    **dict.fromkeys(("lov", "lik", "enjoy", "fond", "ador"), "like"),
    **dict.fromkeys(("hat", "loath", "detes", "despi"), "hate"),
}


def _sense(word: str) -> str:
    """A word's root, or the feeling it names (`_SENSES`)."""
    root = _root(word)
    return _SENSES.get(root, root)


# Facts a person has one of at a time: where they live, their trade. A note of a new one
# supersedes the old ("Ada moved to Ashby" after "Ada lives in Brackwater": one memory, the
# old value its history), and a possession given up ends the note of having it.
_ONE_AT_A_TIME = {
    "home": re.compile(
        r"\b(?:lives?|living|lived|moved|moving|settled|resides?|home is|home's)\b"
        r"(?:\s+\w+){0,2}\s+(?:in|to|at|near|by)\b"
        r"|\b(?:cottage|house|roof|farm|croft)\s+(?:in|at|near|by)\b",
        re.IGNORECASE,
    ),
    "trade": re.compile(
        r"\b(?:works? as|working as|by trade|trade is|(?:my|his|her|their) (?:old |new )?trade|"
        r"(?:makes?|earns?|made|earned) (?:a|my|his|her|their) living)\b",
        re.IGNORECASE,
    ),
}
_GIVEN_UP = re.compile(
    r"\b(?:sold|lost|gave away|gave up|no longer ha(?:s|ve)|got rid of)\s+(?:(?:my|his|her|"
    r"their|the|a|an|our)\s+)?(?:(?:old|little|dear|poor|new|last|only)\s+)?(?P<thing>[a-z]+)"
    # Said the other way round: "Thistle is sold", "the mule is gone".
    r"|\b(?P<passive>[a-z]+)\s+(?:is|was|has been)\s+(?:sold|gone|given away|lost)\b",
    re.IGNORECASE,
)


# Whose home or trade a note is about: a kin word (KIN) or another of the people near them.
_SOMEONE_ELSE = KIN | {"da", "family", "parents", "kin", "neighbour"}


def one_at_a_time(value: str) -> str | None:
    """The topic of a note a person has one of at a time (home, trade), or None; a note about
    their kin ("Ada's sister lives in Brackwater") is none of theirs."""
    value = str(value or "")[:LINE_CHARS]
    if any(w.lower().split("'")[0] in _SOMEONE_ELSE for w in _words(value)):
        return None
    return next((name for name, rule in _ONE_AT_A_TIME.items() if rule.search(value)), None)


def given_up(value: str) -> frozenset:
    """The stems of what a note says its subject gave up ("Ada sold the mule": {"mul"};
    "Thistle is sold, the mule is gone": {"thist", "mul"}); a trade given up is a change of
    trade (`one_at_a_time`), not a thing."""
    value = str(value or "")[:LINE_CHARS]
    things = (found["thing"] or found["passive"] for found in _GIVEN_UP.finditer(value))
    return frozenset(
        _root(thing)
        for thing in things
        if thing.lower() not in _NOT_THINGS and thing.lower() not in STOPWORDS
    )


_NOT_THINGS = {"trade", "work", "job", "craft"}


def _root(word: str) -> str:
    """A word without its ending ("lives", "lived", "living": "liv"), five letters at most."""
    word = word.lower().replace("’", "'").strip("'")
    for ending in ("ing", "ed", "es", "s", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            word = word[: -len(ending)]
            break
    return word[:5]


def _news_of_others(lines: Evidence, names: list[str], wanted: list[str]) -> Grounding | None:
    """A value that one of their statements about others holds whole ("Harlan the miller fell
    off his roof"): news, kept as what the NPC was told, no fact of the teller's."""
    every = names + wanted
    for statement, stems in lines.others:
        if len(every) >= 2 and all(_stem(w) in stems for w in every):
            return Grounding(False, f"news of someone else, not about {lines.subject}", statement)
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
    if _ASKING.search(value) or value.rstrip(" \"'").endswith("?"):
        # "Have Kaspar always lived in this town?": a question turned round is still no fact.
        return Grounding(False, "records a question or a greeting, not a fact")
    skip = _names(subject, npc)
    npc_words = _names(npc) - {""}
    if (
        npc
        and any(w.lower() in npc_words for w in _words(value))
        and not (any(w.lower() in _names(subject) for w in _words(value)))
    ):
        return Grounding(False, f"about {npc}, not about {subject}")
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
        if lacking_names or share < required or not found:
            if len(found) > len(best_found) or best is None:
                best, best_found = statement, found
                missing = lacking_names or [w for w in wanted if _stem(w) not in stems]
            continue
        if not _roles_agree(value, statement, words):
            best, best_found, missing = statement, found, ["(said of someone else)"]
            continue
        return Grounding(True, "grounded", statement, found)
    if missing == ["(said of someone else)"]:
        return Grounding(False, "their words say it the other way round", best or "", best_found)
    news = _news_of_others(lines, names, wanted)
    if news:
        return news
    return Grounding(False, f"not in their words: {', '.join(missing[:4])}", best or "", best_found)

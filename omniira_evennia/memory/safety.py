"""
Safety for memory: PII redaction, manipulation detection, markup neutralisation and control
characters (MUD design seed, defence in depth; what each catches and misses: docs/security.md).

- `redact_pii` replaces e-mail addresses (plain and obfuscated), phone numbers (candidates found
  by one pattern, confirmed by Google's libphonenumber through the `phonenumbers` package),
  street addresses in several countries' forms, PO boxes, postcodes, dates of birth and ID-like
  numbers (national IDs, UK National Insurance numbers, card numbers passing the Luhn check,
  IBANs passing theirs) with placeholders. Player text is redacted before it is stored or sent
  anywhere, memory values and concerns before they are written, and every prompt's messages
  once more as the LLM client sends them (`llm.client.set_prompt_filter`, registered by the
  app's `ready`, apps.py), so no LLM call (conversation, extraction, gossip, reflection, diary)
  carries them, whatever text a prompt was assembled from.
- `detect_manipulation` labels instruction-like text ("ignore your instructions", "you are
  now...", "forget everything", system-prompt talk, tag syntax typed by a player, in every form
  the tag parser reads). Flagged memories are kept, marked suspect and audited; never silently
  dropped or rewritten.
- `neutralize_markup` removes Evennia's clickable links (`|lc..|lt..|le`, `|lu..|lt..|le`),
  MXP and control characters from LLM-written text, and its colour codes unless a builder
  keeps them (`LLM_MARKUP`).
- `strip_controls` removes what a player could type or paste to act on a terminal or hide text
  (escape sequences, C0/C1 controls, bidi overrides, zero-width characters).

Every function is linear in its input (a stalled call stalls the reactor or a worker thread
every turn shares): a pattern over a run of characters (a word, a run of digits) starts only
where the run starts (a negative lookbehind of the run's own class) and takes the run
possessively (`*+`, `++`), so nothing backtracks inside it; every other scan is bounded or stops
at the next delimiter. tests/unit/memory/test_safety_linear.py checks it, bench/redaction_eval.py
times it.

Plain Python (regular expressions and phonenumbers), no Django: tested on their own.
"""

from __future__ import annotations

import re

# Phone numbers and Evennia markup live in their own modules; their names stay importable from
# here (callers and games found them here before).
from omniira_evennia.memory.markup import (  # noqa: F401
    MARKUP_MODES,
    neutralize_markup,
    strip_controls,
    unwrap_links,
)
from omniira_evennia.memory.phones import PHONE_REGIONS, cued, phone_spans  # noqa: F401
from omniira_evennia.vocabulary import OPEN_TAG

# ---------------------------------------------------------------- redaction

# Speed as well as linearity: Python's `re` skips ahead to where a pattern can start only when
# it starts with a plain character or class, so the patterns start with one (a digit, a
# capital) and look behind after it; a cue word ("card", "iban") is looked for in the few
# characters before a match, and a pattern led by cue words runs only when the text holds one
# (`_TRIGGERS`).

# E-mail: a local part, `@`, a domain with at least one dot.
_LOCAL_PART = r"[\w.+-](?<![\w.+-][\w.+-])[\w.+-]*+"
_EMAIL = re.compile(rf"{_LOCAL_PART}@[\w-]++(?:\.[\w-]++)++")
# Obfuscated: `name(at)host.com`, `name [at] host [dot] com`, `name @ host dot com` (a bracketed
# or spaced `@`, then any dots); or `name at host dot com`, `name at host.com`, only when the
# last label is a top-level domain ("look at the map dot" is talk). The name may be dotted the
# same way (`ada dot lovelace at ...`).
_AT_MARK = r"\s*+(?:[(\[{<]\s*+at\s*+[)\]}>]|@)\s*+"
_DOT_MARK = r"(?:\.|\s*+[(\[{<]\s*+dot\s*+[)\]}>]\s*+|\s++dot\s++)"
_TLD = (
    r"(?:com|org|net|edu|gov|info|biz|io|co|me|uk|de|fr|nl|be|es|it|pt|ch|at|se|no|dk|fi|pl|"
    r"cz|ie|us|ca|au|nz|jp|ru|br|eu|dev|app|online|xyz)"
)
_EMAIL_OBFUSCATED = re.compile(
    rf"{_LOCAL_PART}(?i:(?:{_DOT_MARK}[\w+-]++){{0,2}}(?:{_AT_MARK}[\w-]++"
    rf"(?:{_DOT_MARK}[\w-]++){{1,4}}|\s++at\s++[\w-]++(?:{_DOT_MARK}[\w-]++){{0,3}}"
    rf"{_DOT_MARK}{_TLD}\b))"
)

# Dates of birth: a date right after a birth cue ("born on", "born in Hythe on", "my birthday
# is", "DOB", "date of birth:", "geboren am", "né le"...). A date without one is game talk ("on
# 12/03 we march", "the festival on 3 March", "the birthday feast is on 3 March"); a year alone
# ("born in 1999") is kept.
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|januar|februar|märz|mai|"
    r"juni|juli|oktober|dezember|janvier|février|mars|avril|juin|juillet|août|septembre|"
    r"octobre|novembre|décembre|enero|febrero|marzo|abril|mayo|junio|julio|agosto|"
    r"septiembre|octubre|noviembre|diciembre)\b\.?"
)
_DAY = r"\d{1,2}+(?:st|nd|rd|th|\.)?"
# A living person's year (19xx, 20xx, or two digits): "the king was born on 3 March 1042" is
# the game's lore, not a player's birthday. Day and month are read whole (`{1,2}+`), and no
# date is read in front of another number, so "12/03/1042" is not cut to a date.
_YEAR = r"(?:19|20)\d{2}"
_BIRTH_DATE = (
    rf"(?:\d{{1,2}}+[./-]\d{{1,2}}+(?:[./-](?:{_YEAR}|\d{{2}}))?"
    rf"|{_YEAR}[./-]\d{{1,2}}+[./-]\d{{1,2}}+"
    rf"|(?:the\s++)?{_DAY}(?:\s++of)?\s++{_MONTH}(?:,?\s++{_YEAR})?"
    rf"|{_MONTH}\s++{_DAY}(?:,?\s++{_YEAR})?|{_MONTH},?\s++{_YEAR})(?![\w/.-]\d|,?\s++\d)"
)
_DOB = re.compile(
    r"(?i)(?P<cue>(?:\b(?:born|birthday|date\s++of\s++birth|birth\s*+date|dob|geboren|"
    r"geburtstag|geburtsdatum|née?|date\s++de\s++naissance|anniversaire|fecha\s++de\s++"
    r"nacimiento|nacid[oa]|cumpleaños)\b|\bd\.o\.b\.)[\s:,-]{0,4}"
    r"(?:in\s++(?-i:[A-ZÀ-Ý])[\w'’-]*+,?\s++)?(?:(?:is|was|on|in|am|ist|le|el|:)\s*+){0,2})"
    + _BIRTH_DATE
)

# UK National Insurance numbers: two letters, six digits (often paired), a letter A-D; in
# lower case, or without the last letter, after an NI cue.
_NI = re.compile(r"[A-Z](?<![\w][A-Z])[A-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\w])")
_NI_CUE = re.compile(
    r"(?i)(?P<cue>\b(?:ni|nino|national insurance)(?:\s++(?:number|no\.?))?\W{0,3}"
    r"(?:is\s++)?)[a-z]{2} ?\d{2} ?\d{2} ?\d{2}(?: ?[a-d])?(?![\w])"
)

# IBAN: a country, two check digits, 11-30 letters or digits in groups; either case. Redacted
# when the mod-97 check passes, or after an "iban" cue (a mistyped one is still someone's).
_IBAN = re.compile(
    r"[A-Za-z](?<![\w][A-Za-z])[A-Za-z]\d{2}(?:[ ]?[A-Za-z0-9]{4}){2,7}"
    r"(?:[ ]?[A-Za-z0-9]{1,3})?(?![\w])"
)
_IBAN_CUE = re.compile(r"(?i)\biban\W{0,3}(?:is\s++)?$")
# Card numbers: a whole run of 13-19 digits, spaced or dashed (not part of a longer run);
# redacted when grouped as cards are and the Luhn check passes, or after a card cue.
_CARD = re.compile(r"\d(?<![\d-]\d)(?<!\d \d)(?:[ -]?\d){12,18}(?![ -]?\d)")
_CARD_CUE = re.compile(
    r"(?i)\b(?:card|visa|mastercard|amex|credit|debit|kreditkarte|carte)\b\D{0,20}$"
)
_CARD_GROUPS = re.compile(r"[ -]")
# Social security numbers: 123-45-6789 (or spaced), and any 9 digits after an "ssn" cue.
_SSN = re.compile(r"\d(?<![\d-]\d)\d{2}([- ])\d{2}\1\d{4}(?![\d-])")
_SSN_CUE = re.compile(
    r"(?i)(?P<cue>\b(?:ssn|social security(?: number| no\.?)?|sozialversicherungsnummer|"
    r"national insurance(?: number)?|n[ée]? de s[ée]curit[ée] sociale)\b\W{0,3}"
    r"(?:(?:is|was|number|no\.?|#|:)\W{0,3}){0,2})\d(?:[ -]?\d){8}(?![\d])"
)

_CAP = r"[A-ZÄÖÜÀ-Ý][\w'’.-]*+"  # a capitalised word
# A house number (12, 221B, 12-14, 3/1), starting where a word does.
_NUM = r"\d(?<!\w\d)\d{0,4}[a-zA-Z]?(?:[-/]\d{1,4}[a-zA-Z]?)?"
_EN_SUFFIX = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|court|ct|way|place|pl|"
    r"terrace|close|crescent|highway|hwy|parkway|pkwy|square|sq|gardens|grove|row|mews"
)
_FR_STREET = (
    r"rue|avenue|av\.|boulevard|bd|place|chemin|allée|allee|impasse|quai|cours|route|passage|"
    r"square"
)
_DE_NL_SUFFIX = (
    r"straße|strasse|str\.|weg|gasse|allee|platz|chaussee|straat|laan|gracht|plein|kade|steeg"
)
# The German and Dutch suffixes at the end of a word ("Hauptstraße"): one fixed-width
# lookbehind each, so the word is read once instead of tried at every split.
_DE_NL_ENDING = "|".join(rf"(?<={suffix})" for suffix in _DE_NL_SUFFIX.split("|"))
_ADDRESSES = (
    # English forms (US, UK, ...): "221B Baker Street", "1600 Pennsylvania Avenue NW". The
    # street's name must be capitalised ("3 big dogs way over there" is no address).
    re.compile(
        rf"{_NUM},?\s++(?:{_CAP}\s++){{1,4}}(?i:{_EN_SUFFIX})\b\.?"
        r"(?:\s++(?:N|S|E|W|NE|NW|SE|SW)\b)?"
    ),
    # The same in lower case, after "live(s) at", "my address is", "send it to" and the like.
    re.compile(
        rf"(?i)(?P<cue>\b(?:live at|lives at|living at|address is|moved to|staying at|"
        rf"send it to|ship it to|mail it to|find me at)\s++){_NUM},?\s++(?:[\w'’.-]++\s++){{1,4}}"
        rf"(?:{_EN_SUFFIX})\b\.?"
    ),
    # German and Dutch: "Hauptstraße 5", "Musterstr. 12a", "Berliner Allee 3", "Kerkstraat 12".
    re.compile(
        rf"[A-ZÄÖÜ](?<![\w-][A-ZÄÖÜ])[\wäöüß-]*+(?:\s++(?i:{_DE_NL_SUFFIX})|\.?"
        rf"(?i:{_DE_NL_ENDING}))\s++\d{{1,4}}\s?[a-zA-Z]?(?![\w])"
    ),
    # French: "12 rue de la Paix", "5, avenue des Champs-Élysées", "3 bis boulevard Haussmann".
    re.compile(
        rf"\d(?<!\w\d)\d{{0,3}}(?:\s?(?:bis|ter))?,?\s++(?i:{_FR_STREET})\s++"
        r"(?:(?:de|du|des|de la|de l'|d'|la|le|les|l')\s*+)?[\wÀ-ÿ'’-]++"
        r"(?:[ -][A-ZÀ-Ý][\wÀ-ÿ'’-]*+)*+"
    ),
    # Spanish, Italian, Portuguese: "Calle Mayor 5", "Via Roma 12", "Avenida de Mayo 1370",
    # "C/ Mayor, 5", "Rua Augusta 100".
    re.compile(
        r"(?<![\w])(?i:calle|c/|avenida|avda\.|paseo|plaza|carrer|via|viale|piazza|corso|"
        r"largo|rua|travessa)\s++(?:(?:de|del|de la|della|dei|do|da|dos)\s++)?"
        r"[A-ZÀ-Ý][\wÀ-ÿ'’-]*+(?:\s++[A-ZÀ-Ý][\wÀ-ÿ'’-]*+){0,3},?\s++(?:n\.?\s?º?\s?)?\d{1,5}"
        r"[a-zA-Z]?(?![\w])"
    ),
    # PO boxes: "PO Box 1234", "P.O. Box 12", "Postfach 1234", "boîte postale 12",
    # "apartado 123", "casella postale 9".
    re.compile(
        r"(?i)(?<![\w.])(?:p\.?\s?o\.?\s?box|post\s++office\s++box|postfach|bo[iî]te\s++postale|"
        r"apartado(?:\s++de\s++correos)?|casella\s++postale)\s*+(?:no\.?\s*+|n[º°]\s*+|#\s*+)?"
        r"\d{1,6}(?![\w])"
    ),
)
_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|"
    "NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC"
)
_POSTCODES = (
    # UK: "SW1A 1AA", "NW1 6XE", "M1 1AE" (upper case, as written on letters).
    re.compile(r"[A-Z](?<![\w][A-Z])[A-Z]?\d[A-Z\d]?\s?\d[A-Z]{2}(?![\w])"),
    # US: a ZIP (+4) after a state: "Springfield, IL 62704", "NY 10001-1234"; a bare ZIP+4.
    re.compile(rf"(?P<cue>(?:{_US_STATES})(?<!\w\w\w)\s)\d{{5}}(?:-\d{{4}})?(?![\w-])"),
    re.compile(r"\d(?<![\w-]\d)\d{4}-\d{4}(?![\w-])"),
    # DE, FR, ES, IT: five digits (and the town) right after a street line or PO box:
    # "[address], 10115 Berlin" (the street is already a placeholder when this runs).
    re.compile(r"(?P<cue>\[address\],?\s*+)\d{5}(?:\s++[A-ZÀ-Ý][\wÀ-ÿ'’-]*+)?(?![\w])"),
    # Any code after a postcode cue: "postcode 10115", "PLZ 75002", "zip: 90210".
    re.compile(
        r"(?i)(?P<cue>\b(?:postcode|post code|postal code|zip code|zip|plz|code postal)"
        r"\W{0,2}(?:is\s++)?)(?=[a-z]{0,4}\d)[a-z0-9]{2,4}[ -]?[a-z0-9]{2,4}(?![\w])"
    ),
)
# The words a cue-led pattern needs (lower case, `|`-separated): without one in the text it
# cannot match, and is not run.
_TRIGGERS = {
    _EMAIL: "@",
    _EMAIL_OBFUSCATED: "@|at",
    _DOB: "born|birth|dob|d.o.b|geboren|geburt|né|naissance|anniversaire|nacimiento|"
    "nacid|cumplea",
    _NI_CUE: "ni|national insurance",
    _SSN_CUE: "ssn|social security|sozialversicherung|national insurance|curit",
    _ADDRESSES[0]: _EN_SUFFIX,
    _ADDRESSES[1]: "live|living|address|moved|staying|send it|ship it|mail it|find me",
    _ADDRESSES[3]: _FR_STREET.replace("\\.", "."),
    _ADDRESSES[4]: "calle|c/|avenida|avda|paseo|plaza|carrer|via|piazza|corso|largo|rua|travessa",
    _ADDRESSES[5]: "box|postfach|postale|apartado",
    _POSTCODES[4]: "post|zip|plz",
}


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        number = int(char)
        if index % 2:
            number = number * 2 - 9 if number > 4 else number * 2
        total += number
    return total % 10 == 0


def iban_ok(iban: str) -> bool:
    code = re.sub(r"\s", "", iban).upper()
    if not 15 <= len(code) <= 34:
        return False
    moved = code[4:] + code[:4]
    return int("".join(str(int(char, 36)) for char in moved)) % 97 == 1


def _iban_match(match: re.Match) -> bool:
    return cued(_IBAN_CUE, match.string, match.start()) or iban_ok(match.group(0))


def _card_match(match: re.Match) -> bool:
    """After a cue any run counts; else card groups (3+ digits but the last) and the Luhn check."""
    if cued(_CARD_CUE, match.string, match.start()):
        return True
    groups = _CARD_GROUPS.split(match.group(0))
    return all(len(group) >= 3 for group in groups[:-1]) and luhn_ok("".join(groups))


def _sub_checked(pattern, text, placeholder, check) -> tuple[str, int]:
    count = 0

    def replace(match: re.Match) -> str:
        nonlocal count
        if check and not check(match):
            return match.group(0)
        count += 1
        cue = match.groupdict().get("cue") or ""
        return cue + placeholder

    return pattern.sub(replace, text), count


# (pattern, placeholder, check) in the order they run: e-mails before anything reads their
# digits, dates of birth and ID numbers before phones, addresses before postcodes (which read
# "[address], 10115 Berlin").
_REDACTIONS = (
    (_EMAIL, "[email]", None),
    (_EMAIL_OBFUSCATED, "[email]", None),
    (_DOB, "[date of birth]", None),
    (_NI, "[id number]", None),
    (_NI_CUE, "[id number]", None),
    (_IBAN, "[id number]", _iban_match),
    (_SSN, "[id number]", None),
    (_SSN_CUE, "[id number]", None),
    (_CARD, "[id number]", _card_match),
    *((pattern, "[address]", None) for pattern in _ADDRESSES),
    *((pattern, "[postcode]", None) for pattern in _POSTCODES),
)


def redact_pii(text: str) -> tuple[str, int]:
    """Text with personal data replaced by placeholders, and how many replacements were made."""
    if not text:
        return text or "", 0
    total = 0
    lowered = text.lower()  # for the triggers; placeholders add none of them
    for pattern, placeholder, check in _REDACTIONS:
        triggers = _TRIGGERS.get(pattern)
        if triggers and not any(trigger in lowered for trigger in triggers.split("|")):
            continue
        text, count = _sub_checked(pattern, text, placeholder, check)
        total += count
    if sum(map(str.isdigit, text)) >= 7:
        spans = phone_spans(text)
        text = _replace_spans(text, spans, "[phone]")
        total += len(spans)
    return text, total


def _replace_spans(text: str, spans: list[tuple[int, int]], placeholder: str) -> str:
    """`text` with each of the ordered, disjoint `spans` replaced (one join, not a copy each)."""
    pieces, position = [], 0
    for start, end in spans:
        pieces += [text[position:start], placeholder]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


MANIPULATION_PATTERNS: dict[str, re.Pattern] = {
    "ignore_instructions": re.compile(
        r"\b(ignore|disregard|override|bypass)\b.{0,40}\b(instructions?|rules|prompt|"
        r"guidelines|programming|directives)\b",
        re.IGNORECASE | re.DOTALL,
    ),
    "role_override": re.compile(
        r"\b(you are now|from now on,? you|act as (an? )?(ai|assistant|chatbot|gpt|system)|"
        r"pretend (to be|you are)|you('re| are) (an? )?(ai|language model|assistant|chatbot)|"
        r"new persona|developer mode|jailbreak)\b",
        re.IGNORECASE,
    ),
    "forget_everything": re.compile(
        r"\b(forget|erase|wipe|delete)\b.{0,20}\b(everything|all (of )?(your|you|the)|"
        r"your memor(y|ies)|what you know)\b",
        re.IGNORECASE | re.DOTALL,
    ),
    # `^[^\S\n]*` (not `^\s*`): from each line start only that line's indent is read, not every
    # blank line below it again.
    "system_prompt": re.compile(
        r"(\bsystem prompt\b|\bsystem message\b|\bdeveloper message\b|^[^\S\n]*+system\s*+:|"
        r"<\|?(system|im_start)\|?>|\[/?INST\])",
        re.IGNORECASE | re.MULTILINE,
    ),
    # Every form the tag parser reads, bracketed or bare (`REMEMBER:{...}`): its own pattern.
    "tag_syntax": OPEN_TAG,
    "remember_command": re.compile(
        r"\b(you must|you will|always) remember that\b.{0,80}\b(i am|i'm)\b.{0,40}\b(king|queen|"
        r"owner|admin|god|your master|in charge)\b",
        re.IGNORECASE | re.DOTALL,
    ),
}


def detect_manipulation(text: str) -> list[str]:
    """Labels of the manipulation forms found in `text` (empty if none)."""
    if not text:
        return []
    return [label for label, pattern in MANIPULATION_PATTERNS.items() if pattern.search(text)]

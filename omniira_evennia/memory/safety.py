"""
Safety for memory: PII redaction, manipulation detection and markup neutralisation (MUD design
seed, defence in depth; what each catches and misses: docs/security.md).

- `redact_pii` replaces e-mail addresses, phone numbers (Google's libphonenumber, through the
  `phonenumbers` package), street addresses in several countries' forms, postcodes and ID-like
  numbers (national IDs, card numbers passing the Luhn check, IBANs passing theirs) with
  placeholders. Player text is redacted before it is stored or sent anywhere, memory values
  and concerns before they are written, and every prompt's messages once more as the LLM
  client sends them (`llm.client.set_prompt_filter`, registered when this module is imported),
  so no LLM call (conversation, extraction, gossip, reflection, diary) carries them, whatever
  text a prompt was assembled from.
- `detect_manipulation` labels instruction-like text ("ignore your instructions", "you are
  now...", "forget everything", system-prompt talk, tag syntax typed by a player, in every form
  the tag parser reads). Flagged memories are kept, marked suspect and audited; never silently
  dropped or rewritten.
- `neutralize_markup` removes Evennia's clickable links (`|lc..|lt..|le`, `|lu..|lt..|le`),
  MXP and control characters from LLM-written text, and its colour codes unless a builder
  keeps them (`LLM_MARKUP`).

Plain Python (regular expressions and phonenumbers), no Django: tested on their own.
"""

from __future__ import annotations

import re

import phonenumbers

from omniira_evennia.vocabulary import OPEN_TAG

# ---------------------------------------------------------------- redaction

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)

# IBAN: a country, two check digits, 11-30 letters or digits in groups; either case. Redacted
# when the mod-97 check passes, or after an "iban" cue (a mistyped one is still someone's).
_IBAN = re.compile(
    r"(?i)(?<![\w])(?P<cue>iban\W{0,3}(?:is\s+)?)?(?P<iban>[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){2,7}"
    r"(?:[ ]?[a-z0-9]{1,3})?)(?![\w])"
)
# Card numbers: 13-19 digits, spaced or dashed in any grouping; redacted when the Luhn check
# passes or after a card cue.
_CARD = re.compile(
    r"(?i)(?P<cue>\b(?:card|visa|mastercard|amex|credit|debit|kreditkarte|carte)\b\D{0,20})?"
    r"(?<![\d-])(?P<card>\d(?:[ -]?\d){12,18})(?![\d-])"
)
# Social security numbers: 123-45-6789 (or spaced), and any 9 digits after an "ssn" cue.
_SSN = re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])")
_SSN_CUE = re.compile(
    r"(?i)(\b(?:ssn|social security(?: number| no\.?)?|sozialversicherungsnummer|"
    r"national insurance(?: number)?|n[ée]? de s[ée]curit[ée] sociale)\b\W{0,3}"
    r"(?:(?:is|was|number|no\.?|#|:)\W{0,3}){0,2})(\d(?:[ -]?\d){8})(?![\d])"
)

_CAP = r"[A-ZÄÖÜÀ-Ý][\w'’.-]*"  # a capitalised word
_NUM = r"\d{1,5}[a-zA-Z]?(?:[-/]\d{1,4}[a-zA-Z]?)?"  # a house number: 12, 221B, 12-14, 3/1
_EN_SUFFIX = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|court|ct|way|place|pl|"
    r"terrace|close|crescent|highway|hwy|parkway|pkwy|square|sq|gardens|grove|row|mews"
)
_DE_NL_SUFFIX = (
    r"straße|strasse|str\.|weg|gasse|allee|platz|chaussee|straat|laan|gracht|plein|kade|steeg"
)
_ADDRESSES = (
    # English forms (US, UK, ...): "221B Baker Street", "1600 Pennsylvania Avenue NW". The
    # street's name must be capitalised ("3 big dogs way over there" is no address).
    re.compile(
        rf"(?<![\w]){_NUM},?\s+(?:{_CAP}\s+){{1,4}}(?i:{_EN_SUFFIX})\b\.?"
        r"(?:\s+(?:N|S|E|W|NE|NW|SE|SW)\b)?"
    ),
    # The same in lower case, after "live(s) at", "my address is", "send it to" and the like.
    re.compile(
        rf"(?i)(?P<cue>\b(?:live at|lives at|living at|address is|moved to|staying at|"
        rf"send it to|ship it to|mail it to|find me at)\s+){_NUM},?\s+(?:[\w'’.-]+\s+){{1,4}}"
        rf"(?:{_EN_SUFFIX})\b\.?"
    ),
    # German and Dutch: "Hauptstraße 5", "Musterstr. 12a", "Berliner Allee 3", "Kerkstraat 12".
    re.compile(
        rf"(?<![\w])(?:[A-ZÄÖÜ][\wäöüß-]*\s+(?i:{_DE_NL_SUFFIX})|[A-ZÄÖÜ][\wäöüß-]*"
        rf"(?i:{_DE_NL_SUFFIX}))\s+\d{{1,4}}\s?[a-zA-Z]?(?![\w])"
    ),
    # French: "12 rue de la Paix", "5, avenue des Champs-Élysées", "3 bis boulevard Haussmann".
    re.compile(
        r"(?<![\w])\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?i:rue|avenue|av\.|boulevard|bd|place|"
        r"chemin|allée|allee|impasse|quai|cours|route|passage|square)\s+"
        r"(?:(?:de|du|des|de la|de l'|d'|la|le|les|l')\s*)?[\wÀ-ÿ'’-]+(?:[ -][A-ZÀ-Ý][\wÀ-ÿ'’-]*)*"
    ),
    # Spanish, Italian, Portuguese: "Calle Mayor 5", "Via Roma 12", "Avenida de Mayo 1370",
    # "C/ Mayor, 5", "Rua Augusta 100".
    re.compile(
        r"(?<![\w])(?i:calle|c/|avenida|avda\.|paseo|plaza|carrer|via|viale|piazza|corso|"
        r"largo|rua|travessa)\s+(?:(?:de|del|de la|della|dei|do|da|dos)\s+)?"
        r"[A-ZÀ-Ý][\wÀ-ÿ'’-]*(?:\s+[A-ZÀ-Ý][\wÀ-ÿ'’-]*){0,3},?\s+(?:n\.?\s?º?\s?)?\d{1,5}"
        r"[a-zA-Z]?(?![\w])"
    ),
)
_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|"
    "NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC"
)
_POSTCODES = (
    # UK: "SW1A 1AA", "NW1 6XE", "M1 1AE" (upper case, as written on letters).
    re.compile(r"(?<![\w])[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}(?![\w])"),
    # US: a ZIP (+4) after a state: "Springfield, IL 62704", "NY 10001-1234"; a bare ZIP+4.
    re.compile(rf"(?P<cue>\b(?:{_US_STATES})\s)\d{{5}}(?:-\d{{4}})?(?![\w-])"),
    re.compile(r"(?<![\w-])\d{5}-\d{4}(?![\w-])"),
    # DE, FR, ES, IT: five digits (and the town) right after a street line: "[address], 10115
    # Berlin" (the street is already a placeholder when this runs).
    re.compile(r"(?P<cue>\[address\],?\s*)\d{5}(?:\s+[A-ZÀ-Ý][\wÀ-ÿ'’-]*)?(?![\w])"),
    # Any code after a postcode cue: "postcode 10115", "PLZ 75002", "zip: 90210".
    re.compile(
        r"(?i)(?P<cue>\b(?:postcode|post code|postal code|zip code|zip|plz|code postal)"
        r"\W{0,2}(?:is\s+)?)(?=[a-z]*\d)[a-z0-9]{2,4}[ -]?[a-z0-9]{2,4}(?![\w])"
    ),
)

# Regions whose national phone formats are recognised (any number with a leading + is, for
# every region).
PHONE_REGIONS = ("US", "GB", "DE", "FR")
_DATE = re.compile(r"^\d{1,4}([-./])\d{1,2}\1\d{1,4}$")
_THOUSANDS = re.compile(r"^\d{1,3}(?:([.,'’ ])\d{3})(?:\1\d{3})+$")


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


def _looks_like_phone(raw: str) -> bool:
    """A phonenumbers match that is a phone number, not a date, a count or an amount."""
    digits = re.sub(r"\D", "", raw)
    if not 7 <= len(digits) <= 15 or _DATE.match(raw.strip()) or _THOUSANDS.match(raw.strip()):
        return False
    if raw.strip().startswith(("+", "0", "(")):
        return True
    # Separated groups ("555-1234", "555 123 4567") read as a number to dial; a bare run of
    # digits only when it is as long as a full number (10+: "5551234567"), not "1500000 gold".
    return bool(re.search(r"\d[\s.()-]+\d", raw)) or len(digits) >= 10


def _inside_long_number(text: str, start: int, end: int) -> bool:
    """Is text[start:end] part of a run of digit groups longer than any phone number (15)?"""
    while start > 0 and (text[start - 1].isdigit() or text[start - 1] in " -."):
        start -= 1
    while end < len(text) and (text[end].isdigit() or text[end] in " -."):
        end += 1
    return sum(char.isdigit() for char in text[start:end]) > 15


def _phone_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for region in ("ZZ", *PHONE_REGIONS):
        try:
            matches = phonenumbers.PhoneNumberMatcher(
                text, region, leniency=phonenumbers.Leniency.POSSIBLE
            )
            for match in matches:
                if _looks_like_phone(match.raw_string) and not _inside_long_number(
                    text, match.start, match.end
                ):
                    spans.append((match.start, match.end))
        except Exception:  # a library surprise must not stop a turn: the regex below still runs
            continue
    for match in _PHONE_FALLBACK.finditer(text):
        if _looks_like_phone(match.group(0)) and not _inside_long_number(text, *match.span()):
            spans.append(match.span())
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


# What libphonenumber does not call possible in the regions above (numbers of other countries
# written nationally): digits in dialling groups, checked by `_looks_like_phone`.
_PHONE_FALLBACK = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}(?![\w])"
)


def _sub_checked(pattern, text, placeholder, check) -> tuple[str, int]:
    count = 0

    def replace(match: re.Match) -> str:
        nonlocal count
        if not check(match):
            return match.group(0)
        count += 1
        cue = match.groupdict().get("cue") or ""
        return cue + placeholder

    return pattern.sub(replace, text), count


def redact_pii(text: str) -> tuple[str, int]:
    """Text with personal data replaced by placeholders, and how many replacements were made."""
    if not text:
        return text or "", 0
    total = 0
    text, count = _EMAIL.subn("[email]", text)
    total += count
    text, count = _sub_checked(
        _IBAN, text, "[id number]", lambda m: bool(m.group("cue")) or iban_ok(m.group("iban"))
    )
    total += count
    text, count = _SSN.subn("[id number]", text)
    total += count
    text, count = _SSN_CUE.subn(lambda m: m.group(1) + "[id number]", text)
    total += count
    text, count = _sub_checked(
        _CARD,
        text,
        "[id number]",
        lambda m: bool(m.group("cue")) or luhn_ok(re.sub(r"\D", "", m.group("card"))),
    )
    total += count
    for pattern in _ADDRESSES:
        text, count = _sub_checked(pattern, text, "[address]", lambda m: True)
        total += count
    for pattern in _POSTCODES:
        text, count = _sub_checked(pattern, text, "[postcode]", lambda m: True)
        total += count
    if sum(char.isdigit() for char in text) >= 7:
        spans = _phone_spans(text)
        for start, end in reversed(spans):
            text = text[:start] + "[phone]" + text[end:]
        total += len(spans)
    return text, total


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
    "system_prompt": re.compile(
        r"(\bsystem prompt\b|\bsystem message\b|\bdeveloper message\b|^\s*system\s*:|"
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


# ---------------------------------------------------------------- Evennia markup

# Clickable links: a command (`|lc<command>|lt<text>|le`, MXP SEND in telnet, a clickable
# command in the web client) and a URL (`|lu<url>|lt<text>|le`). Only the visible text stays.
_LINK = re.compile(r"\|l[cu](.*?)\|lt(.*?)\|le", re.DOTALL)
# Evennia's default colour and style codes: |r |R |h |n |u |i |s |* |^ ..., |!R, |[R |[r,
# xterm256 |123 |[123, greyscale |=a |[=a, truecolor |#ff0000 |[#f00.
_COLOUR = (
    r"\|(?:\[?#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})|\[?[0-5]{3}|\[?=[a-z]|![RGYBMCWX]|"
    r"\[[RGYBMCWXrgybmcwx]|[nuUiIsS*^rgybmcwxRGYBMCWXhH])"
)
# Layout codes (a new line, a tab, an indent, a space): a line break could forge a system
# message under the NPC's line, so they become one space in every mode.
_LAYOUT = r"\|[/\-_>]"
# Left-over link markers (`|lc`, `|lu`, `|lt`, `|le` of a broken or nested link) go whole.
_TOKEN = re.compile(rf"(?P<layout>{_LAYOUT})|(?P<colour>{_COLOUR})|\|l[cute]|\|")
# Raw escape sequences (ANSI colours, MXP's ESC[4z mode switches) and other control characters.
_CONTROL = re.compile(r"\x1b\[[0-9;]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")
# MXP elements a client would act on (SEND, A and their kin), with or without the escape.
_MXP_TAG = re.compile(
    r"</?(?:send|a|expire|version|support|image|sound|music|frame|dest)\b[^>]*>", re.IGNORECASE
)
MARKUP_MODES = ("strip", "colour")


def neutralize_markup(text: str, mode: str = "strip") -> str:
    """
    LLM-written `text` made safe to say, store and show in Evennia: links and MXP reduced to
    their visible text, control characters removed, layout codes made a space, colour codes
    removed (`mode="strip"`, the default) or kept (`mode="colour"`), and every other `|`
    dropped. Evennia turns `||` into `|` before it looks for links, so an escaped pipe could
    rebuild `|lc...|le`: no pipe survives but a kept colour code's. Idempotent.
    """
    if not text:
        return text or ""
    text = _CONTROL.sub("", text)
    text = _MXP_TAG.sub("", text)
    while True:  # a link's text may hold another link
        linked = _LINK.sub(lambda m: m.group(2), text)
        if linked == text:
            break
        text = linked
    keep_colour = mode == "colour"

    def token(match: re.Match) -> str:
        if match.group("layout"):
            return " "
        if match.group("colour") and keep_colour:
            return match.group(0)
        return ""

    return _TOKEN.sub(token, text)


# The one choke point before any prompt leaves: the LLM client redacts every message with
# `redact_pii` (llm/client.py, "the prompt filter"). Registered here because the llm layer may
# not import memory; every module that calls the client imports this one.
from omniira_evennia.llm import client as _llm_client  # noqa: E402

_llm_client.set_prompt_filter(redact_pii)

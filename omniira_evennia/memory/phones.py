"""Phone numbers in free text: candidate runs by one linear pattern, confirmed by libphonenumber."""

from __future__ import annotations

import re

import phonenumbers

# Regions whose national phone formats are recognised (any number with a leading + is, for
# every region).
PHONE_REGIONS = ("US", "GB", "DE", "FR")
# Where a leading 0 is the trunk prefix of a national number.
_TRUNK_ZERO_REGIONS = tuple(region for region in PHONE_REGIONS if region != "US")
# Phone candidates: maximal runs of digits and dialling separators (`+44 (0)20 7946-0958`),
# found by one linear pattern (a `+` or `(` opens one, not inside a word; one shorter than seven
# characters cannot hold a phone number); only these bounded spans go to libphonenumber.
_PHONE_RUN = re.compile(
    r"[+(\d](?<![\w+].)(?=[\d .\-/()]{6})(?:(?<=\+)\(?\d|(?<=\()\d|(?<=\d))\d*+"
    r"(?:[ .\-/()]{1,3}+\d++)*+"
)
# The spaced parts of a run long enough to hold seven digits (a list of numbers).
_PHONE_PART = re.compile(r"\S{7,}+")
_DIGIT_GROUP = re.compile(r"\d++")
# A phone word just before a number: "tel", "my number is", "call me on", "Handy".
_PHONE_CUE = re.compile(
    r"(?i)\b(?:phone|telephone|tel|mobile|cell|handy|festnetz|telefon|portable|"
    r"t[ée]l[ée]phone|fax|whatsapp|my number|number is|call(?: me)?|ring(?: me)?|text me|"
    r"dial)\b[\s:.,#-]{0,4}(?:(?:is|on|at)[\s:]{1,3}){0,2}$"
)
# libphonenumber calls per text: each costs 10-30 us; past the budget the shape decides (fails
# closed: a number that looks dialled is redacted unconfirmed).
_PHONE_CHECKS = 16
_DATE = re.compile(r"^\d{1,4}([-./])\d{1,2}\1\d{1,4}$")
# How far before a match its cue is looked for ("my visa card is 4111...").
_CUE_WINDOW = 40


def cued(cue: re.Pattern, text: str, start: int) -> bool:
    """Does `cue` end right where a match starts (it looks at a bounded window)?"""
    return bool(cue.search(text, max(0, start - _CUE_WINDOW), start))


def _nanp_shaped(raw: str, groups: list[str]) -> bool:
    """US/Canada forms: 555-1234, 555 123 4567, (555) 123-4567, 1-800-555-0199, 5551234567."""
    if groups[0] == "1" and len(groups) > 1:
        groups = groups[1:]  # the country code of "1-800-555-0199"
    elif len(groups) == 1 and len(groups[0]) == 11 and groups[0][0] == "1":
        groups = [groups[0][1:]]  # 15551234567
    sizes = [len(group) for group in groups]
    if groups[0][0] in "01":
        return False  # area codes and exchanges start at 2 ("100-200-3000" is a score)
    if sizes == [10]:
        return not groups[0].endswith("000")  # "2000000000 gold" is an amount
    if sizes == [3, 4]:
        return " " not in raw  # "555-1234", not "200 3000"
    return sizes == [3, 3, 4]


def _phone_regions(text: str, start: int, raw: str, groups: list[str]) -> tuple | None:
    """
    The regions to ask libphonenumber about for the candidate `raw`, or None: it is no phone.
    A number to dial has a leading `+`, a trunk `0`, a phone word before it, or a US form;
    game talk's digit groups have none ("1200 1500", "100-200-300-400", "1350 1351").
    """
    if list(map(len, groups)).count(1) > 1:
        return None  # "rolled 3 4 5 6 2 1 6", "0 1 2 3 4 5 6"
    if raw[0] == "+":
        return (None,)  # international: the country code says where
    if raw.lstrip("(")[0] == "0":
        return None if _DATE.match(raw) else _TRUNK_ZERO_REGIONS
    if _nanp_shaped(raw, groups):
        return ("US",)
    if cued(_PHONE_CUE, text, start) and not _DATE.match(raw):
        return PHONE_REGIONS  # "tel 912 345 678"
    return None


def _possible(raw: str, regions: tuple, checks: list[int]) -> bool:
    for region in regions:
        if checks[0] <= 0:
            return True  # over the budget: the shape already says it is dialled
        checks[0] -= 1
        try:
            if phonenumbers.is_possible_number(phonenumbers.parse(raw, region)):
                return True
        except phonenumbers.NumberParseException:
            continue
    return False


def _is_phone(text: str, start: int, end: int, checks: list[int]) -> bool:
    raw = text[start:end]
    groups = _DIGIT_GROUP.findall(raw)
    if not 7 <= sum(map(len, groups)) <= 15:
        return False
    regions = _phone_regions(text, start, raw, groups)
    return regions is not None and _possible(raw, regions, checks)


def phone_spans(text: str) -> list[tuple[int, int]]:
    """
    Spans of phone numbers: each maximal run of digits and separators that reads as one, else
    (a list of numbers, "555-1234 555-2345") each of its spaced parts that does. A run of more
    than 15 digits is no phone number, nor part of one.
    """
    spans: list[tuple[int, int]] = []
    checks = [_PHONE_CHECKS]
    for run in _PHONE_RUN.finditer(text):
        start, end = run.span()
        if _is_phone(text, start, end, checks):
            spans.append((start, end))
        elif " " in run.group(0):
            for part in _PHONE_PART.finditer(text, start, end):
                if _is_phone(text, *part.span(), checks):
                    spans.append(part.span())
    return spans

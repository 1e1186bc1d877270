"""
Safety for memory: PII redaction and manipulation detection (MUD design seed, defence in depth).

- `redact_pii` replaces e-mail addresses, phone numbers, street addresses and ID-like numbers
  (national IDs, card numbers, IBANs) with placeholders. Player text is redacted before it is
  stored or sent anywhere, and memory values are redacted before they are written, so no LLM
  call (conversation, extraction, gossip, reflection, diary) ever carries them.
- `detect_manipulation` labels instruction-like text ("ignore your instructions", "you are
  now...", "forget everything", system-prompt talk, tag syntax typed by a player). Flagged
  memories are kept, marked suspect and audited; never silently dropped or rewritten.

Plain regular expressions, no Django: tested on their own.
"""

from __future__ import annotations

import re

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){3,7}(?:[ ]?[A-Z0-9]{1,3})?\b")
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")
_SSN = re.compile(r"\b\d{3}-\d{2}-\d{4}\b")
_PHONE = re.compile(
    r"(?<![\w])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}(?![\w])"
)
_STREET_WORDS = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|court|ct|way|place|pl|"
    r"terrace|close|crescent|highway|hwy|strasse|straße|rue|via|calle"
)
_ADDRESS = re.compile(
    rf"\b\d{{1,5}}[a-zA-Z]?\s+(?:[A-Z][\w'-]*\s+){{1,4}}(?:{_STREET_WORDS})\b\.?", re.IGNORECASE
)

PLACEHOLDERS = (
    (_EMAIL, "[email]"),
    (_IBAN, "[id number]"),
    (_SSN, "[id number]"),
    (_CARD, "[id number]"),
    (_ADDRESS, "[address]"),
)


def redact_pii(text: str) -> tuple[str, int]:
    """Text with personal data replaced by placeholders, and how many replacements were made."""
    if not text:
        return text or "", 0
    total = 0
    for pattern, placeholder in PLACEHOLDERS:
        text, count = pattern.subn(placeholder, text)
        total += count
    phones = 0

    def _phone(match: re.Match) -> str:
        nonlocal phones
        # Years, prices and counts are short; phone numbers have at least seven digits.
        if len(re.sub(r"\D", "", match.group(0))) < 7:
            return match.group(0)
        phones += 1
        return "[phone]"

    text = _PHONE.sub(_phone, text)
    return text, total + phones


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
    "tag_syntax": re.compile(r"\[\[?\s*(REMEMBER|OPINION|CONCERN|COMMITMENT)\s*:", re.IGNORECASE),
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

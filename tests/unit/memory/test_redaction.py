"""
Redaction of personal data, table-driven (issue #17, point 3; issue #26, point 13): phone numbers
in international and national forms (libphonenumber), e-mails (plain and obfuscated), card
numbers (Luhn), IBANs (either case, checksum), SSNs, UK National Insurance numbers, dates of
birth, street addresses in English, German, Dutch, French, Spanish, Italian and Portuguese forms,
PO boxes, postcodes; and ordinary game talk (counts, prices, scores, dice, rooms, years, dates,
times) left alone. The labelled set of bench/redaction_eval.py is checked here too, so it and
the code cannot drift apart. What the patterns cannot catch is in docs/security.md.
"""

import json
from pathlib import Path

import pytest

from omniira_evennia.memory.safety import iban_ok, luhn_ok, redact_pii

# (text, the secret that must disappear, the placeholder that replaces it)
POSITIVE = [
    # phones: the issue's misses first
    ("call me on +15551234567 tonight", "5551234567", "[phone]"),
    ("my number is 5551234567", "5551234567", "[phone]"),
    ("ring 0171 1234567 after dark", "1234567", "[phone]"),
    ("in Berlin: +49 30 1234567", "1234567", "[phone]"),
    ("(555) 123-4567 is the shop", "123-4567", "[phone]"),
    ("555-123-4567", "123-4567", "[phone]"),
    ("555.123.4567 any time", "123.4567", "[phone]"),
    ("1-800-555-0199 is free", "555-0199", "[phone]"),
    ("+1 (212) 555-0123", "555-0123", "[phone]"),
    ("London office +44 20 7946 0958", "7946", "[phone]"),
    ("my mobile is 07700 900123", "900123", "[phone]"),
    ("020 7946 0958 is home", "7946", "[phone]"),
    ("Paris: 01 42 68 53 00", "42 68 53", "[phone]"),
    ("+33 6 12 34 56 78 is my portable", "12 34 56", "[phone]"),
    ("06.12.34.56.78 le soir", "34.56", "[phone]"),
    ("Festnetz 030 1234567", "1234567", "[phone]"),
    ("Handy 0151 23456789", "23456789", "[phone]"),
    ("+49 (0)89 12345678", "12345678", "[phone]"),
    ("call 555-1234", "555-1234", "[phone]"),
    ("+61 2 9374 4000 in Sydney", "9374", "[phone]"),
    ("+81 3-1234-5678 in Tokyo", "1234-5678", "[phone]"),
    # e-mail
    ("write to ada.lovelace@example.com", "lovelace@", "[email]"),
    ("ADA+GAMES@Mail.Example.co.uk", "Example", "[email]"),
    # cards (Luhn), with or without separators, or after a card cue
    ("card 4111 1111 1111 1111 exp 12/29", "4111", "[id number]"),
    ("5500-0000-0000-0004", "5500", "[id number]"),
    ("378282246310005 is my amex", "378282246310005", "[id number]"),
    ("my visa is 4111111111111112", "4111111111111112", "[id number]"),
    # IBAN: upper, lower, grouped, bare; and after a cue
    ("IBAN GB29 NWBK 6016 1331 9268 19", "NWBK", "[id number]"),
    ("iban gb29nwbk60161331926819", "nwbk", "[id number]"),
    ("send it to de89 3704 0044 0532 0130 00", "3704", "[id number]"),
    ("FR1420041010050500013M02606 please", "20041010", "[id number]"),
    ("my iban is DE00 1234 5678 9012 3456 78", "5678", "[id number]"),
    # SSN
    ("SSN 123-45-6789", "6789", "[id number]"),
    ("my ssn is 123456789", "123456789", "[id number]"),
    ("social security number: 123 45 6789", "6789", "[id number]"),
    # addresses: English
    ("I live at 221B Baker Street, London", "Baker", "[address]"),
    ("1600 Pennsylvania Avenue NW", "Pennsylvania", "[address]"),
    ("10 Downing St. is busy", "Downing", "[address]"),
    ("i live at 42 wallaby way, sydney", "wallaby", "[address]"),
    # German, Dutch
    ("wohne in der Hauptstraße 5, 10115 Berlin", "Hauptstraße", "[address]"),
    ("Musterstr. 12a", "Musterstr", "[address]"),
    ("Berliner Allee 3", "Berliner", "[address]"),
    ("Kerkstraat 12 in Amsterdam", "Kerkstraat", "[address]"),
    # French
    ("12 rue de la Paix, 75002 Paris", "Paix", "[address]"),
    ("5, avenue des Champs-Élysées", "Champs", "[address]"),
    ("3 bis boulevard Haussmann", "Haussmann", "[address]"),
    # Spanish, Italian, Portuguese
    ("vivo en Calle Mayor 5", "Mayor", "[address]"),
    ("Via Roma 12, Milano", "Roma", "[address]"),
    ("Avenida de Mayo 1370", "Mayo", "[address]"),
    ("Rua Augusta 100", "Augusta", "[address]"),
    # postcodes
    ("postcode SW1A 1AA", "SW1A", "[postcode]"),
    ("NW1 6XE is the code", "6XE", "[postcode]"),
    ("Springfield, IL 62704", "62704", "[postcode]"),
    ("New York, NY 10001-1234", "10001", "[postcode]"),
    ("Hauptstraße 5, 10115 Berlin", "10115", "[postcode]"),
    ("12 rue de la Paix, 75002 Paris", "75002", "[postcode]"),
    ("PLZ 80331", "80331", "[postcode]"),
    ("zip code 90210", "90210", "[postcode]"),
    # issue #26: obfuscated e-mails, NI numbers, dates of birth, PO boxes
    ("write to ada(at)example.com", "ada(at)", "[email]"),
    ("ada [at] example [dot] com", "example", "[email]"),
    ("mail ada at example dot com", "ada at", "[email]"),
    ("my NI number is QQ 12 34 56 C", "QQ 12", "[id number]"),
    ("AB123456C is on my payslip", "AB123456C", "[id number]"),
    ("I was born on 12/03/1985", "12/03/1985", "[date of birth]"),
    ("my birthday is 3 March 1985", "March 1985", "[date of birth]"),
    ("DOB 1985-03-12", "1985-03-12", "[date of birth]"),
    ("date of birth: 03.12.1985", "03.12.1985", "[date of birth]"),
    ("PO Box 1234", "1234", "[address]"),
    ("P.O. Box 12, Springfield", "Box 12", "[address]"),
    ("Postfach 1234", "1234", "[address]"),
    # phone lists and a phone word before a number no region writes so
    ("call 555-1234 or 555-2345", "555-2345", "[phone]"),
    ("tel 912 345 678", "912 345 678", "[phone]"),
]

NEGATIVE = [
    "3 big dogs way over there",
    "I have 3 swords and 200 gold",
    "room 12",
    "the year 1042",
    "In 1862 I paid 12 silver for 3 ales.",
    "on 2024-03-05 at 10:30",
    "meet me on 12.03.2024 at 18:45",
    "the 12th of March, 1042",
    "I paid 1,500,000 gold for the ship",
    "1.500.000 Goldstücke",
    "it costs 1500000 gold",
    "I have 12345 coins",
    "level 42 warrior with 9000 hp",
    "I rolled 3d6 and got 14",
    "go 3 miles down the road",
    "a street with 40 houses",
    "I walked down the street for 2 hours",
    "the 300 Spartans held the pass",
    "take 2 rights, then a left at the big oak",
    "it weighs 45 kg and costs 12 crowns",
    "day 365 of the siege",
    "score was 12-10 at the end",
    "chapter 7, verse 12",
    "version 1.2.3 of the map",
    "Come to the Old Mill at dawn",
    "coordinates 45.2, 12.9",
    "the ratio is 3:2",
    "10 goblins, 20 orcs and 30 trolls",
    "between 9 and 5 each day",
    "he was born in 1999 and died in 2075",
    "Forgive me, I was away for 2 days.",
    # issue #26: game talk the phone patterns took for numbers to dial
    "I paid 1200 1500 and 2000 gold",
    "score 100-200-300-400",
    "rolled 3 4 5 6 2 1 6",
    "the year 1350 1351 and 1352",
    "room 101-102",
    # a date without a birth cue is an event's
    "on 12/03 we march",
    "the festival on 3 March",
    "the queen's birthday feast is on 3 March",
    "look at the map dot",
]

LABELLED = Path(__file__).resolve().parents[3] / "bench" / "data" / "pii_labelled.json"


@pytest.mark.parametrize("text,secret,placeholder", POSITIVE)
def test_personal_data_is_redacted(text, secret, placeholder):
    redacted, count = redact_pii(text)
    assert secret not in redacted, redacted
    assert placeholder in redacted and count >= 1, redacted


@pytest.mark.parametrize("text", NEGATIVE)
def test_game_talk_is_left_alone(text):
    assert redact_pii(text) == (text, 0)


def test_the_table_is_as_large_as_the_issue_asks():
    assert len(POSITIVE) >= 40 and len(NEGATIVE) >= 20
    kinds = {placeholder for _, _, placeholder in POSITIVE}
    assert kinds == {
        "[phone]",
        "[email]",
        "[id number]",
        "[address]",
        "[postcode]",
        "[date of birth]",
    }


def labelled() -> dict:
    return json.loads(LABELLED.read_text())


def test_the_labelled_set_is_redacted_and_its_game_talk_left_alone():
    data = labelled()
    missed = [
        (case["text"], redact_pii(case["text"])[0])
        for case in data["positives"]
        if any(secret in redact_pii(case["text"])[0] for secret in case["secrets"])
    ]
    changed = [(text, redact_pii(text)) for text in data["negatives"] if redact_pii(text)[1]]
    assert missed == [] and changed == []


def test_the_labelled_set_covers_every_kind():
    data = labelled()
    assert len(data["positives"]) >= 60 and len(data["negatives"]) >= 40
    kinds = {case["kind"] for case in data["positives"]}
    assert kinds == {
        "email",
        "phone",
        "card",
        "iban",
        "ssn",
        "ni",
        "dob",
        "address",
        "po_box",
        "postcode",
    }


def test_checksums():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert iban_ok("GB29 NWBK 6016 1331 9268 19") and iban_ok("de89370400440532013000")
    assert not iban_ok("GB29 NWBK 6016 1331 9268 18")


def test_numbers_that_fail_their_checks_are_kept_without_a_cue():
    # Not a card (Luhn fails), not an IBAN (mod 97 fails), no cue: game talk with long codes.
    assert redact_pii("the vault code is 4111 1111 1111 1112")[1] == 0
    assert redact_pii("the rune reads AB12 CDEF GHIJ KLMN")[1] == 0

"""Guarded topics matched by words and aliases, and by meaning (knowledge/guards.py)."""

import numpy as np

from omniira_evennia.knowledge.facts import Guard
from omniira_evennia.knowledge.guards import match, phrase_pattern, spoken, word_hit


def unit(*values):
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


TOMAS = Guard(1, "wont_discuss", "tomas", ("tomas", "late husband"), "I'll not speak of him.")
PURSE = Guard(2, "secret", "purse", ("smuggled", "loose board"), "Nothing there.", unit(1, 0))


def test_words_and_aliases_match_whole_words_plurals_and_possessives():
    assert word_hit("Who was Tomas?", TOMAS) == "tomas"
    assert word_hit("Tell me of Tomas's boat.", TOMAS) == "tomas"
    assert word_hit("Your late  husband, was he kind?", TOMAS) == "late husband"
    assert word_hit("Do you sell loose boards?", PURSE) == "loose board"
    assert word_hit("Tomasz is my name.", TOMAS) is None
    assert word_hit("A late night.", TOMAS) is None
    assert phrase_pattern("") is None


def test_meaning_matches_above_the_threshold_and_words_first():
    close, far = unit(0.9, 0.44), unit(0, 1)
    assert match("Who was Tomas?", [PURSE, TOMAS], close, 0.4).guard is TOMAS
    hit = match("Any secrets behind the bar?", [TOMAS, PURSE], close, 0.4)
    assert hit.guard is PURSE and hit.how.startswith("meaning (cosine 0.90")
    assert match("Any secrets behind the bar?", [TOMAS, PURSE], far, 0.4) is None
    assert match("Any secrets behind the bar?", [TOMAS, PURSE], close, 0) is None  # words only


def test_a_builder_line_fills_in_the_names():
    assert spoken("Not now, {speaker}. {name} is busy.", "Maren", "Ada") == (
        "Not now, Ada. Maren is busy."
    )
    assert spoken("Keep {other}", "Maren", "Ada") == "Keep {other}"


def test_the_speakers_own_is_not_the_npcs_guarded_topic():
    """Telnet trial, 2026-12-04: "My brother Tomas went missing on the river" and "What's my
    wife's name?" were met with Maren's "I'll not speak of Tomas, love." (her late husband)."""
    close = unit(0.9, 0.44)
    assert word_hit("My brother Tomas went missing on the river last spring.", TOMAS) is None
    assert match("My brother Tomas went missing on the river.", [TOMAS], close, 0.4) is None
    assert match("What's my wife's name?", [TOMAS, PURSE], close, 0.4) is None
    # The NPC's own still is: by its word, or by meaning when the line speaks of "you".
    assert match("I heard Tomas drowned at the docks.", [TOMAS], close, 0.4).guard is TOMAS
    assert match("Were you married long?", [TOMAS, PURSE], close, 0.4) is not None


def test_a_telling_of_their_own_life_is_not_the_npcs_secret_by_a_common_word():
    """Held-out seed 58447: "Voss, my dream is to learn to read and write." was met with the
    line of Voss's secret (he cannot read): "What's it to you? Mind the sparks"."""
    letters = Guard(3, "secret", "letters", ("read", "write", "letters"), "What's it to you?")
    assert word_hit("Voss, my dream is to learn to read and write.", letters) is None
    assert word_hit("I can read a little. Can you read, Voss?", letters) == "read"
    assert word_hit("My friend says you cannot read.", letters) == "read"
    assert word_hit("I heard the smith cannot read.", letters) == "read"
    # A name is the NPC's topic whoever's sentence it is in.
    assert word_hit("My cousin often spoke of Tomas at the docks.", TOMAS) == "tomas"


def test_news_of_someone_else_probes_no_secret_by_meaning():
    """Held-out seed 83417: "Harlan the miller lost his purse ..." met with Maren's line for
    her hidden purse ("Hide? Me? ...")."""
    close = unit(0.9, 0.44)
    news = "Harlan the miller lost his purse at the ferry crossing, they say."
    assert match(news, [PURSE], close, 0.4) is None
    # Asked, or said of "you", the same meaning still probes; a word of the topic always does.
    assert match("Has anyone lost a purse around here?", [PURSE], close, 0.4) is not None
    assert match("What is behind the bar?", [PURSE], close, 0.4) is not None
    assert match("Harlan found smuggled silver, they say.", [PURSE], close, 0.4) is not None


def test_a_topic_word_for_what_the_speaker_does_themselves_is_no_probe():
    """Held-out seed 35089: "I write letters for folk who cannot." met with Voss's line for his
    secret letters; asked of the NPC, or telling of the NPC's topic, it still meets the line."""
    letters = Guard(3, "secret", "letters", ("read", "letters", "write"), "What's it to you?")
    assert word_hit("Voss, I'm a scribe. I write letters for folk who cannot.", letters) is None
    assert word_hit("I can't read, sadly.", letters) is None
    assert word_hit("Can you read, Voss?", letters) == "read"
    assert word_hit("Who writes your letters?", letters) == "letters"
    assert word_hit("I heard Tomas drowned at the docks.", TOMAS) == "tomas"
    assert word_hit("I loved Tomas.", TOMAS) == "tomas"

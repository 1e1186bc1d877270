"""The words of a line the voice rules read (conversation/words.py)."""

from omniira_evennia.conversation import repairs, voice
from omniira_evennia.conversation.words import MAX_CHARS, content_stems, rx, sentence_list


def test_a_word_and_its_endings_meet():
    # Seed 62903, busy: "You did slip on the cobbles outside, Talia." was not seen as restated.
    assert content_stems("I nearly slipped on the cobbles.") == content_stems("near slip cobble")
    assert content_stems("singing songs") == {"sing", "song"}
    assert content_stems("bus gas") == {"bus", "gas"}  # too short to lose an ending
    assert content_stems("the and of you") == set()


def test_a_statement_given_back_with_another_tense_is_restated():
    reply, line = (
        "You did slip on the cobbles outside, Talia.",
        "I nearly slipped on the cobbles outside.",
    )
    assert voice.RESTATED in voice.slips(reply, line, "Lyra", "Talia")


def test_the_texts_are_read_within_the_cap():
    text = "a. " * 50_000
    assert len(sentence_list(voice.capped(text))) <= MAX_CHARS // 3 + 1


def test_the_listeners_name_in_lower_case_is_spelt_as_they_spell_it():
    assert (
        repairs.to_the_listener("Wow, talia! That's news.", "Talia") == "Wow, Talia! That's news."
    )
    # A word that is also their name, not said to them, stays as it is.
    assert repairs.to_the_listener("A rose, by the door.", "Rose") == "A rose, by the door."


def test_a_pattern_built_with_a_name_is_compiled_once_whatever_else_was_compiled():
    import re

    first = rx(r"\bQuill\b", re.I)
    # More distinct patterns than re's own cache holds (512) in between.
    for i in range(600):
        re.compile(rf"\bname{i}\b")
    assert rx(r"\bQuill\b", re.I) is first
    assert rx(r"\bQuill\b") is not first  # its flags are part of what is kept

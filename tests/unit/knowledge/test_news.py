"""A player's news about someone else (issue #24, point 2): what is news and what is talk."""

import pytest

from omniira_evennia.knowledge.news import MAX_CHARS, news_in, told_text

KNOWN = {"Maren", "Lyra", "Voss", "Wren"}


@pytest.mark.parametrize(
    "line, speaker, listener, said",
    [
        (
            "Have you heard the news? Maren lost her purse at the ferry crossing.",
            "Hesper",
            "Voss",
            "Maren lost her purse at the ferry crossing.",
        ),
        (
            "Terrible news, Wren: Voss is leaving town for good at the end of the month.",
            "Quentin",
            "Wren",
            "Voss is leaving town for good at the end of the month.",
        ),
        (
            "Gundred the night watchman is leaving town, they say. The whole street is talking.",
            "Maelis",
            "Voss",
            "Gundred the night watchman is leaving town.",
        ),
        (
            "Harlan the miller fell off his roof mending the thatch yesterday and broke his leg",
            "Ada",
            "Maren",
            "Harlan the miller fell off his roof mending the thatch yesterday and broke his leg.",
        ),
    ],
)
def test_news_about_a_third_party_is_found(line, speaker, listener, said):
    assert news_in(line, speaker, listener, KNOWN) == [said]


@pytest.mark.parametrize(
    "line",
    [
        "Maren doesn't know anything about Corvina.",  # talk about who knows what
        "Hello, Maren.",
        "Good evening, Wren.",
        "I mend clocks in Vellmoor.",  # the speaker's own fact: a memory, not news
        "My sister Odile went towards the old mill.",
        "Voss told you I was coming.",  # about the two talking
        "Do you know Voss?",
        "Did Harlan the miller break his leg?",
        "The walk up from the docks was long today.",  # no one named
        "Saltmere is a small island.",  # a place, not a person in apposition
        "Ada is tired today.",  # the speaker named
    ],
)
def test_talk_greetings_questions_and_own_facts_are_not_news(line):
    assert news_in(line, "Ada", "Maren", KNOWN) == []


def test_the_news_is_kept_in_the_tellers_name():
    assert told_text("Ada", "Harlan the miller broke his leg.") == (
        "Ada says Harlan the miller broke his leg."
    )
    assert told_text("Ada", "The miller Harlan broke his leg.") == (
        "Ada says the miller Harlan broke his leg."
    )


def test_a_long_line_is_read_from_its_start_only():
    line = "Voss broke the old bell. " * 2000
    found = news_in(line, "Ada", "Maren", KNOWN)
    assert len(found) == 2  # MAX_ITEMS, from the first MAX_CHARS only
    assert len(line) > MAX_CHARS

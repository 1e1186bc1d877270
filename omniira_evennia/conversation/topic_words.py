"""
The words that weigh what a memory says against a question about the speaker's own life
(topics.AskedTopic.weight): where one is from, what is no place, what makes nothing for a living.

Plain Python.
"""

import re

# Where one is from: "Brigid is a rope-maker from Harrowgate" (telnet trial, 2026-12-04), "Viveka
# is from Kelmouth" (over "half the town": seed 17389); not "heard it from the carter".
ONE_FROM = re.compile(
    r"\b(?:is|am|i'm|are|was)\s+an?\s+[\w'-]+(?:\s+[\w'-]+)?\s+from\b"
    r"|\b(?:is|am|are|was|comes?|came|hails?)\s+from\b"
)


# "All he has left of home", "far from home": no place; "the mayor of this town" is here, not
# where they hail from (held-out seed 48527 answered "Where am I from?" with it).
NO_PLACE = re.compile(r"\b(?:of|from) home\b|\b(?:this|our) (?:town|village)\b")


# "It makes him sick", "made me cry": a cause, not a trade's making.
CAUSING = re.compile(
    r"\b(?:make|makes|made|making)\s+(?:him|her|me|them|you|us|it)\b"
    # "Shellfish makes Quill break out in a rash" (held-out busy seed 58873): a name, then this.
    r"|\b(?:make|makes|made|making)\s+[\w'-]+\s+(?:break|feel|sick|ill|itch|sneeze|swell|cry|"
    r"queasy|retch|wheeze|faint|throw)"
)


# "Before I'm old I mean to build a windmill on the hill." answered "Do you remember my line of
# work?" (held-out busy seed 44893): what one means to do one day is no trade.
MEANT = re.compile(
    r"\b(?:mean|means|meant|want|wants|hope|hopes|plan|plans|dream|dreams|dreamt|intend|intends|"
    r"wish|wishes|long|longs|saving|save|saves)(?:ing)?\s+(?:up\s+)?(?:of|to|for)\s+[\w'-]+"
)

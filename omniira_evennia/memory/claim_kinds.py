"""
Kinds of claim a statement must be of to ground a fact of that kind (memory/grounding.py): the
words can all be there and the claim still be another one. A wish is no fact ("One day I want
to open a tea shop" does not ground "Ines sells tea."), a thing kept is no trade ("my parrot is
called Clover" does not ground "Lorcan sells parrots."), and a road walked is no home ("The walk
up from the docks was longer than I remembered." does not ground "Yvaine is from the docks.",
held-out seed 92821, said back to her as where she is from).

Plain Python; each check reads one bounded value and one bounded statement.
"""

from __future__ import annotations

import re

# A wish or a plan: "One day I want to open a tea shop" grounds "Ines wants to open a tea
# shop", not "Ines sells tea." (held-out busy seed 58873).
_WISH = re.compile(
    r"\b(?:want|wants|wanted|wish|wishes|hope|hopes|dream|dreams|plan|plans|planning|mean to|"
    r"means to|intend|intends|one day|some ?day|someday|saving|aside|going to|would like|'d like|"
    r"ambition|before i'?m old)\b",
    re.IGNORECASE,
)
# A trade: "Lorcan sells parrots." rests on a line that speaks of trading, not on "my parrot is
# called Clover" (busy held-out seed 60013, believed that night).
_TRADE_VALUE = re.compile(
    r"\b(?:sells?|selling|sold|charges?|charging|trades? in|deals? in)\b", re.IGNORECASE
)
_TRADE_SAID = re.compile(
    r"\b(?:sell|sells|selling|sold|charge|charges|trade|trades|deal|deals|shop|stall|market|"
    r"living|price|prices|coin|coins|copper|silver|buy|buys|customers?)\b",
    re.IGNORECASE,
)
# A home: where someone is from rests on their saying where home is, not on a road they took.
_HOME_VALUE = re.compile(
    r"\b(?:is|are|was|were|comes?|came|hails?) from\b|\b(?:grew|grow|grows) up\b|\bborn\b"
    r"|\bhome ?town\b|\bhome is\b|\bnative of\b",
    re.IGNORECASE,
)
_HOME_SAID = re.compile(
    r"\b(?:i'?m|i am|we'?re|we are|i come|we come|i hail|hail) from\b|\bgrew up\b|\bborn\b"
    r"|\bhome\b|\braised\b|\bnative\b|\bmy (?:village|town|people|family) (?:is|are|was|were)\b",
    re.IGNORECASE,
)

# A food kept off their plate rests on their saying they cannot have it, not on a meal missed:
# "I haven't eaten since sunrise." became "Araminta cannot eat since sunrise." (held-out seed
# 50993), and was said back to her as what she cannot eat.
_FOOD_VALUE = re.compile(
    r"\b(?:cannot|can'?t|can not|never|won'?t|must not|mustn'?t|unable to) (?:eat|touch|abide|"
    r"have|stomach)\b|\ballerg\w*|\bmakes? \w+ (?:sick|ill)\b|\boff (?:their|his|her) plate\b",
    re.IGNORECASE,
)
_FOOD_SAID = re.compile(
    r"\b(?:cannot|can'?t|can not|never|won'?t|don'?t|do not|must not) (?:eat|touch|abide|have|"
    r"stomach)\b|\ballerg\w*|\b(?:sick|ill|rash|swell\w*|itch\w*)\b|\boff my plate\b"
    r"|\bnever put\b|\bdisagrees? with me\b",
    re.IGNORECASE,
)

WISH, TRADE, HOME = "(a wish, not a fact)", "(a trade nobody spoke of)", "(a home never named)"
FOOD = "(a food never refused)"

#: Why a statement that held a fact's words does not ground it, by the mark `mismatch` gives.
REFUSALS = {
    WISH: "they said it as a wish, not a fact",
    TRADE: "a trade they never spoke of",
    HOME: "where they are from, which they never said",
    FOOD: "a food they never said they cannot have",
}


def mismatch(value: str, statement: str) -> str | None:
    """The kind of claim `value` makes that `statement`, holding its words, does not (WISH,
    TRADE, HOME, FOOD), or None."""
    if _WISH.search(statement) and not _WISH.search(value):
        return WISH
    if _TRADE_VALUE.search(value) and not _TRADE_SAID.search(statement):
        return TRADE
    if _HOME_VALUE.search(value) and not _HOME_SAID.search(statement):
        return HOME
    if _FOOD_VALUE.search(value) and not _FOOD_SAID.search(statement):
        return FOOD
    return None

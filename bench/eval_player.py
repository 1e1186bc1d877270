"""
The player characters of bench/dialogue_eval.py: the demo's Character, counted as played.

A character with no session has `has_account` False and would be taken for an NPC; these
stand in for connected players without a network session.
"""

from typeclasses.characters import Character


class EvalPlayer(Character):
    @property
    def has_account(self):
        return True

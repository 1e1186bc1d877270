"""
The contrib's two global scripts (their typeclass paths are stored in the game's database).

- `OmniiraTicker` (every TICK_SECONDS): ends idle or abandoned conversations, starts their
  reviews, checks the game-day rollover, keeps the full-text index merged, runs gossip rounds.
- `OmniiraDecisionTicker` (every DECISION_TICK_SECONDS): moves NPCs along their schedules and
  promises.

Both only call into the capability services; `ensure_*` create them once.
"""

from __future__ import annotations

import time

from evennia.scripts.scripts import DefaultScript

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation.service import process_ended, reap_conversations
from omniira_evennia.life.service import run_decision_tick
from omniira_evennia.memory.service import maintain_fulltext
from omniira_evennia.rollover.service import check_rollover, retry_due
from omniira_evennia.social.service import gossip_round

TICKER_KEY = "omniira_ticker"


class OmniiraTicker(DefaultScript):
    """Ends idle or abandoned conversations, extracts them, and runs gossip rounds."""

    def at_script_creation(self) -> None:
        self.key = TICKER_KEY
        self.desc = "omniira-evennia: conversation lifecycle and gossip"
        self.interval = get_settings().TICK_SECONDS
        self.persistent = True
        self.start_delay = True
        # The first gossip round comes one interval after start, not at once: a fresh server
        # (and a slow local model) serves its players first.
        self.db.last_gossip = time.time()

    def at_start(self, **kwargs) -> None:
        self.db.last_gossip = time.time()

    def at_repeat(self, **kwargs) -> None:

        reap_conversations()
        process_ended()
        check_rollover()
        retry_due()  # the rollover's failed work whose wait is over
        maintain_fulltext()  # a bounded merge step keeps full-text queries fast
        conf = get_settings()
        if conf.GOSSIP_INTERVAL_SECONDS and (
            time.time() - (self.db.last_gossip or 0) >= conf.GOSSIP_INTERVAL_SECONDS
        ):
            self.db.last_gossip = time.time()
            gossip_round()


def ensure_ticker():
    from evennia.scripts.models import ScriptDB
    from evennia.utils.create import create_script

    existing = ScriptDB.objects.filter(db_key=TICKER_KEY)
    if existing.exists():
        for extra in list(existing)[1:]:  # guard against duplicates from older starts
            extra.delete()
        return existing.first()
    return create_script(OmniiraTicker, key=TICKER_KEY, persistent=True, autostart=True)


DECISION_TICKER_KEY = "omniira_decisions"


class OmniiraDecisionTicker(DefaultScript):
    """Moves NPCs along their schedules and promises (see `run_decision_tick`)."""

    def at_script_creation(self) -> None:
        self.key = DECISION_TICKER_KEY
        self.desc = "omniira-evennia: NPC schedules and commitments"
        self.interval = _interval()
        self.persistent = True
        self.start_delay = True

    def at_repeat(self, **kwargs) -> None:
        run_decision_tick()


def _interval() -> int:
    return max(1, int(round(get_settings().DECISION_TICK_SECONDS)))  # scripts tick in seconds


def ensure_decision_ticker():
    """Create (or retune, or with DECISION_TICK_SECONDS = 0 remove) the decision ticker."""
    from evennia.scripts.models import ScriptDB
    from evennia.utils.create import create_script

    existing = list(ScriptDB.objects.filter(db_key=DECISION_TICKER_KEY))
    if not get_settings().DECISION_TICK_SECONDS:
        for script in existing:
            script.delete()
        return None
    for extra in existing[1:]:  # guard against duplicates from older starts
        extra.delete()
    if existing:
        script = existing[0]
        if script.interval != _interval():
            script.start(interval=_interval())
        return script
    return create_script(
        OmniiraDecisionTicker, key=DECISION_TICKER_KEY, persistent=True, autostart=True
    )

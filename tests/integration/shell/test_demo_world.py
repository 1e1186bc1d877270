"""
The demo world as the README describes it (issue 21): the NPC schedules and clock in README.md
are the world build's, Maren greets a new character once (a scripted line, no LLM), and
`clock` shows the game time the schedules follow.
"""

import re
from pathlib import Path
from unittest import mock

from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text()
SETTINGS = (ROOT / "game_template" / "server" / "conf" / "settings.py").read_text()


def schedule_table() -> dict[str, str]:
    """The README's demo schedule table: NPC name -> its schedule cell."""
    start = README.index("| NPC | schedule |")
    rows = {}
    for line in README[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        name, cell = [part.strip() for part in line.strip("|").split("|")]
        rows[name] = cell
    return rows


def test_readme_schedules_are_the_world_builds():
    from world.build import NPCS

    table = schedule_table()
    assert set(table) == {spec["key"] for spec in NPCS}
    for spec in NPCS:
        if spec.get("autonomous", True):
            assert f"`{spec['schedule']}`" in table[spec["key"]], spec["key"]
        else:
            assert "never leaves" in table[spec["key"]] and not spec.get("schedule")
    # No schedule hours told elsewhere in the README that the table does not hold.
    for hours in re.findall(r"\b\d\d-\d\d\b", README.split("| NPC | schedule |")[0]):
        assert hours in ("00-24", "08-11"), hours  # the feature list's generic example


def test_readme_clock_is_the_demo_settings():
    assert '"GAME_START_HOUR": 7' in SETTINGS and "A new demo wakes\nat 07:00" in README
    factor = float(re.search(r'OMNIIRA_DEMO_TIME_FACTOR"\) or ([\d.]+)\)', SETTINGS).group(1))
    assert 24 / factor == 2.0 and "its day lasts two real hours" in README
    assert 60 / factor == 5.0 and "a game hour is five real minutes" in README
    assert "MULTISESSION_MODE = 1" in SETTINGS


class TestMarenGreets(EvenniaCommandTest):
    def setUp(self):
        super().setUp()
        from world.build import NPCS

        self.char1.key = "Ada"
        self.maren = create.create_object(
            "typeclasses.npcs.NPC", key="Maren", location=self.room2, home=self.room2
        )
        self.maren.db.npc_greeting = next(s for s in NPCS if s["key"] == "Maren")["greeting"]

    def seen_by_ada(self, action) -> str:
        seen = []
        with mock.patch("typeclasses.npcs.delay", lambda _s, func, *args: func(*args)):
            with mock.patch.object(self.char1, "msg") as msg:
                action()
        for call in msg.call_args_list:
            text = call.kwargs.get("text", call.args[0] if call.args else "")
            seen.append(text[0] if isinstance(text, tuple) else str(text))
        return "\n".join(seen)

    def test_a_new_character_walking_in_is_greeted_once(self):
        seen = self.seen_by_ada(lambda: self.char1.move_to(self.room2))
        assert (
            'Maren looks up from the taps and nods at Ada. "Welcome to the Lantern & Lane, love.'
            in seen
        )
        self.char1.move_to(self.room1)
        again = self.seen_by_ada(lambda: self.char1.move_to(self.room2))
        assert "Welcome to the Lantern" not in again

    def test_no_greeting_for_npcs_or_someone_passing_through(self):
        lyra = create.create_object("typeclasses.npcs.NPC", key="Lyra", location=self.room1)
        with mock.patch("typeclasses.npcs.delay") as delay:
            lyra.move_to(self.room2)
        delay.assert_not_called()  # an NPC walking in is not greeted
        with mock.patch("typeclasses.npcs.delay") as delay:
            self.char1.move_to(self.room2)
            self.char1.move_to(self.room1)  # gone before the greeting is due
        assert self.maren.greet(delay.call_args.args[2]) is False
        assert not self.maren.has_greeted(self.char1)


class TestClock(EvenniaCommandTest):
    def test_clock_shows_the_game_time_npcs_follow(self):
        from commands.demo import CmdClock

        with mock.patch("commands.demo.clock.game_time_phrase", return_value="day 1, x (08:15)"):
            out = self.call(CmdClock(), "")
        assert "It is day 1, x (08:15) by the game clock; a game hour lasts" in out

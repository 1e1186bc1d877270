"""
The input guard (issue #26): what a player types loses its links, linearly, before Evennia's
own input handling, whose link patterns rescan a line from every "|lc". Timed in
bench/hostile_server.py; here, what reaches the command.
"""

from unittest import mock

from evennia.server import inputfuncs as evennia_inputfuncs

from omniira_evennia import inputfuncs
from omniira_evennia.memory.safety import unwrap_links


def test_links_go_and_colour_and_layout_stay():
    assert unwrap_links("say |lcquit|ltclick me|le |rred|n|/next") == "say click me |rred|n|/next"
    assert unwrap_links("|lc|lc|lt|lcx|lt|le") == "x"
    assert unwrap_links("plain text") == "plain text"


def test_the_line_is_unwrapped_before_evennia_reads_it():
    hostile = "say Maren, " + "|lcx|lt" * 840
    with mock.patch.object(evennia_inputfuncs, "text") as evennia_text:
        inputfuncs.text("session", hostile, foo=1)
    (session, line), kwargs = evennia_text.call_args
    assert session == "session" and kwargs == {"foo": 1}
    assert line.startswith("say Maren, ") and "|l" not in line


def test_the_demo_enables_it():
    from pathlib import Path

    settings = Path(__file__).parents[3] / "game_template" / "server" / "conf" / "settings.py"
    assert 'INPUT_FUNC_MODULES += ["omniira_evennia.inputfuncs"]' in settings.read_text()

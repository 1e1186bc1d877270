"""The builder package (issue #28): the graph's geometry is plain, `@memory`'s usage lines are
its help's, one confirm-then-act flow, and api.py's old argument names still work, warned."""

import subprocess
import sys

import pytest

import omniira_evennia as omniira
from omniira_evennia.admin_commands import SUBCOMMANDS, USAGE, CmdMemory
from omniira_evennia.builder.confirm import confirmed
from omniira_evennia.builder.graph_geometry import circle_layout, edge_geometry
from tests.support.social import SocialTestBase


def test_the_graph_geometry_imports_no_django_evennia_or_twisted():
    probe = (
        "import sys, omniira_evennia.builder.graph_geometry;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'evennia', 'twisted'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_nodes_sit_on_a_circle_from_the_top_and_edges_between_a_pair_bend_apart():
    positions = circle_layout(["Maren", "Lyra", "Voss", "Tamsyn"], size=560)
    assert positions["Maren"] == (280.0, 80.0)  # the first at the top
    assert positions["Voss"] == (280.0, 480.0)
    there, _, _ = edge_geometry(positions["Maren"], positions["Voss"])
    back, _, _ = edge_geometry(positions["Voss"], positions["Maren"])
    assert there != back and there.startswith("M ") and " Q " in there


def test_every_subcommand_has_the_usage_line_help_shows():
    assert set(USAGE) == set(SUBCOMMANDS)
    for sub, usage in USAGE.items():
        for line in usage.split(" | ") if sub == "know" else [usage]:  # know's five forms
            assert f"\n      {line}\n" in CmdMemory.__doc__
    assert USAGE["know"].count(" | ") == 4


def test_confirmed_acts_only_on_yes():
    for answer, expected in (("y", "done"), ("YES ", "done"), ("n", "kept"), ("", "kept")):
        flow = confirmed("Delete it? [y/N]", lambda: "done", "kept")
        assert next(flow) == "Delete it? [y/N]"
        with pytest.raises(StopIteration) as stop:
            flow.send(answer)
        assert stop.value.value == expected


class TestApiNames(SocialTestBase):
    def test_the_old_argument_names_still_work_with_a_deprecation_warning(self):
        omniira.remember(self.maren, self.char1, "Ada mends clocks.", key="trade", embed=False)
        with pytest.warns(DeprecationWarning, match="about"):
            assert omniira.memories_by(self.maren, subject=self.char1).count() == 1
        with pytest.warns(DeprecationWarning, match="about"):
            assert list(omniira.beliefs(self.maren, target=self.char1)) == []
        with pytest.warns(DeprecationWarning, match="about"):
            assert omniira.forget(self.maren, subject=self.char1) == 1

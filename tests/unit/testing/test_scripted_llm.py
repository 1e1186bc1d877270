"""The scripted OpenAI-compatible server the tests and benchmarks talk to."""

import httpx
import pytest

from omniira_evennia.testing.fakes import ScriptedLLM

BODY = {"model": "scripted", "messages": [{"role": "user", "content": "Hello?"}]}


@pytest.mark.parametrize("keep_alive, connections", [(True, 1), (False, 3)])
def test_a_kept_alive_server_answers_one_client_on_one_connection(keep_alive, connections):
    with ScriptedLLM(["Aye."], keep_alive=keep_alive) as llm, httpx.Client() as client:
        for _ in range(3):
            reply = client.post(f"{llm.base_url}/chat/completions", json=BODY)
            assert reply.json()["choices"][0]["message"]["content"] == "Aye."
    assert len(llm.peers) == connections
    assert len(llm.requests) == 3


def test_the_server_run_as_a_program_answers_a_completion():
    # The README's builder test starts it with `python -m`: everything main() needs must be
    # defined before the module's last line runs it.
    import subprocess
    import sys

    server = subprocess.Popen(
        [sys.executable, "-m", "omniira_evennia.testing.fakes", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = server.stdout.readline().split()[-1]
        reply = httpx.post(f"{base_url}/chat/completions", json=BODY, timeout=10)
        assert reply.json()["choices"][0]["message"]["content"] == "Hello there."
    finally:
        server.kill()
        server.wait()

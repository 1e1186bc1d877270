"""
A turn's writes wait until its reply has left (runner.after_the_next_poll), on Twisted's real
reactor in a subprocess (a test process can run a reactor only once): a reply arrives from a
worker, is written to a socket, and the writes then read what the player's end has received.
"""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import socket, sys
    from twisted.internet import protocol, reactor, task
    from omniira_evennia.runtime.runner import after_the_next_poll

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    mode, seen = sys.argv[1], []

    class Sayer(protocol.Protocol):
        def connectionMade(self):
            player, _ = listener.accept()
            player.setblocking(False)

            def writes():
                try:
                    seen.append(player.recv(100).decode())
                except BlockingIOError:
                    seen.append("")
                reactor.stop()

            def reply_arrives():
                self.transport.write(b"Maren says, 'Aye.'")
                if mode == "after the next poll":
                    after_the_next_poll(writes)
                else:
                    task.deferLater(reactor, 0, writes)

            reactor.callFromThread(reply_arrives)  # as a worker's result reaches the reactor

    protocol.ClientCreator(reactor, Sayer).connectTCP("127.0.0.1", listener.getsockname()[1])
    reactor.callLater(10, reactor.stop)
    reactor.run()
    print(repr(seen))
    """)


def received_before_the_writes(mode: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_reply_has_left_before_the_writes_run():
    assert received_before_the_writes("after the next poll") == repr(["Maren says, 'Aye.'"])


def test_a_plain_call_later_runs_before_the_reply_leaves():
    # Why the helper exists: callLater(0) from a worker's result runs in the same pass.
    assert received_before_the_writes("call later") == repr([""])

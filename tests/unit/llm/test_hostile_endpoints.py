"""
Endpoints that try to hold a call or its memory (issue #26, points 5 and 14), served by a raw
HTTP/1.1 server on loopback: status line and headers dripped a byte at a time, on a fresh or a
reused keep-alive connection, and a gzip bomb sent although the client asked for identity.
"""

import gzip
import json
import socket
import threading
import time
import tracemalloc
import zlib

import pytest

from omniira_evennia.conf import TierSettings
from omniira_evennia.llm.client import LLMClient, LLMError
from omniira_evennia.runtime import health

MESSAGES = [{"role": "user", "content": "hi"}]
REPLY = json.dumps({"choices": [{"message": {"content": "Evening."}}]}).encode()


def head(length: int, *extra: str) -> bytes:
    lines = ["HTTP/1.1 200 OK", "Content-Type: application/json", f"Content-Length: {length}"]
    return ("\r\n".join(lines + list(extra)) + "\r\n\r\n").encode()


def answer_ok(sock):
    sock.sendall(head(len(REPLY)) + REPLY)


def answer_dripping_head(sock):
    # Each byte well within any per-read timeout: only a total deadline ends this.
    for byte in head(len(REPLY)):
        sock.sendall(bytes([byte]))
        time.sleep(0.5)
    sock.sendall(REPLY)


def answer_gzipped(payload: bytes):
    def answer(sock):
        sock.sendall(head(len(payload), "Content-Encoding: gzip"))
        for start in range(0, len(payload), 16384):
            sock.sendall(payload[start : start + 16384])

    return answer


class RawServer:
    """
    Answers request i of the run with `answers[i]` (the last one repeats), keeping connections
    alive between requests so a client's pooled connection is reused.
    """

    def __init__(self, *answers):
        self.answers = answers
        self.requests = 0
        self.headers: list[bytes] = []
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._listener.close()

    def _accept(self):
        while True:
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock):
        with sock:
            try:
                while self._read_request(sock):
                    answer = self.answers[min(self.requests, len(self.answers) - 1)]
                    self.requests += 1
                    answer(sock)
            except OSError:
                pass  # the client cut the connection

    def _read_request(self, sock) -> bool:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(16384)
            if not chunk:
                return False
            data += chunk
        header, _, body = data.partition(b"\r\n\r\n")
        self.headers.append(header)
        length = next(
            int(line.split(b":", 1)[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        while len(body) < length:
            body += sock.recv(16384)
        return True


def client_for(url, **tier):
    return LLMClient({"voice": TierSettings(base_url=url, model="m", **tier)})


def failed_call(client):
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        client.chat("voice", MESSAGES, feature="conversation")
    return time.monotonic() - started, caught.value.usage.error


def test_headers_dripped_on_a_fresh_connection_end_at_the_deadline():
    # A 10 s per-read timeout never fires (a byte every 0.5 s): before the fix this call
    # lasted as long as the headers, about 35 s.
    with RawServer(answer_dripping_head) as server:
        elapsed, error = failed_call(client_for(server.base_url, timeout=10, deadline=2))
    print(f"dripped headers, fresh connection: failed after {elapsed:.2f} s: {error}")
    assert error.startswith("TotalTimeout")
    assert elapsed < 6  # three times the deadline: generous, and far below 10 s or 35 s
    assert server.requests == 1  # a deadline is not retried
    assert health.get("llm_deadline_exceeded") == 1


def test_headers_dripped_on_a_reused_connection_end_at_the_deadline():
    # No connect on the second call: the bound cannot come from the connection's set-up.
    with RawServer(answer_ok, answer_dripping_head) as server:
        client = client_for(server.base_url, timeout=10, deadline=2)
        assert client.chat("voice", MESSAGES, feature="conversation").text == "Evening."
        elapsed, error = failed_call(client)
        client.close()
    print(f"dripped headers, reused connection: failed after {elapsed:.2f} s: {error}")
    assert server.connections == 1 and server.requests == 2
    assert error.startswith("TotalTimeout") and elapsed < 6


def test_a_reply_after_a_dripped_call_is_read_on_a_new_connection():
    with RawServer(answer_dripping_head, answer_ok) as server:
        client = client_for(server.base_url, timeout=10, deadline=1)
        failed_call(client)
        assert client.chat("voice", MESSAGES, feature="conversation").text == "Evening."
        client.close()
    assert server.connections == 2  # the cut connection was not put back in the pool


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    # 100 MB of zeros, compressed in pieces so the test itself never holds 100 MB.
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    return b"".join(packer.compress(zeros) for _ in range(100)) + packer.flush()


def test_a_gzip_bomb_is_cut_off_at_the_limit_without_being_inflated(gzip_bomb):
    assert len(gzip_bomb) < 200_000
    with RawServer(answer_gzipped(gzip_bomb)) as server:
        client = client_for(server.base_url, timeout=10, max_response_bytes=256 * 1024)
        tracemalloc.start()
        try:
            elapsed, error = failed_call(client)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        client.close()
    print(f"gzip bomb: failed after {elapsed:.2f} s, peak memory {peak / 1e6:.1f} MB: {error}")
    assert error.startswith("ResponseTooLarge")
    assert peak < 20e6  # before: the whole 100 MB and more
    assert b"accept-encoding: identity" in server.headers[0].lower()
    assert health.get("llm_response_too_large") == 1


def test_a_small_gzipped_reply_is_still_read():
    with RawServer(answer_gzipped(gzip.compress(REPLY))) as server:
        result = client_for(server.base_url, timeout=5).chat("voice", MESSAGES, feature="t")
    assert result.text == "Evening."


def test_an_encoding_that_cannot_be_bounded_is_refused():
    def answer_brotli(sock):
        sock.sendall(head(len(REPLY), "Content-Encoding: br") + REPLY)

    with RawServer(answer_brotli) as server:
        _, error = failed_call(client_for(server.base_url, timeout=5))
    assert "Content-Encoding" in error and "br" in error

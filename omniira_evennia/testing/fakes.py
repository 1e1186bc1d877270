"""
Test fakes for the contrib and for games built on it (importable without a configured game):

- `ScriptedLLM`: a scripted OpenAI-compatible chat-completions server on loopback. It is a real
  HTTP server, so the contrib's real httpx client, retries and parsing are exercised; only the
  model is scripted. Each request is recorded; replies come from a list (the last one repeats)
  or a function of the request. Misbehaving servers for the client's limits: `drip` sends the
  body one byte every `drip` seconds, `oversize` pads the reply to that many bytes.
- `HashingEmbedder`: bag-of-words hashed into 384 dimensions: same words, same direction.
  Deterministic and instant; `BrokenEmbedder` always fails.

In a test:

    with ScriptedLLM(["Welcome! [[REMEMBER:{...}]]"]) as llm:
        settings.OMNIIRA = {"TIERS": {"voice": {"base_url": llm.base_url}}}
        ...
        llm.requests[-1]["messages"]

As a process (for end-to-end tests against a running game):

    python -m omniira_evennia.testing.fakes --port 8123 --delay 5 --script replies.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Sequence

import numpy as np


class ScriptedLLM:
    def __init__(
        self,
        replies: Sequence[str] | Callable[[dict], str] = ("Hello there.",),
        *,
        delay: float | Callable[[dict], float] = 0.0,
        status: int = 200,
        port: int = 0,
        log_path: str | None = None,
        drip: float = 0.0,
        oversize: int = 0,
        keep_alive: bool = False,
    ):
        self.keep_alive = keep_alive
        self.replies = replies if callable(replies) else list(replies)
        self.delay = delay
        self.status = status
        self.drip = drip
        self.oversize = oversize
        self.bytes_sent = 0
        self.requests: list[dict] = []
        self.peers: set[tuple] = set()  # the client addresses (host, port) requests came from
        self.log_path = log_path
        self.in_flight = 0
        self.peak_in_flight = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread: threading.Thread | None = None

    def _next_reply(self, body: dict) -> str:
        if callable(self.replies):
            return self.replies(body)
        with self._lock:
            index = min(len(self.requests) - 1, len(self.replies) - 1)
            return self.replies[index]

    def _record(self, body: dict, peer) -> None:
        """Keep a request (and its peer, and the log line), and wait the scripted delay."""
        with self._lock:
            self.requests.append(body)
            self.peers.add(peer)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(body) + "\n")
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            delay = self.delay(body) if callable(self.delay) else self.delay
            if delay:
                time.sleep(delay)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            # With `keep_alive`, HTTP/1.1 as a real model server speaks it: one connection for
            # a client's requests, no TCP set-up and no new thread per call (about 0.6 ms a
            # call here); Nagle's algorithm off, or the body waits on the headers' ACK (40 ms).
            protocol_version = "HTTP/1.1" if outer.keep_alive else "HTTP/1.0"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_GET(self):
                # Health checks and model listing, like a real server.
                payload = {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
                self._send(200, payload)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "bad json"}})
                    return
                outer._record(body, self.client_address)
                if outer.status != 200:
                    self._send(outer.status, {"error": {"message": "scripted failure"}})
                    return
                text = outer._next_reply(body)
                if outer.oversize:
                    text += " " * max(0, outer.oversize - len(text))
                self._send(200, _completion(body, text))

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    if not outer.drip:
                        self.wfile.write(data)
                        outer.bytes_sent += len(data)
                        return
                    for index in range(len(data)):
                        self.wfile.write(data[index : index + 1])
                        self.wfile.flush()
                        outer.bytes_sent += 1
                        time.sleep(outer.drip)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up

        return Handler

    def start(self) -> "ScriptedLLM":
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "ScriptedLLM":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def system_prompts(self) -> list[str]:
        return [r["messages"][0]["content"] for r in self.requests if r.get("messages")]

    def prompts(self) -> list[str]:
        """Each request's messages as one text (what the model was shown, in order)."""
        return [
            "\n\n".join(m["content"] for m in r["messages"])
            for r in self.requests
            if r.get("messages")
        ]


class HashingEmbedder:
    """Bag-of-words hashed into 384 dims, L2-normalised: same words, same direction."""

    dim = 384

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", str(text).lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim
                out[row, bucket] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


class BrokenEmbedder:
    """An embedder whose model never loads."""

    dim = 384

    def embed(self, texts):
        raise RuntimeError("embedding model unavailable")


def _completion(body: dict, text: str) -> dict:
    """An OpenAI chat completion answering `body` with `text` (tokens counted as chars / 4)."""
    prompt_chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": max(1, len(text) // 4),
            "total_tokens": prompt_chars // 4 + max(1, len(text) // 4),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--script", help="JSON file with a list of replies (the last repeats)")
    parser.add_argument("--log", help="append each request as a JSON line to this file")
    parser.add_argument("--drip", type=float, default=0.0, help="seconds between body bytes")
    parser.add_argument("--oversize", type=int, default=0, help="pad replies to this many bytes")
    args = parser.parse_args()
    replies = ["Hello there."]
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            replies = json.load(fh)
    server = ScriptedLLM(
        replies,
        delay=args.delay,
        port=args.port,
        log_path=args.log,
        drip=args.drip,
        oversize=args.oversize,
    )
    print(f"scripted LLM listening on {server.base_url}", flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()

"""A minimal telnet player for end-to-end tests: send lines, read until text appears."""

from __future__ import annotations

import re
import socket
import time

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class TelnetPlayer:
    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = ""

    def _strip_negotiation(self, data: bytes) -> str:
        out, i = bytearray(), 0
        while i < len(data):
            byte = data[i]
            if byte == IAC and i + 1 < len(data):
                command = data[i + 1]
                if command in (DO, DONT, WILL, WONT) and i + 2 < len(data):
                    # Refuse every option: plain text only.
                    reply = WONT if command in (DO, DONT) else DONT
                    self.sock.sendall(bytes([IAC, reply, data[i + 2]]))
                    i += 3
                    continue
                if command == SB:
                    end = data.find(bytes([IAC, SE]), i)
                    i = len(data) if end == -1 else end + 2
                    continue
                i += 2
                continue
            out.append(byte)
            i += 1
        return ANSI.sub("", out.decode("utf-8", errors="replace"))

    def send(self, line: str) -> None:
        self.sock.sendall((line + "\r\n").encode())

    def read_until(self, pattern: str, timeout: float = 15.0) -> str:
        """Read until `pattern` (a regex) appears in new text; return all text read so far."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while not regex.search(self.buffer):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no {pattern!r} in: {self.buffer[-800:]!r}")
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise ConnectionError(f"connection closed; last text: {self.buffer[-800:]!r}")
            self.buffer += self._strip_negotiation(data)
        text, self.buffer = self.buffer, ""
        return text

    def drain(self, seconds: float = 0.3) -> str:
        try:
            self.read_until(r"(?!x)x", timeout=seconds)
        except TimeoutError:
            pass
        text, self.buffer = self.buffer, ""
        return text

    def create_and_login(self, name: str, password: str, room: str = "Lantern") -> str:
        self.read_until(r"connect|create", timeout=20)
        self.send(f"create {name} {password}")
        self.read_until(r"\[Y\]/N", timeout=15)
        self.send("y")
        self.read_until(r"was created|exists|throttl|[Tt]oo many", timeout=15)
        self.send(f"connect {name} {password}")
        return self.read_until(room, timeout=15)

    def login(self, name: str, password: str, room: str = "Lantern") -> str:
        """Connect; return the text up to `room` (a regex: the room the character wakes in)."""
        self.read_until(r"connect|create", timeout=20)
        self.send(f"connect {name} {password}")
        return self.read_until(room, timeout=15)

    def close(self) -> None:
        try:
            self.send("quit")
        except OSError:
            pass
        self.sock.close()

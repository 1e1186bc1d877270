"""A call kept bounded: a total deadline on every network wait, the reply read under a size cap."""

from __future__ import annotations

import threading
import time
import zlib
from typing import Any

import httpcore
import httpx

from omniira_evennia.conf import TierSettings


class TotalTimeout(Exception):
    """The call's total deadline passed before the whole reply had arrived."""


class ResponseTooLarge(Exception):
    """The reply is larger than the tier's `max_response_bytes`."""


class UnsupportedEncoding(Exception):
    """The reply is compressed in a way that cannot be inflated a bounded piece at a time."""


def read_body(response: httpx.Response, tier: TierSettings, deadline: float) -> bytes:
    """
    The reply's body, decoded, refused as soon as it passes `max_response_bytes` (a
    Content-Length over it before any is read) or is still arriving at the deadline. It is
    decoded as it is read, never more than the room left at a time: identity is asked for, but
    a server compressing anyway cannot make one piece inflate to a hundred megabytes.
    """
    limit = tier.max_response_bytes
    declared = response.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge(f"reply of {int(declared)} bytes is over the limit of {limit} bytes")
    if response.is_stream_consumed:  # built in memory, read and decoded (tests' mock transports)
        pieces, decoder = [response.content], _Identity()
    else:
        pieces, decoder = response.iter_raw(), _decoder_for(response.headers)
    chunks: list[bytes] = []
    size = 0
    for piece in pieces:
        chunk = decoder.decode(piece, limit - size)
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(f"reply over the limit of {limit} bytes")
        chunks.append(chunk)
        if time.monotonic() > deadline:
            raise TotalTimeout(
                f"reply still arriving after the {tier.total_deadline:g} s deadline "
                f"({size} bytes so far)"
            )
    return b"".join(chunks)


class _Identity:
    @staticmethod
    def decode(data: bytes, room: int) -> bytes:
        return data


class _Inflater:
    """A gzip or deflate (zlib) body, inflated to at most one byte past the room left."""

    def __init__(self):
        self._zlib = zlib.decompressobj(32 + zlib.MAX_WBITS)  # gzip or zlib, by its header

    def decode(self, data: bytes, room: int) -> bytes:
        if self._zlib.eof:
            return b""  # what follows the end of the stream is ignored, as httpx does
        return self._zlib.decompress(data, room + 1)


def _decoder_for(headers: httpx.Headers):
    encoding = headers.get("content-encoding", "")
    codings = [c.strip().lower() for c in encoding.split(",")]
    codings = [c for c in codings if c not in ("", "identity")]
    if not codings:
        return _Identity()
    if codings in (["gzip"], ["x-gzip"], ["deflate"]):
        return _Inflater()
    raise UnsupportedEncoding(
        f"reply in Content-Encoding {encoding!r}, which cannot be read within a size limit"
    )


# ---------------------------------------------------------------- the call's deadline

# httpx bounds each network wait by the request's fixed timeout, so a server sending a byte
# just within it holds a call as long as it likes, its headers included. So every connection
# the client makes goes through `_DeadlineBackend`, whose streams cut each wait (connect, TLS
# handshake, every write and every read, on a new or a reused connection) to the time left of
# the call the current thread is making: a wait still going at the deadline ends there.
_current = threading.local()  # .call: the `CallDeadline` of this thread's call, if any


class CallDeadline:
    """The deadline of one call (connect, request, headers and body, the retry included)."""

    def __init__(self, deadline: float, seconds: float = 0.0):
        self.deadline = deadline
        self.seconds = seconds  # how long it was given (for messages)
        self._outer = None

    def __enter__(self) -> "CallDeadline":
        self._outer = getattr(_current, "call", None)
        _current.call = self
        return self

    def __exit__(self, *exc) -> None:
        _current.call = self._outer

    def left(self) -> float:
        return self.deadline - time.monotonic()


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """`timeout` cut to the time left of this thread's call; `error` if none is left."""
    call = getattr(_current, "call", None)
    if call is None:
        return timeout
    left = call.left()
    if left <= 0:
        raise error("the call's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend):
        self._inner = inner

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(
            self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        )

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        timeout = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def bind_to_deadlines(client: httpx.Client) -> bool:
    """
    Put `_DeadlineBackend` under every connection pool of `client` (its own transport and the
    proxies it mounted from the environment). httpx offers no public way to pass a network
    backend, so this reaches into its transports' and httpcore's pools; False if none was
    found (another httpx: calls then keep only the per-wait timeout and the checks between
    chunks, and a test at the boundary fails).
    """
    bound = False
    for transport in [client._transport, *client._mounts.values()]:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore.NetworkBackend):
            if not isinstance(backend, _DeadlineBackend):
                pool._network_backend = _DeadlineBackend(backend)
            bound = True
    return bound

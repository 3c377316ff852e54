"""The client's HTTP/1.1 connection to `scat serve`, on the standard library alone.

A `--server` command sends a handful of small JSON requests, or reads one event stream,
to one server: this is all it needs of an HTTP client (one kept-alive connection, JSON
bodies, streamed lines, timeouts, errors as two exception types), at a fraction of the
import cost of a general client library (see tests/benchmarks/bench_cli.py). TLS is set
up only for an `https://` server; proxies are not used (a Scat server is reached directly).
"""

# Imports inside functions: start-up time; the client loads only what a request needs.
from __future__ import annotations

import http.client
import json as jsonlib
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

#: Signs one request: (method, target as sent, body) -> the headers that sign it (httpsig.py).
Signer = Callable[[str, str, bytes], Mapping[str, str]]

#: Seconds to wait for a connection, and for each read of an answer (a stream's server says
#: something every few seconds, so a silent one is gone).
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 30.0


class TransportError(Exception):
    """The server could not be reached, or the connection broke; `str()` says why in one line."""


class TransportTimeout(TransportError):
    """The server did not connect or answer within the timeout."""


@dataclass(frozen=True)
class Answer:
    """A complete response: its status, reason phrase and body."""

    status: int
    reason: str
    body: bytes

    def json(self) -> Any:
        """The body as JSON (ValueError if it is not)."""
        return jsonlib.loads(self.body)


def _reason(error: BaseException) -> str:
    """The first line of what went wrong, or the error's type when it says nothing."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


class _PlainConnection(http.client.HTTPConnection):
    """http.client's connection, reaching an ASCII host name as bytes: for a str name, socket loads
    the idna codec (and stringprep) first. Should http.client stop using `_create_connection`,
    this changes nothing but that cost."""

    def __init__(self, host: str, port: int | None, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        if self.host.isascii():
            self._create_connection = _connect_by_bytes


def _connect_by_bytes(address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> socket.socket:
    """socket.create_connection to `address`, its (ASCII) host name given as bytes."""
    host, port = address
    return socket.create_connection((host.encode("ascii"), port), timeout, source_address)  # type: ignore[arg-type]


class Connection:
    """A kept-alive HTTP/1.1 connection to the server at `base_url` (http:// or https://), one per
    thread, so that a stream read in one thread and requests sent from another never share one.
    With a `signer`, every request is signed afresh as it is sent (a retry gets a new nonce)."""

    def __init__(self, base_url: str, user_agent: str = "scat-cli", signer: Signer | None = None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http:// or https:// URL: {base_url}")
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")
        self.headers = {"user-agent": user_agent, "accept": "application/json"}
        self._local = threading.local()
        self.signer = signer

    @property
    def _conn(self) -> http.client.HTTPConnection | None:
        """This thread's connection, if it has one open."""
        return getattr(self._local, "conn", None)

    @_conn.setter
    def _conn(self, conn: http.client.HTTPConnection | None) -> None:
        self._local.conn = conn

    def close(self) -> None:
        """Close this thread's connection (a later request opens a new one)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._conn is None:
            if self.https:
                import ssl

                self._conn = http.client.HTTPSConnection(self.host, self.port, timeout=CONNECT_TIMEOUT,
                                                         context=ssl.create_default_context())
            else:
                self._conn = _PlainConnection(self.host, self.port, timeout=CONNECT_TIMEOUT)
            self._conn.connect()
            assert self._conn.sock is not None
            self._conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no Nagle wait
        return self._conn

    def _send(self, method: str, path: str, params: Mapping[str, Any] | None, body: Any,
              headers: Mapping[str, str] | None, read_timeout: float) -> http.client.HTTPResponse:
        """Send one request and return the response with its headers read, the body not yet."""
        target = self.prefix + path
        query = {key: _text(value) for key, value in (params or {}).items() if value is not None}
        if query:
            target += "?" + urlencode(query)
        sent = dict(self.headers, **(headers or {}))
        data = None
        if body is not None:
            data = jsonlib.dumps(body, separators=(",", ":")).encode()
            sent["content-type"] = "application/json"
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: once more, afresh
            reused = self._conn is not None
            try:
                conn = self._connect()
                assert conn.sock is not None
                conn.sock.settimeout(read_timeout)
                signed = dict(sent, **self.signer(method, target, data or b"")) if self.signer else sent
                conn.request(method, target, body=data, headers=signed)
                return conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as error:
                self.close()
                if not reused or attempt == 2:
                    raise TransportError(_reason(error)) from None
            except TimeoutError:
                self.close()
                raise TransportTimeout("timed out") from None
            except (OSError, http.client.HTTPException) as error:
                self.close()
                raise TransportError(_reason(error)) from None
        raise AssertionError("unreachable")

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None,
                headers: Mapping[str, str] | None = None, read_timeout: float | None = None) -> Answer:
        """Send one request and read its whole answer (each read waits `read_timeout` s at most,
        READ_TIMEOUT by default)."""
        waits = READ_TIMEOUT if read_timeout is None else read_timeout
        response = self._send(method, path, params, json, headers, waits)
        try:
            body = response.read()
        except TimeoutError:
            self.close()
            raise TransportTimeout("timed out") from None
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise TransportError(_reason(error)) from None
        if response.will_close:
            self.close()
        return Answer(response.status, response.reason, body)

    @contextmanager
    def stream(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Any = None,
               headers: Mapping[str, str] | None = None, read_timeout: float | None = None,
               deadline: Callable[[], float | None] | None = None) -> Iterator[tuple[Answer, Iterator[str]]]:
        """Within: the answer's status (with the whole body when it is a refusal, >= 400) and
        an iterator over the lines of its body as they arrive, which simply ends if the server
        says nothing until `deadline()` (time.monotonic; asked before each line, None: no
        deadline yet): a server that keeps a stream alive with a line now and then (15 s) still
        lets a wait give up on time. The connection is closed after."""
        read_timeout = READ_TIMEOUT if read_timeout is None else read_timeout
        response = self._send(method, path, params, json, headers, read_timeout)
        try:
            if response.status >= 400:
                yield Answer(response.status, response.reason, response.read()), iter(())
            else:
                yield Answer(response.status, response.reason, b""), self._lines(response, read_timeout, deadline)
        finally:
            self.close()  # a stream is not read to its end: its connection cannot be reused

    def _lines(self, response: http.client.HTTPResponse, read_timeout: float,
               deadline: Callable[[], float | None] | None) -> Iterator[str]:
        """The lines of a streamed body, without their line ends, until it ends (or `deadline()` passes)."""
        sock = self._conn.sock if self._conn is not None else None
        while True:
            until = deadline() if deadline is not None else None
            left = None if until is None else until - time.monotonic()
            if left is not None and left <= 0:
                return
            if sock is not None:
                sock.settimeout(read_timeout if left is None else min(read_timeout, left))
            try:
                raw = response.readline()
            except TimeoutError:
                if until is not None and time.monotonic() >= until:
                    return  # nothing more said before the deadline: the caller's wait is over
                raise TransportTimeout("timed out") from None
            except (OSError, http.client.HTTPException) as error:
                raise TransportError(_reason(error)) from None
            if not raw:
                return
            yield raw.decode("utf-8", "replace").rstrip("\r\n")


def _text(value: Any) -> str:
    """A query value as the server reads it (booleans as `true`/`false`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

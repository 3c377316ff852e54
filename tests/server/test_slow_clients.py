"""Slow clients are cut off: headers and bodies each have a deadline (asserted by the outcome: a 408 and a close)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from scat_cli.server import limits, protocol
from tests.support.databases import migrated
from tests.support.live_server import server_in_thread

#: How long the test waits for the server to act before it calls the server stuck (never reached when it works).
PATIENCE = 60.0


@pytest.fixture
def address(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """A live server whose deadlines are short, as (host, port)."""
    monkeypatch.setattr(protocol, "HEADER_SECONDS", 1.0)
    monkeypatch.setattr(limits, "BODY_SECONDS", 1.0)
    with server_in_thread(migrated(sqlite_url)) as url:
        parts = urlsplit(url)
        yield str(parts.hostname), int(parts.port or 80)


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (socket.timeout if it never does)."""
    sock.settimeout(PATIENCE)
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def refusal(answer: bytes) -> tuple[str, dict[str, object]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), json.loads(body)


def test_a_client_that_never_finishes_its_headers_gets_408_and_is_disconnected(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: scat\r\nX-Slow: ")  # and then nothing more
        status, body = refusal(until_closed(sock))
    assert status == "HTTP/1.1 408 Request Timeout" and body["type"] == "TimedOut"
    assert "headers took longer than" in str(body["error"])


def test_a_client_that_trickles_its_headers_is_cut_off_although_bytes_keep_coming(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: scat\r\nX-Slow: ")
        sock.settimeout(0.05)
        answer = b""
        for _ in range(int(PATIENCE / 0.05)):  # a byte each 50 ms, for as long as the connection lasts
            try:
                sock.sendall(b"a")
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
            answer += chunk
            if not chunk:
                break
        else:
            pytest.fail("the server kept a trickling client's connection open")
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408")


def test_a_client_that_connects_and_says_nothing_is_disconnected(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        assert until_closed(sock).startswith(b"HTTP/1.1 408")


def test_a_body_sent_too_slowly_gets_408_and_the_connection_is_closed(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: scat\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 200\r\n\r\n{\"players\": ")  # 12 bytes of the 200 promised
        status, body = refusal(until_closed(sock))
    assert status == "HTTP/1.1 408 Request Timeout" and body["type"] == "TimedOut" and body["exit_code"] == 6
    assert "body took longer than" in str(body["error"])


def one_answer(sock: socket.socket) -> bytes:
    """One whole response (its headers and its Content-Length of body)."""
    sock.settimeout(PATIENCE)
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    fields = dict(line.lower().split(b": ", 1) for line in head.split(b"\r\n")[1:])
    length = int(fields[b"content-length"])
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_request_in_good_time_is_served_on_the_same_connection_again(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        for _ in range(2):
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: scat\r\n\r\n")
            assert one_answer(sock).startswith(b"HTTP/1.1 200")

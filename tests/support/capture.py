"""A recording TCP relay on a loopback port: what a client sends to a server, captured as bytes on
the wire (a real capture, as someone between them would make it), and requests sent again raw."""

from __future__ import annotations

import re
import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Relay:
    """Relays each connection made to it to `upstream` (host, port), recording what clients sent.
    `upstream` may be changed while it runs (a server swapped behind a known URL)."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.sent = bytearray()  # every byte clients sent, in order
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._stopped = threading.Event()
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def serve(self) -> None:
        """Accept and relay connections until `stop`."""
        self._listener.settimeout(0.1)
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:  # closed by `stop`
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        with client, socket.create_connection(self.upstream, timeout=10) as server:
            while not self._stopped.is_set():
                ready, _, _ = select.select([client, server], [], [], 0.1)
                for side in ready:
                    try:
                        data = side.recv(65536)
                    except OSError:  # a side gone
                        return
                    if not data:
                        return
                    if side is client:
                        with self._lock:
                            self.sent += data
                        server.sendall(data)
                    else:
                        client.sendall(data)

    def stop(self) -> None:
        """Stop relaying (open connections end)."""
        self._stopped.set()
        self._listener.close()

    def requests(self) -> list[bytes]:
        """The HTTP/1.1 requests captured so far, each whole (head and its Content-Length body)."""
        with self._lock:
            data = bytes(self.sent)
        found = []
        while data:
            head, _, rest = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            size = int(length.group(1)) if length else 0
            found.append(head + b"\r\n\r\n" + rest[:size])
            data = rest[size:]
        return found


@contextmanager
def relay_to(url: str) -> Iterator[Relay]:
    """A Relay in front of the server at `url` (http://127.0.0.1:PORT) while the block runs."""
    host, port = url.removeprefix("http://").split(":")
    relay = Relay((host, int(port)))
    thread = threading.Thread(target=relay.serve, daemon=True)
    thread.start()
    try:
        yield relay
    finally:
        relay.stop()
        thread.join(5)


def send_raw(url: str, request: bytes) -> tuple[int, bytes]:
    """Send `request` (bytes captured on the wire) unchanged to the server at `url`; its status and body."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        answer = bytearray()
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(bytes(answer)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = bytes(answer).partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


def _length(answer: bytes) -> int:
    found = re.search(rb"(?im)^content-length:\s*(\d+)", answer.partition(b"\r\n\r\n")[0])
    return int(found.group(1)) if found else 0

"""A real `scat serve` app on uvicorn, on a loopback port, for tests: in a thread or a process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

#: Test servers let one caller create this many games an hour (their tests make many games from one address);
#: a test of the limit itself gives its own (`new_games_per_hour`, `--new-games-per-hour`).
TESTS_NEW_GAMES = 1_000_000


def free_port() -> int:
    """A TCP port free on the loopback interface just now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server_in_thread(db_url: str, testing: bool = True, tokens: bool = True) -> Iterator[str]:
    """The app over `db_url` served by uvicorn in a thread of this process; yields its base URL.
    `tokens`: it also serves users without an account (per-game tokens), as most tests use it."""
    with app_in_thread(db_url, testing, tokens=tokens) as (url, _):
        yield url


@contextmanager
def app_in_thread(db_url: str, testing: bool = True, **options: Any) -> Iterator[tuple[str, Any]]:
    """`server_in_thread`, the app made with `options` (create_app's; `tokens` True unless given);
    yields (base URL, the app)."""
    import uvicorn

    from scat_cli.server.app import create_app
    from scat_cli.server.protocol import server_config

    app = create_app(db_url, testing=testing, **{"tokens": True, "new_games_per_hour": TESTS_NEW_GAMES, **options})
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    config = server_config(app, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.005)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        app.state.server.games.store.engine.dispose()


@contextmanager
def server_process(db_url: str, *extra: str, port: int | None = None,
                   tokens: bool = True) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`scat serve --db URL` as its own process; yields (base URL, process), terminated after
    (`tokens`: with --tokens, serving users without an account too).

    Its log (stderr) goes to a file, `process.log_path`: a pipe nobody reads would fill up
    with one line per request and stall the server.
    """
    import tempfile

    port = port or free_port()
    scat = os.path.join(os.path.dirname(sys.executable), "scat")
    env = {**os.environ, "SCAT_SERVER": ""}
    log = tempfile.NamedTemporaryFile("w+", prefix="scat-serve-", suffix=".log", delete=False)  # noqa: SIM115
    limit = [] if "--new-games-per-hour" in extra else ["--new-games-per-hour", str(TESTS_NEW_GAMES)]
    process = subprocess.Popen([scat, "serve", "--db", db_url, "--port", str(port),
                                *(["--tokens"] if tokens else []), *limit, *extra], env=env,
                               stdout=subprocess.DEVNULL, stderr=log, text=True)
    process.log_path = log.name  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"scat serve did not start: {open(log.name).read()[-2000:]}")
            time.sleep(0.05)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()
        os.unlink(log.name)

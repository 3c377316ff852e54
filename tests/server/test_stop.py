"""A real `scat serve` with clients waiting on its event stream: a `wait` through it gives up on
time on every database, and SIGTERM stops it at once and cleanly, telling its clients so (cli.md:
"Stops cleanly on SIGTERM/SIGINT, finishing requests in flight"; "On timeout exit 6")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.live_server import server_process
from tests.support.schema import migrated

SCAT = str(Path(sys.executable).parent / "scat")


@pytest.fixture
def served(db_url: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], subprocess.Popen[str], str]]:
    """The environment of a player of a live `scat serve` (SQLite and PostgreSQL), the server process
    and the file of its log."""
    migrated(db_url)
    with server_process(db_url) as (url, process):
        env = {**os.environ, "SCAT_SERVER": url, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
        yield env, process, process.log_path  # type: ignore[attr-defined]


def new_game(env: dict[str, str]) -> tuple[str, str]:
    """A game of you, eve and bob (a bot) on the server, where it is not eve's turn: (game id, eve's token)."""
    created = subprocess.run([SCAT, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer", "bob",
                              "--json"], env=env, capture_output=True, text=True, timeout=60, check=True)
    game = json.loads(created.stdout)
    return str(game["game_id"]), str(game["tokens"]["eve"])


def test_a_wait_through_the_server_gives_up_on_time(served: tuple[dict[str, str], subprocess.Popen[str], str]) -> None:
    env, _, _ = served
    game, token = new_game(env)
    began = time.monotonic()
    waited = subprocess.run([SCAT, "wait", game, "--as", "eve", "--timeout", "1"], env={**env, "SCAT_TOKEN": token},
                            capture_output=True, text=True, timeout=60, check=False)
    took = time.monotonic() - began
    assert waited.returncode == 6, waited.stderr
    assert waited.stderr == f"scat: error: still not the turn of eve in game {game} after 1 second\n"
    assert took < 4.5  # the stream speaks each second on every database (it was 15 s on PostgreSQL)


def test_sigterm_stops_the_server_at_once_and_tells_its_waiting_clients(
    served: tuple[dict[str, str], subprocess.Popen[str], str],
) -> None:
    env, server, log = served
    game, token = new_game(env)
    player = {**env, "SCAT_TOKEN": token}
    waiting = subprocess.Popen([SCAT, "wait", game, "--as", "eve", "--timeout", "60"], env=player,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watching = subprocess.Popen([SCAT, "watch", game, "--as", "eve"], env=player,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert watching.stdout is not None and watching.stdout.readline()  # its stream is open
    time.sleep(1.0)  # and the waiter's too
    assert waiting.poll() is None and watching.poll() is None
    began = time.monotonic()
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0
    took = time.monotonic() - began
    told = f"scat: error: the server {env['SCAT_SERVER']} is stopping; run the command again\n"
    for client in (waiting, watching):
        _, err = client.communicate(timeout=30)
        assert (client.returncode, err) == (2, told)
    logged = Path(log).read_text()
    assert "Traceback" not in logged and "Exception in ASGI" not in logged and "ERROR" not in logged, logged
    assert logged.rstrip().endswith("scat serve: stopped")
    assert took < 5.0, logged  # it was 12 s: uvicorn waited for the streams, then cancelled them

"""A real `scat serve` with clients waiting on its event stream: a `wait` through it gives up on
time on every database, and SIGTERM stops it at once and cleanly, telling its clients so (cli.md:
"Stops cleanly on SIGTERM/SIGINT, finishing requests in flight"; "On timeout exit 6"); a `watch`
ends, a `wait` tries again until its timeout (cli.md: it "outlives a server restart")."""

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

from tests.support.databases import migrated
from tests.support.live_server import free_port, server_in_thread, server_process

SCAT = str(Path(sys.executable).parent / "scat")


@pytest.fixture
def served(db_url: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], subprocess.Popen[str], str]]:
    """The environment of a player of a live `scat serve` (SQLite and PostgreSQL), the server process
    and the file of its log."""
    migrated(db_url)
    with server_process(db_url, "--testing") as (url, process):
        env = {**os.environ, "SCAT_SERVER": url, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
        yield env, process, process.log_path  # type: ignore[attr-defined]


def new_game(env: dict[str, str]) -> tuple[str, str]:
    """A game of you, eve and bob (a bot) on the server, where it is not eve's turn: (game id, eve's token).
    Seeded: a bot dealt a 31 declares it at once (R20), and the next hand would begin with eve's turn."""
    created = subprocess.run([SCAT, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer", "bob",
                              "--seed", "7", "--json"], env=env, capture_output=True, text=True, timeout=60, check=True)
    game = json.loads(created.stdout)
    return str(game["game_id"]), str(game["tokens"]["eve"])


def test_a_wait_through_the_server_gives_up_on_time(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stream looks at the database and says it is still there only every hour here: a
    # `wait --timeout 1` that ends with exit 6 within the 120 s guard gave up by its own read
    # deadline, on every database (it once waited for a keep-alive each second to look at it).
    monkeypatch.setattr("scat_cli.server.app.PUSHED_POLL_SECONDS", 3600.0)
    monkeypatch.setattr("scat_cli.server.app.KEEP_ALIVE_SECONDS", 3600.0)
    with server_in_thread(migrated(db_url), testing=True) as url:
        env = {**os.environ, "SCAT_SERVER": url, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
        game, token = new_game(env)
        waited = subprocess.run([SCAT, "wait", game, "--as", "eve", "--timeout", "1"],
                                env={**env, "SCAT_TOKEN": token}, capture_output=True, text=True, timeout=120,
                                check=False)
    assert waited.returncode == 6, waited.stderr
    assert waited.stderr == f"scat: error: still not the turn of eve in game {game} after 1 second\n"


def test_sigterm_stops_the_server_at_once_and_tells_its_waiting_clients(
    served: tuple[dict[str, str], subprocess.Popen[str], str],
) -> None:
    env, server, log = served
    game, token = new_game(env)
    player = {**env, "SCAT_TOKEN": token}
    waiting = subprocess.Popen([SCAT, "wait", game, "--as", "eve", "--timeout", "20"], env=player,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watching = subprocess.Popen([SCAT, "watch", game, "--as", "eve"], env=player,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert watching.stdout is not None and watching.stdout.readline()  # its stream is open
    looked = f"GET /games/{game} 200"  # the waiter's first look, logged once answered; its stream follows
    guard = time.monotonic() + 120  # a hang guard: the line is there long before on any machine
    while looked not in Path(log).read_text() and time.monotonic() < guard and waiting.poll() is None:
        time.sleep(0.1)
    time.sleep(2.0)  # and the waiter's stream is open too
    assert waiting.poll() is None and watching.poll() is None
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=60) == 0
    url = env["SCAT_SERVER"]
    _, err = watching.communicate(timeout=30)
    assert (watching.returncode, err) == (2, f"scat: error: the server {url} is stopping; run the command again\n")
    _, err = waiting.communicate(timeout=60)  # it tried again until its timeout, in vain
    assert waiting.returncode == 2
    assert err.startswith(f"scat: note: the server {url} is stopping; trying again until the wait's timeout\n")
    assert err.splitlines()[-1].startswith(f"scat: error: cannot reach the server {url}: ")
    logged = Path(log).read_text()
    assert "Traceback" not in logged and "Exception in ASGI" not in logged and "ERROR" not in logged, logged
    assert logged.rstrip().endswith("scat serve: stopped")
    # It was 12 s: uvicorn waited for the streams for its graceful 10 s, then cancelled them, and
    # the clients heard a cut stream. Each client told "the server is stopping" (above) shows its
    # stream was ended at once by the server, not cancelled at the end of that wait.


def test_a_wait_started_while_the_server_is_away_finds_it_when_it_is_back(db_url: str, tmp_path: Path) -> None:
    # cli.md: a wait outlives a server restart; so does one begun during the restart (it gave up
    # at once: its first request, naming the game, was not tried again).
    migrated(db_url)
    port = free_port()
    with server_process(db_url, port=port) as (url, _):
        env = {**os.environ, "SCAT_SERVER": url, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
        created = subprocess.run([SCAT, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer",
                                  "eve", "--json"], env=env, capture_output=True, text=True, timeout=60, check=True)
        game = json.loads(created.stdout)  # it is your turn (R11: the dealer's left plays first)
    waiting = subprocess.Popen([SCAT, "wait", game["game_id"], "--as", "you", "--timeout", "120"],
                               env={**env, "SCAT_TOKEN": game["tokens"]["you"]},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert waiting.stderr is not None
        note = waiting.stderr.readline()  # told once that the server is away: it tries again
        assert note.startswith(f"scat: note: cannot reach the server {url}: ") and "trying again" in note
        with server_process(db_url, port=port):
            out, err = waiting.communicate(timeout=120)
    finally:
        waiting.kill()
    assert waiting.returncode == 0, err
    assert "Your turn" in out

"""`scat wait` and `scat watch`, woken by a move another process makes: on SQLite (polling), on
PostgreSQL (LISTEN/NOTIFY) and through `--server` (the event stream; on PostgreSQL the waiter's
server and the mover's are two processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.support.decks import stacked
from tests.support.live_server import server_process
from tests.support.schema import migrated

SCAT = str(Path(sys.executable).parent / "scat")
# you are dealt first (bob deals): you 2C 5D 9H, eve KS QS 4D; discard 7C; stock 8C 3H ...
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])
# you hold 31 at once; one life each and no dole: declaring ends the game
THIRTY_ONE = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H"])


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres),
                        "server-sqlite", pytest.param("server-postgres", marks=pytest.mark.postgres)])
def places(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    """The environments of the waiting process and of the moving one (two servers on PostgreSQL)."""
    kind = str(request.param)
    db = f"sqlite:///{tmp_path / 'games.db'}" if kind.endswith("sqlite") else str(
        request.getfixturevalue("postgres_url"))
    migrated(db)
    base = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
    if not kind.startswith("server"):
        env = {**base, "SCAT_DB_URL": db, "SCAT_SERVER": ""}
        yield env, env
        return
    with ExitStack() as stack:
        first, _ = stack.enter_context(server_process(db, "--testing"))
        second = first
        if kind == "server-postgres":
            second, _ = stack.enter_context(server_process(db, "--testing"))
        yield {**base, "SCAT_SERVER": first}, {**base, "SCAT_SERVER": second}


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The real `scat`, to the end."""
    result = subprocess.run([SCAT, *args], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, (args, result.stderr)
    return result


def start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """The real `scat`, in the background."""
    return subprocess.Popen([SCAT, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_wait_returns_when_another_process_makes_it_your_turn(places: tuple[dict[str, str], dict[str, str]]) -> None:
    waiter_env, mover_env = places
    created = json.loads(run(mover_env, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer",
                             "bob", "--deck", DEAL, "--protect", "--json").stdout)
    game = created["game_id"]
    waiter_env = {**waiter_env, "SCAT_TOKEN": created["tokens"]["eve"]}  # given to eve (another server, maybe)
    timed_out = subprocess.run([SCAT, "wait", game, "--as", "eve", "--timeout", "0.5"], env=waiter_env,
                               capture_output=True, text=True, timeout=60, check=False)
    assert timed_out.returncode == 6 and timed_out.stderr == (
        f"scat: error: still not the turn of eve in game {game} after 0.5 seconds\n")
    waiting = start(waiter_env, "wait", game, "--as", "eve", "--timeout", "45", "--json")
    time.sleep(1.0)
    assert waiting.poll() is None  # still waiting: it is your turn, not eve's
    run(mover_env, "draw", game, "--as", "you", "stock")
    run(mover_env, "discard", game, "--as", "you", "2C")
    out, err = waiting.communicate(timeout=45)
    assert waiting.returncode == 0, err
    view = json.loads(out)
    assert (view["turn"], view["you"], view["hand"]) == ("eve", "eve", ["KS", "QS", "4D"])
    assert "5D" not in out and "8C" not in out  # your cards stay hidden from eve


def test_watch_prints_each_move_as_it_happens_until_the_game_ends(
    places: tuple[dict[str, str], dict[str, str]]
) -> None:
    waiter_env, mover_env = places
    game = json.loads(run(mover_env, "new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--deck",
                          THIRTY_ONE, "--lives", "1", "--no-dole", "--protect", "--json").stdout)["game_id"]
    watching = start(waiter_env, "watch", game, "--json")
    time.sleep(1.0)
    assert watching.poll() is None
    run(mover_env, "declare", game, "--as", "you")
    out, err = watching.communicate(timeout=45)
    assert watching.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["type"] == "GameCreated" and lines[-1]["type"] == "GameWon"
    assert lines[1]["data"]["deck"][0] == "??"  # the public watched: your hand was dealt face down
    assert "declared 31" in " ".join(line["text"] for line in lines)

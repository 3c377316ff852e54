"""`scat wait --any`: told when it is your turn in any of your games, on SQLite, on PostgreSQL and
through `--server` (one stream for all of them, which outlives a server restart); `--exec` runs
the user's command with what happened in its environment; `--new` tells each turn once."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import SCAT
from tests.support.databases import migrated
from tests.support.decks import stacked
from tests.support.live_server import free_port, server_process

# you are dealt first (bob deals): you 2C 5D 9H, eve KS QS 4D; discard 7C; stock 8C 3H ...
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])
# you hold 31 at once (eve deals); with one life each and no dole, declaring ends the game
THIRTY_ONE = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H"])


def run(env: dict[str, str], *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    """The real `scat`, to the end, which must exit `code`."""
    result = subprocess.run([SCAT, *args], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == code, (args, result.stdout[-500:], result.stderr)
    return result


def start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """The real `scat`, in the background."""
    return subprocess.Popen([SCAT, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def three_games(env: dict[str, str]) -> list[tuple[str, dict[str, str]]]:
    """Three protected games where you are to act and eve waits: (id, tokens) of each."""
    games = []
    for _ in range(3):
        created = json.loads(run(env, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer",
                                 "bob", "--deck", DEAL, "--protect", "--json").stdout)
        games.append((created["game_id"], created["tokens"]))
    return games


def your_turn(env: dict[str, str], game: str, tokens: dict[str, str]) -> None:
    """You draw and discard: eve's turn."""
    mover = {**env, "SCAT_TOKEN": tokens["you"]}
    run(mover, "draw", game, "--as", "you", "stock")
    run(mover, "discard", game, "--as", "you", "2C")


def test_wait_any_returns_on_a_move_in_any_of_three_games(places: tuple[dict[str, str], dict[str, str]]) -> None:
    waiter_env, mover_env = places
    games = three_games(waiter_env)  # the waiter's scat remembers eve's tokens (her only proof on a server)
    timed_out = run(waiter_env, "wait", "--any", "--as", "eve", "--timeout", "0.5", code=6)
    assert timed_out.stdout == "" and timed_out.stderr == "scat: error: no game waits for eve after 0.5 seconds\n"
    waiting = start(waiter_env, "wait", "--any", "--as", "eve", "--timeout", "45", "--json")
    time.sleep(1.0)
    assert waiting.poll() is None  # no game waits for eve yet
    game, tokens = games[1]
    your_turn(mover_env, game, tokens)
    out, err = waiting.communicate(timeout=45)
    assert waiting.returncode == 0, err
    view = json.loads(out)
    assert (view["game_id"], view["turn"], view["you"], view["hand"]) == (game, "eve", "eve", ["KS", "QS", "4D"])
    assert "5D" not in out and "8C" not in out  # your cards stay hidden from eve


def waiting_in(log_path: str, game: str, waiting: subprocess.Popen[str]) -> None:
    """Until the server has answered the waiter's first look at `game` (it is then in its wait)."""
    while f"GET /games/{game} 200" not in Path(log_path).read_text():
        assert waiting.poll() is None
        time.sleep(0.05)


@pytest.mark.parametrize(("command", "stop"), [("any", "kill"), ("one", "terminate")])
def test_a_wait_through_a_server_outlives_its_restart_and_returns_the_right_game(
    tmp_path: Path, stop: str, command: str
) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    migrated(db)
    port = free_port()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": "", "SCAT_DB_URL": ""}
    with server_process(db, "--testing", port=port) as (url, first):
        env["SCAT_SERVER"] = url
        games = three_games(env)
        game, tokens = games[2]
        waits = ["--any"] if command == "any" else [game]
        waiting = start(env, "wait", *waits, "--as", "eve", "--timeout", "60", "--json")
        if command == "one":
            waiting_in(first.log_path, game, waiting)  # type: ignore[attr-defined]
        time.sleep(1.0)
        assert waiting.poll() is None
        first.kill() if stop == "kill" else first.terminate()
        first.wait(15)
    time.sleep(0.5)  # the waiter finds nobody there, and tries again
    with server_process(db, "--testing", port=port) as (again, _):
        assert again == env["SCAT_SERVER"]
        your_turn(env, game, tokens)
        out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0, err
    view = json.loads(out)
    assert (view["game_id"], view["turn"], view["you"]) == (game, "eve", "eve")
    assert "trying again" in err


def test_wait_any_new_tells_each_turn_once_and_exec_runs_with_what_happened(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    migrated(db)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": "", "SCAT_DB_URL": db,
           "SCAT_SERVER": ""}
    games = three_games(env)
    your_turn(env, *games[0])
    your_turn(env, *games[2])
    told = tmp_path / "told.txt"
    hook = f'echo "$SCAT_EVENT $SCAT_GAME $SCAT_PLAYER [$SCAT_SERVER]" >> {told}; exit 3'
    for game in (games[0][0], games[2][0]):
        done = run(env, "wait", "--any", "--new", "--as", "eve", "--timeout", "5", "--exec", hook)
        assert done.stdout.startswith(f"Your turn in game {game}.\n")
        assert done.stderr == f"scat: note: --exec command exited 3: {hook}\n"  # scat's own exit stays 0
    run(env, "wait", "--any", "--new", "--as", "eve", "--timeout", "0.2", "--exec", hook, code=6)
    assert told.read_text().splitlines() == [
        f"your-turn {games[0][0]} eve []", f"your-turn {games[2][0]} eve []", "timeout  eve []"]
    again = run(env, "wait", "--any", "--as", "eve", "--json")  # without --new: what waits, at once
    assert json.loads(again.stdout)["game_id"] == games[0][0]
    created = json.loads(run(env, "new", "--player", "you", "--player", "eve", "--dealer", "eve", "--deck",
                             THIRTY_ONE, "--lives", "1", "--no-dole", "--json").stdout)
    run(env, "declare", created["game_id"], "--as", "you")  # 31: the game is over
    ended = run(env, "wait", "--any", "--new", "--as", "eve", "--timeout", "5", "--exec", f"echo $SCAT_EVENT > {told}")
    assert told.read_text() == "game-over\n" and f"Game {created['game_id']}" in ended.stdout


@pytest.mark.parametrize(("args", "says"), [
    ((), "give the GAME to wait in, or --any"),
    (("abc", "--any"), "give either a GAME or --any"),
    (("abc", "--new"), "--new goes with --any"),
    (("--any", "--token", "t0ken"), "show GAME --as NAME --token TOKEN`, then wait --any uses every token"),
])
def test_wait_needs_a_game_or_any_but_not_both(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    env = {**os.environ, "SCAT_DB_URL": f"sqlite:///{tmp_path / 'games.db'}", "SCAT_SERVER": ""}
    refused = run(env, "wait", *args, "--as", "eve", code=2)
    assert says in refused.stderr and refused.stdout == ""

"""Wall time of `scat` commands as run by a user, each next to its goal (issue #8).

Run: .venv/bin/python tests/benchmarks/bench_cli.py [--runs N]   (about a minute)

The floor is `python -c "import sqlalchemy, pydantic, typer"`: what any command of a
Typer + SQLAlchemy + pydantic program pays before doing anything. Goals:

- `scat show GAME --as NAME` at most 1.3x the floor; a draw (with the bots' replies in a
  3-player game) at most 1.6x;
- `scat --help` and `scat COMMAND --help` under 150 ms;
- cost independent of the number of games in the database and of the game's length: show
  and draw in a 400-event game within 1.1x of a 10-event one, and show in a database of
  many games within 1.1x of a database of one;
- `scat games` (a page: the 20 of newest activity) in a database of 10,000 games at most
  1.2x the same in a database of 10;
- through a server (`scat --server URL`, a `scat serve` started here on SQLite, the client
  an account there, so every request is signed): `show` and a draw at most 1.3x the
  client's own floor, exactly what a client needs (#26): the CLI (`typer`), the HTTP client
  (the standard library's `http.client`), request signing (cryptography's `ed25519`) and
  pydantic's models, one defined and validated (what any pydantic model costs on first use:
  `pydantic.fields`, the schema, the plugin lookup), CLIENT_FLOOR_CODE below. The floors
  the client was measured against before, `python -c "import typer, pydantic"` (which loads
  neither BaseModel nor http.client nor ed25519) and `python -c "import typer, httpx"` (the
  httpx client's), are printed beside it.

Medians of N runs, the commands taken in rotation (fair to a machine that is busy); the
client's lines also give its CPU time (user + system, the server's not counted) against the
client floor's, which a busy machine stretches less than the wall time. The
commands run with Python writing its bytecode caches, as an installed scat does (pip
compiles a wheel's modules; an editable install writes them on first use): a
PYTHONDONTWRITEBYTECODE set in the caller's environment is dropped.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scat_cli.wiring import open_database
from tests.support.live_server import server_process  # noqa: E402

BIN = Path(sys.executable).parent
SCAT = str(BIN / "scat")
FLOOR = "python -c 'import sqlalchemy, pydantic, typer' (floor)"
#: What a `--server` command cannot do without: the CLI, the HTTP client, signing, one pydantic model.
CLIENT_FLOOR_CODE = ("import typer, http.client\n"
                     "from cryptography.hazmat.primitives.asymmetric import ed25519\n"
                     "from pydantic import BaseModel\n"
                     "class Floor(BaseModel):\n    seat: int\n"
                     "Floor.model_validate({'seat': 1})")
CLIENT_FLOOR = "client floor: typer, http.client, ed25519, a pydantic model"
OLD_CLIENT_FLOOR = "python -c 'import typer, pydantic' (earlier floor)"
HTTPX_FLOOR = "python -c 'import typer, httpx' (the httpx client's floor)"
SHOW_GOAL, DRAW_GOAL, HELP_GOAL_MS, FLAT_GOAL, CLIENT_GOAL = 1.3, 1.6, 150.0, 1.1, 1.3
FILLER_GAMES = 150
GAMES_GOAL, FEW_GAMES, MANY_GAMES = 1.2, 10, 10_000


#: Label -> the CPU times (ms, user + system) of its runs, as `run` measured them.
CPU: dict[str, list[float]] = {}


def run(command: list[str], env: dict[str, str], label: str = "") -> float:
    """Run one command; its wall time in milliseconds (its CPU time kept in CPU[label])."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (exit {done.returncode}): {done.stderr.strip()}")
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.setdefault(label, []).append((now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime) * 1000)
    return elapsed


def seats() -> list[Any]:
    """You and two bots."""
    from scat_core.domain.events import PlayerSeat

    return [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)]


def short_game(games: Any, seed: int) -> tuple[str, int]:
    """A 3-player game of about 10 events, your turn to draw."""
    return play(games, seed, 10)


def your_discard(state: Any) -> Any:
    """Your discard: the card a bot would throw (so you stay in the game a while)."""
    from scat_core.domain.bots import heuristic_move
    from scat_core.domain.commands import Discard

    move = heuristic_move(state, state.seat_of("you"))
    return move if isinstance(move, Discard) else Discard("you", state.hands[state.seat_of("you")][0])


def play(games: Any, seed: int, until: int | None) -> tuple[str, int]:
    """A 3-player game played (you always taking the stock, discarding as a bot would) until
    it has `until` events and it is your turn to draw, or (None) to its end; the game and the
    number of events at the last turn you drew."""
    from scat_core.domain.commands import Draw
    from scat_core.domain.options import GameOptions

    outcome = games.playing.create_game(seats(), options=GameOptions(lives=9), seed=seed, dealer="bob")
    game, state, last_draw = outcome.game_id, outcome.state, 0
    while state.status == "active":
        mine = state.turn == state.seat_of("you")
        if mine and state.phase == "draw":
            last_draw = state.version
            if until is not None and state.version >= until:
                break
        if not mine:
            state = games.playing.play_bots(game).state
        elif state.phase == "draw":
            state = games.playing.act(game, Draw("you", "stock")).state
        else:
            state = games.playing.act(game, your_discard(state)).state
    return game, last_draw


def long_game(games: Any, events: int, then: int) -> tuple[str, int]:
    """A game of about `events` events, your turn to draw, whose play lasts `then` more events.

    Play is deterministic for a seed (your moves are fixed, the bots' follow from the cards),
    so a seed whose whole game is long enough is found first, then played again to `events`.
    """
    for seed in range(2024, 2124):
        if play(games, seed, None)[1] >= events + then:
            return play(games, seed, events)
    raise RuntimeError(f"no seed gave a game of {events + then} events")


def ready_to_draw(games: Any, game: str) -> None:
    """Play on in-process (your discards, the bots' turns) until it is your turn to draw."""

    state = games.playing.look(game)
    for _ in range(50):
        if state.status != "active" or (state.phase == "draw" and state.turn == state.seat_of("you")):
            return
        if state.turn == state.seat_of("you") and state.phase == "discard":
            state = games.playing.act(game, your_discard(state)).state
        else:
            state = games.playing.play_bots(game).state
    raise RuntimeError(f"game {game}: not your turn to draw ({state.phase}, turn {state.turn})")


def through_a_server(db_url: str, runs: int, env: dict[str, str], timed: Any) -> list[str]:
    """Time `show` and a draw through a `scat serve` on `db_url`, and the client's floors; the labels."""
    from scat_cli.remote.client import RemoteGames

    show, draw = "--server show (3 players)", "--server draw + bots, fresh game"
    with server_process(db_url) as (url, _process), RemoteGames(url) as remote:
        made = [remote.new_game(seats()) for _ in range(runs + 1)]
        config = db_url.removeprefix("sqlite:///") + ".config"  # tokens and key kept there, not in the user's
        tokens = [{**env, "SCAT_SERVER": url, "SCAT_TOKEN": game.tokens["you"], "XDG_CONFIG_HOME": config}
                  for game in made]
        run([SCAT, "account", "register", "bencher"], tokens[0])  # from now on every request is signed
        run([SCAT, "show", made[0].game_id, "--as", "you"], tokens[0])  # warm-up
        for i in range(runs):
            timed(CLIENT_FLOOR, [sys.executable, "-c", CLIENT_FLOOR_CODE])
            timed(OLD_CLIENT_FLOOR, [sys.executable, "-c", "import typer, pydantic"])
            timed(HTTPX_FLOOR, [sys.executable, "-c", "import typer, httpx"])
            timed(show, [SCAT, "show", made[0].game_id, "--as", "you"], tokens[0])
            timed(draw, [SCAT, "draw", made[i + 1].game_id, "--as", "you", "stock"], tokens[i + 1])
    return [show, draw]


def listing_games(folder: str, runs: int, env: dict[str, str], timed: Any) -> tuple[str, str]:
    """Time `scat games` on a database of FEW_GAMES and one of MANY_GAMES (bot games cloned by
    the store's bulk path, tests/benchmarks/populate.py); the two labels."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from populate import bulk_append, clone_id, clones, play_bot_games

    few, many = f"{FEW_GAMES:,}-game db", f"{MANY_GAMES:,}-game db"
    urls = {few: f"sqlite:///{folder}/few.db", many: f"sqlite:///{folder}/lots.db"}
    for label, count in ((few, FEW_GAMES), (many, MANY_GAMES)):
        service = open_database(urls[label])
        bulk_append(service, clones(play_bot_games(service, 5, seed=7), (clone_id(i, 1) for i in range(count))))
        service.store.engine.dispose()
        run([SCAT, "--db", urls[label], "games"], env)  # warm-up
    for _ in range(runs):
        for label in (few, many):
            timed(f"games, {label}", [SCAT, "--db", urls[label], "games"])
    return f"games, {few}", f"games, {many}"


def main() -> None:
    """Print every median next to its goal, and whether all goals are met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    runs = parser.parse_args().runs

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SCAT_TOKEN", "SCAT_DB_URL")}
    times: dict[str, list[float]] = {}

    def timed(label: str, command: list[str], with_env: dict[str, str] | None = None) -> None:
        times.setdefault(label, []).append(run(command, with_env or env, label))

    with tempfile.TemporaryDirectory() as folder:
        one_url, many_url = f"sqlite:///{folder}/one.db", f"sqlite:///{folder}/many.db"
        one, many = open_database(one_url), open_database(many_url)
        small_game, small_events = short_game(one, 1)
        for seed in range(FILLER_GAMES):
            short_game(many, 100 + seed)
        crowded_game, _ = short_game(many, 1)
        big_game, big_events = long_game(many, 400, then=15 * runs + 30)
        # A fresh short game for each timed draw (a draw changes its game).
        fresh = [short_game(many, 1000 + i)[0] for i in range(runs)]
        run([SCAT, "--help"], env)  # warm-up: bytecode caches written
        run([SCAT, "--db", one_url, "show", small_game, "--as", "you"], env)
        for i in range(runs):
            timed(FLOOR, [sys.executable, "-c", "import sqlalchemy, pydantic, typer"])
            timed("scat --help", [SCAT, "--help"])
            timed("scat show --help", [SCAT, "show", "--help"])
            timed("scat draw --help", [SCAT, "draw", "--help"])
            timed(f"show, {small_events}-event game, 1-game db",
                  [SCAT, "--db", one_url, "show", small_game, "--as", "you"])
            timed(f"show, same game, {FILLER_GAMES + 2 + runs}-game db",
                  [SCAT, "--db", many_url, "show", crowded_game, "--as", "you"])
            timed(f"show, {big_events}-event game", [SCAT, "--db", many_url, "show", big_game, "--as", "you"])
            timed(f"draw + bots, fresh {small_events}-event game",
                  [SCAT, "--db", many_url, "draw", fresh[i], "--as", "you", "stock"])
            timed(f"draw + bots, {big_events}+-event game",
                  [SCAT, "--db", many_url, "draw", big_game, "--as", "you", "stock"])
            ready_to_draw(many, big_game)
        one.store.engine.dispose()
        many.store.engine.dispose()
        remote_labels = through_a_server(f"sqlite:///{folder}/served.db", runs, env, timed)
        games_few, games_many = listing_games(folder, runs, env, timed)

    medians = {label: statistics.median(values) for label, values in times.items()}
    floor = medians[FLOOR]
    labels = list(medians)
    show_small, show_crowded, show_big, draw_small, draw_big = labels[4:9]
    goals: dict[str, tuple[float, float, str]] = {  # label -> (figure, goal, unit)
        "scat --help": (medians["scat --help"], HELP_GOAL_MS, "ms"),
        "scat show --help": (medians["scat show --help"], HELP_GOAL_MS, "ms"),
        "scat draw --help": (medians["scat draw --help"], HELP_GOAL_MS, "ms"),
        show_small: (medians[show_small] / floor, SHOW_GOAL, "x floor"),
        show_crowded: (medians[show_crowded] / medians[show_small], FLAT_GOAL, "x the 1-game db"),
        show_big: (medians[show_big] / medians[show_small], FLAT_GOAL, "x the short game"),
        draw_small: (medians[draw_small] / floor, DRAW_GOAL, "x floor"),
        draw_big: (medians[draw_big] / medians[draw_small], FLAT_GOAL, "x the fresh game"),
    }
    for label in remote_labels:
        goals[label] = (medians[label] / medians[CLIENT_FLOOR], CLIENT_GOAL, "x client floor")
    cpu = {label: statistics.median(CPU[label]) for label in [CLIENT_FLOOR, *remote_labels]}
    goals[games_many] = (medians[games_many] / medians[games_few], GAMES_GOAL, f"x the {FEW_GAMES}-game db")
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    print(f"median of {runs} runs (wall time); floor = {floor:.0f} ms; load average {load} on {os.cpu_count()} cores "
          "(a busy machine stretches the ms figures; the ratios hold better)")
    print("client floor = python -c " + repr(CLIENT_FLOOR_CODE))
    met = True
    for label, value in medians.items():
        line = f"{label:<48}{value:7.0f} ms  {value / floor:5.2f}x floor"
        if label in goals:
            figure, goal, unit = goals[label]
            ok = figure < goal if unit == "ms" else figure <= goal
            met = met and ok
            shown = f"{figure:.0f} ms" if unit == "ms" else f"{figure:.2f}{unit}"
            line += f"   {shown:<24} goal {'<' if unit == 'ms' else '<='} {goal:g}{' ms' if unit == 'ms' else 'x'}: "
            line += "met" if ok else "NOT met"
        if label in cpu:
            line += f" (CPU {cpu[label]:.0f} ms, {cpu[label] / cpu[CLIENT_FLOOR]:.2f}x the client floor's)"
        print(line)
    print("all goals met" if met else "some goals NOT met")


if __name__ == "__main__":
    main()

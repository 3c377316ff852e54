"""Median wall time of `scat --help`, `scat show` and `scat draw`, next to the import floor.

Run: .venv/bin/python tests/benchmarks/bench_cli.py [--runs N]

The floor is `python -c "import sqlalchemy, pydantic, typer"`: what any command of a
Typer + SQLAlchemy + pydantic program pays before doing anything. Goals: `scat show`
within 1.3x of the floor, `scat --help` under 150 ms. The game shown is one in the middle
of its third hand (a few hundred events), in a fresh SQLite file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
SCAT = str(BIN / "scat")
SHOW_GOAL, HELP_GOAL_MS = 1.3, 150


def timed(commands: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, float]:
    """The median wall time of each command in milliseconds, run in rotation (fair to noise)."""
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            times[label].append((time.perf_counter() - start) * 1000)
    return {label: statistics.median(values) for label, values in times.items()}


def a_game_in_its_fourth_hand(url: str) -> tuple[str, int]:
    """A game of one human and two bots in its fourth hand, the human always taking the stock."""
    from scat_core.domain.commands import Discard, Draw
    from scat_core.domain.events import PlayerSeat
    from scat_core.domain.options import GameOptions
    from scat_core.service import GameService

    games = GameService.open(url)
    seats = [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)]
    outcome = games.create_game(seats, options=GameOptions(lives=9), seed=2024, dealer="bob")
    state = outcome.state
    while state.hand_number < 4 and state.status == "active":
        seat = state.seat_of("you")
        if state.phase == "draw":
            state = games.act(outcome.game_id, Draw("you", "stock")).state
        else:
            state = games.act(outcome.game_id, Discard("you", state.hands[seat][0])).state
    games.store.engine.dispose()
    return outcome.game_id, state.version


def draw_times(game: str, url: str, env: dict[str, str], runs: int) -> list[float]:
    """Wall times of `scat draw GAME --as you stock`, discarding in-process after each."""
    from scat_core.domain.commands import Discard
    from scat_core.service import GameService

    games = GameService.open(url)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([SCAT, "draw", game, "--as", "you", "stock"], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - start) * 1000)
        state = games.view(game)
        if state.status != "active":
            break
        games.act(game, Discard("you", state.hands[state.seat_of("you")][0]))
    games.store.engine.dispose()
    return times


def main() -> None:
    """Print the table of medians and whether the goals are met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        env = {**os.environ, "SCAT_DB_URL": url}
        env.pop("SCAT_TOKEN", None)
        game, events = a_game_in_its_fourth_hand(url)
        medians = timed({
            "import sqlalchemy, pydantic, typer (floor)": [sys.executable, "-c", "import sqlalchemy, pydantic, typer"],
            "scat --help": [SCAT, "--help"],
            "scat show GAME --as you": [SCAT, "show", game, "--as", "you"],
            "scat show GAME --as you --json": [SCAT, "show", game, "--as", "you", "--json"],
        }, env, runs)
        medians["scat draw GAME --as you stock (+ bots)"] = statistics.median(draw_times(game, url, env, runs))
    floor = medians["import sqlalchemy, pydantic, typer (floor)"]
    print(f"median of {runs} runs; the game shown has {events} events")
    for label, value in medians.items():
        print(f"{label:<44}{value:8.0f} ms   {value / floor:.2f}x")
    show, help_ms = medians["scat show GAME --as you"], medians["scat --help"]
    print(f"goal: show within {SHOW_GOAL}x of the floor: {'met' if show <= SHOW_GOAL * floor else 'NOT met'}; "
          f"--help under {HELP_GOAL_MS} ms: {'met' if help_ms < HELP_GOAL_MS else 'NOT met'}")


if __name__ == "__main__":
    main()

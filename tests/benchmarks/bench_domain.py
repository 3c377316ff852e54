"""Benchmark of the pure domain: bot-only games in memory, on one core.

    python tests/benchmarks/bench_domain.py [--games N] [--heads-up N] [--tricks-games N] [--strict]

Plays N games of heuristic bots (2 to 9 players in turn, a few option sets), every command
decided and every event folded into the live state exactly as the service does, and prints
events per second and games per second against the goal (>= 50,000 events/s). Then plays
heads-up games of the heuristic bot against a player picking uniformly among the legal
moves (seats alternating) and prints the heuristic bot's win rate against its goal (>= 75%).
Last, the speed tricks (scat_core/domain/speed_tricks.py): the rules alone timed in fresh
processes with each trick turned off through SCAT_PUBLIC_API_ONLY, interleaved, best of three,
and what each earns against its goal (a trick stays while it makes the rules >= 1.10x faster).
With --strict the exit status is 1 when a goal is missed. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from scat_core.domain.bots import heuristic_move, next_bot_command, random_move  # noqa: E402
from scat_core.domain.commands import CreateGame, PlayerCommand  # noqa: E402
from scat_core.domain.decide import decide, decide_and_evolve  # noqa: E402
from scat_core.domain.events import PlayerSeat  # noqa: E402
from scat_core.domain.evolve import evolve  # noqa: E402
from scat_core.domain.options import GameOptions  # noqa: E402
from scat_core.domain.shuffle import SeededChance  # noqa: E402
from scat_core.domain.state import GameState  # noqa: E402

GOAL_EVENTS_PER_SECOND = 50_000
GOAL_WIN_RATE = 0.75
#: A speed trick stays while the rules alone run at least this much faster with it.
GOAL_TRICK_GAIN = 1.10
TRICK_SETTINGS = {"both tricks (default)": "", "no slot writes": "slots", "no dict writes": "dict",
                  "public API only": "1"}
MAX_MOVES = 100_000
OPTION_SETS = (
    GameOptions(),
    GameOptions(lives=2, three_of_a_kind=True, straight_flush=True),
    GameOptions(min_knock=20, no_first_round_knock=True),
    GameOptions(lives=4, no_dole=True, throw_down=True),
)

Policy = Callable[[GameState, int], "PlayerCommand | None"]


def bot_game(players: int, options: GameOptions, seed: str,
             clock: Callable[[], float] = time.perf_counter) -> tuple[int, float]:
    """One game of heuristic bots, as the service runs them: (events, seconds spent in the
    rules alone, i.e. in decide_and_evolve, not in the bots' choice of moves)."""
    chance = SeededChance(seed, "bench")
    seats = tuple(PlayerSeat(name=f"bot{index}", is_bot=True) for index in range(players))
    state = GameState()
    command: object = CreateGame(game_id=seed, players=seats, options=options)
    events, in_rules = 0, 0.0
    for _ in range(MAX_MOVES):
        started = clock()
        produced, state = decide_and_evolve(state, command, chance)  # type: ignore[arg-type]
        events += len(produced)
        in_rules += clock() - started
        if state.status == "finished":
            return events, in_rules
        command = next_bot_command(state)
        assert command is not None, "a bot-only game always has a bot to move"
    raise RuntimeError(f"game {seed} did not end within {MAX_MOVES} moves")


def heads_up(game: int) -> bool:
    """Whether the heuristic bot beats a uniformly random player in one heads-up game."""
    rng = random.Random(game)
    heuristic_seat = game % 2
    chance = SeededChance(f"heads-up-{game}", "bench")
    seats = (PlayerSeat(name="p0"), PlayerSeat(name="p1"))
    state = GameState()
    for event in decide(state, CreateGame(game_id=str(game), players=seats), chance):
        state = evolve(state, event)
    for _ in range(MAX_MOVES):
        if state.status == "finished":
            return state.winner == f"p{heuristic_seat}"
        move = heuristic_move(state, heuristic_seat)  # a 31 is declared even out of turn
        if move is None:
            assert state.turn is not None
            move = random_move(state, state.turn, rng)
        for event in decide(state, move, chance):  # type: ignore[arg-type]
            state = evolve(state, event)
    raise RuntimeError(f"heads-up game {game} did not end within {MAX_MOVES} moves")


def rules_alone(games: int) -> float:
    """Events per CPU second of this process in decide + evolve over `games` bot-only games."""
    events, in_rules = 0, 0.0
    for game in range(games):
        played, rules_time = bot_game(2 + game % 8, OPTION_SETS[game % len(OPTION_SETS)], f"bench-{game}",
                                      clock=time.process_time)
        events += played
        in_rules += rules_time
    return events / in_rules


def compare_tricks(games: int) -> bool:
    """Print the rules' speed with each trick off, side by side; whether each trick earns its place."""
    best = dict.fromkeys(TRICK_SETTINGS, 0.0)
    for _ in range(3):
        for label, off in TRICK_SETTINGS.items():
            result = subprocess.run([sys.executable, __file__, "--rules-only", str(games)], check=True,
                                    capture_output=True, text=True, env={**os.environ, "SCAT_PUBLIC_API_ONLY": off})
            best[label] = max(best[label], float(result.stdout))
    base = best["both tricks (default)"]
    print(f"speed tricks:     the rules alone over {games} games, in CPU time (less swayed by a loaded machine),"
          " fresh processes, best of 3 (SCAT_PUBLIC_API_ONLY)")
    for label, rate in best.items():
        print(f"  {label:<22}{rate:>12,.0f} events/s  ({rate / base:.2f}x the default)")
    earns = True
    for label, name in (("no slot writes", "pydantic slot writes (speed_tricks.py)"),
                        ("no dict writes", "frozen-dataclass dict writes (evolve)")):
        gain = base / best[label]
        verdict = "keeps its place" if gain >= GOAL_TRICK_GAIN else "MISSED: remove it"
        earns = earns and gain >= GOAL_TRICK_GAIN
        print(f"  {name:<40} earns {gain:.2f}x   (goal >= {GOAL_TRICK_GAIN:.2f}x)  {verdict}")
    return earns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000, help="bot-only games to time (default 1000)")
    parser.add_argument("--heads-up", type=int, default=1_000, help="heuristic-vs-random games (default 1000)")
    parser.add_argument("--tricks-games", type=int, default=300,
                        help="bot-only games per run when comparing the speed tricks (default 300; 0 skips it)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--rules-only", type=int, metavar="GAMES", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.rules_only is not None:  # one run of compare_tricks, in its own process
        print(rules_alone(args.rules_only))
        return 0

    events, in_rules = 0, 0.0
    started = time.perf_counter()
    for game in range(args.games):
        players = 2 + game % 8
        played, rules_time = bot_game(players, OPTION_SETS[game % len(OPTION_SETS)], f"bench-{game}")
        events += played
        in_rules += rules_time
    elapsed = time.perf_counter() - started
    events_per_second = events / elapsed
    print(f"bot-only games:   {args.games} games, 2-9 players, {events} events in {elapsed:.2f} s (one core)")
    print(f"events/s:         {events_per_second:,.0f}   (goal >= {GOAL_EVENTS_PER_SECOND:,})"
          f"  {'ok' if events_per_second >= GOAL_EVENTS_PER_SECOND else 'MISSED'}")
    print(f"games/s:          {args.games / elapsed:,.1f}")
    print(f"rules alone:      {events / in_rules:,.0f} events/s in decide + evolve"
          f" ({in_rules / elapsed:.0%} of the time; the rest is the bots choosing moves)")

    started = time.perf_counter()
    wins = sum(heads_up(game) for game in range(args.heads_up))
    rate = wins / args.heads_up if args.heads_up else 0.0
    print(f"heads-up:         heuristic bot beat the uniform random player in {wins} of {args.heads_up} games"
          f" ({time.perf_counter() - started:.2f} s)")
    verdict = "ok" if rate >= GOAL_WIN_RATE else "MISSED"
    if args.heads_up:
        print(f"win rate:         {rate:.1%}   (goal >= {GOAL_WIN_RATE:.0%})  {verdict}")
    else:
        rate = GOAL_WIN_RATE

    tricks_earn = compare_tricks(args.tricks_games) if args.tricks_games else True
    missed = events_per_second < GOAL_EVENTS_PER_SECOND or rate < GOAL_WIN_RATE or not tricks_earn
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())

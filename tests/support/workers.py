"""Worker processes for the reliability tests (started with the 'spawn' context).

Every function here runs in a fresh interpreter: it opens its own engine on the URL it is
given (the parent has already migrated the schema) and reports through a queue or a pipe.
"""

from __future__ import annotations

import random
import time
from ctypes import c_int
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier, Event

from sqlalchemy import Engine, event
from sqlalchemy.engine import Connection as SAConnection

from scat_core.domain.bots import heuristic_move, next_bot_command
from scat_core.domain.errors import RuleViolation
from scat_core.domain.events import Knocked, PlayerSeat
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service import GameService, Outcome
from scat_core.store.sql.database import WRITE_OPTION, make_engine
from scat_core.store.sql.event_store import EventStore

BARRIER_TIMEOUT_S = 60.0
START_TIMEOUT_S = 60.0

#: The line-ups the killed writer creates: bots only (the whole game is played inside
#: `create_game`), one human with bots, two humans with a bot.
LINEUPS = (
    (PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True),
     PlayerSeat(name="cy", is_bot=True)),
    (PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True),
     PlayerSeat(name="bob", is_bot=True)),
    (PlayerSeat(name="you"), PlayerSeat(name="me"), PlayerSeat(name="ann", is_bot=True)),
)
MAX_ACTIVE_GAMES = 4


def open_service(url: str) -> GameService:
    """A service on its own engine (no schema check: the parent migrated it)."""
    return GameService(EventStore(make_engine(url)))


@dataclass
class Tally:
    """What one hammering worker saw: each win with the seqs it appended, and each loss."""

    worker: int
    wins: list[tuple[str, int, int]] = field(default_factory=list)  # game, first seq, last seq
    conflicts: int = 0  # ConcurrencyConflict: someone else appended first
    stale: int = 0  # RuleViolation: the move was no longer legal once the game was reloaded
    attempts: int = 0


def hammer(
    url: str, game_ids: list[str], worker: int, barrier: Barrier, seconds: float, results: Queue
) -> None:
    """Until every game is over (or time is up): load a game, play its player to act."""
    service = open_service(url)
    rng = random.Random(worker)
    tally = Tally(worker)
    open_games = list(game_ids)
    try:
        barrier.wait(BARRIER_TIMEOUT_S)
        deadline = time.monotonic() + seconds
        while open_games and time.monotonic() < deadline:
            game_id = rng.choice(open_games)
            state = service.playing.look(game_id)
            if state.status == "finished" or state.turn is None:
                open_games.remove(game_id)
                continue
            command = heuristic_move(state, state.turn)
            assert command is not None
            tally.attempts += 1
            try:
                outcome = service.playing.act(game_id, command)
            except ConcurrencyConflict:
                tally.conflicts += 1
            except RuleViolation:
                tally.stale += 1
            else:
                tally.wins.append((game_id, outcome.events[0].seq, outcome.events[-1].seq))
    except BaseException:
        barrier.abort()  # never leave the others waiting for a worker that died
        raise
    finally:
        results.put(tally)
        service.store.engine.dispose()


def race_appends(
    url: str, game_id: str, rounds: int, name: str, barrier: Barrier, results: Queue
) -> None:
    """Each round, after the barrier, append one event at the same expected seq as the others.

    Round r expects seq r - 1, so exactly one racer per round can win; the racers report
    "won" or "conflict" per round.
    """
    store = EventStore(make_engine(url))
    outcomes: list[str] = []
    try:
        for expected in range(rounds):
            barrier.wait(BARRIER_TIMEOUT_S)
            try:
                with store.transaction() as tx:
                    tx.append(game_id, expected, [Knocked(player=name)])
                outcomes.append("won")
            except ConcurrencyConflict:
                outcomes.append("conflict")
    except BaseException:
        barrier.abort()
        raise
    finally:
        results.put((name, outcomes))
        store.engine.dispose()


def advance(service: GameService, game_id: str) -> Outcome:
    """One step of a running game: the bots' owed moves if any, else the human to act."""
    state = service.playing.look(game_id)
    if next_bot_command(state) is not None:
        # Only an interrupted call (a killed writer) leaves bots owing moves.
        return service.playing.play_bots(game_id)
    assert state.turn is not None, f"game {game_id} is stuck in phase {state.phase}"
    command = heuristic_move(state, state.turn)
    assert command is not None
    return service.playing.act(game_id, command)


def track_write_transactions(engine: Engine, flag: c_int) -> None:
    """Keep `flag` at 1 while a write transaction is open on `engine`, else 0."""

    def begun(conn: SAConnection) -> None:
        flag.value = 1 if conn.get_execution_options().get(WRITE_OPTION, False) else 0

    def ended(_conn: SAConnection) -> None:
        flag.value = 0

    event.listen(engine, "begin", begun)
    event.listen(engine, "commit", ended)
    event.listen(engine, "rollback", ended)


def crash_writer(
    url: str, seed: int, started: Event, go: Event, in_write: c_int, acks: Connection
) -> None:
    """Play for ever (until SIGKILL): resume running games, sometimes start a new one.

    After every call that returned, send (game_id, events in the game) to the parent: that
    much is committed and must survive the kill. `in_write` tells the parent whether the
    kill landed inside a write transaction.
    """
    service = open_service(url)
    track_write_transactions(service.store.engine, in_write)
    rng = random.Random(seed)
    started.set()
    go.wait(START_TIMEOUT_S)
    while True:
        active = service.reading.list_games(status="active")
        if not active or (len(active) < MAX_ACTIVE_GAMES and rng.random() < 0.2):
            outcome = service.playing.create_game(rng.choice(LINEUPS), seed=rng.getrandbits(32))
        else:
            outcome = advance(service, rng.choice(active).game_id)
        acks.send((outcome.game_id, outcome.state.version))

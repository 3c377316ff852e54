"""A writer killed with SIGKILL mid-play, over and over, on SQLite and on PostgreSQL.

Each round starts a writer process (pre-started, waiting for a go signal, so the kill
delay does not include the interpreter's start-up), lets it play bot and human games through
the service for a random short time and kills it with SIGKILL. After every kill the
database must be consistent: every game's log is gap-free and verifies, its read model
agrees with the log head, nothing of the interrupted transaction is left (no orphan rows,
no seed kept for a finished game or lost for a running one) and everything the writer had
reported as done is still there. At the end the games are played on to their ends.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from ctypes import c_int
from dataclasses import dataclass
from multiprocessing.connection import Connection

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.bots import next_bot_command
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import fold
from scat_core.service import GameService, playing
from scat_core.service.playing import Playing
from tests.support import workers
from tests.support.checks import audit_problems, structural_problems
from tests.support.databases import migrated

SPAWN = multiprocessing.get_context("spawn")
KILLS = int(os.environ.get("SCAT_CRASH_KILLS", "12"))
MIN_KILLS_IN_WRITE = 3  # kill on (up to 3 * KILLS) until this many hit a write transaction
KILL_DELAY_S = (0.01, 0.25)
PLAY_ON_STEPS = 2_000


@dataclass
class Writer:
    """A started writer process and the ends the parent keeps."""

    process: multiprocessing.process.BaseProcess
    started: multiprocessing.synchronize.Event
    go: multiprocessing.synchronize.Event
    in_write: c_int
    acks: Connection


def start_writer(db_url: str, seed: int) -> Writer:
    started, go = SPAWN.Event(), SPAWN.Event()
    in_write: c_int = SPAWN.RawValue(c_int, 0)  # no lock: a kill must not hold one
    reader, writer_end = SPAWN.Pipe(duplex=False)
    process = SPAWN.Process(
        target=workers.crash_writer,
        args=(db_url, seed, started, go, in_write, writer_end),
        daemon=True,
    )
    process.start()
    writer_end.close()  # the child holds the only write end: its death means EOF here
    return Writer(process, started, go, in_write, reader)


def drain(acks: Connection) -> list[tuple[str, int]]:
    """Every (game_id, version) the killed writer reported before it died."""
    received: list[tuple[str, int]] = []
    try:
        while acks.poll():
            received.append(acks.recv())
    except (EOFError, OSError):
        pass
    acks.close()
    return received


def heads(service: GameService) -> dict[str, int]:
    return {game.game_id: game.head_seq for game in service.reading.list_games()}


@pytest.mark.slow
def test_a_writer_killed_over_and_over_leaves_every_game_consistent_and_playable(
    db_url: str,
) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    rng = random.Random(20261129)
    acked: dict[str, int] = {}
    audited: dict[str, int] = {}
    owed_after_kill = 0
    kills_in_write_transactions = 0

    upcoming = start_writer(db_url, seed=0)
    kill = 0
    while kill < KILLS or (kills_in_write_transactions < MIN_KILLS_IN_WRITE
                           and kill < 3 * KILLS):
        kill += 1
        writer = upcoming
        assert writer.started.wait(60), "the writer never started"
        writer.go.set()
        upcoming = start_writer(db_url, seed=kill)  # starts up while this one plays
        time.sleep(rng.uniform(*KILL_DELAY_S))  # the kill lands anywhere in the play
        os.kill(writer.process.pid or 0, signal.SIGKILL)
        writer.process.join(30)
        assert writer.process.exitcode == -signal.SIGKILL
        kills_in_write_transactions += writer.in_write.value
        for game_id, version in drain(writer.acks):
            acked[game_id] = max(acked.get(game_id, 0), version)

        assert structural_problems(engine) == [], f"after kill {kill}"
        now = heads(service)
        lost = {g: (v, now.get(g)) for g, v in acked.items() if now.get(g, 0) < v}
        assert lost == {}, f"after kill {kill}: reported commits are gone"
        changed = [g for g, head in now.items() if audited.get(g) != head]
        assert audit_problems(service, changed) == [], f"after kill {kill}"
        audited.update(now)
        owed_after_kill += sum(
            1 for g in changed if next_bot_command(service.playing.look(g)) is not None
        )
    upcoming.process.kill()
    upcoming.process.join(30)

    # Play every game on to its end, through the same service calls the writer used.
    running = [g.game_id for g in service.reading.list_games(status="active")]
    for game_id in running:
        for _ in range(PLAY_ON_STEPS):
            if workers.advance(service, game_id).state.status == "finished":
                break
    assert service.reading.list_games(status="active") == []
    assert structural_problems(engine) == []
    reports = list(service.audit_all())
    assert [r.game_id for r in reports if not (r.ok and r.seed_verified)] == []
    assert kills_in_write_transactions >= MIN_KILLS_IN_WRITE, "too few kills hit a write"
    print(f"\n{engine.dialect.name}: {kill} kills ({kills_in_write_transactions} inside a "
          f"write transaction), {len(reports)} games, "
          f"{len(running)} left running and played on, "
          f"{owed_after_kill} times a kill left bots owing moves, {len(acked)} games acked")
    engine.dispose()


class Killed(BaseException):
    """Stands for SIGKILL between two units of work of a service call (the bots' units, each committed)."""


def killed_after_the_first_unit(patched: pytest.MonkeyPatch) -> None:
    """Bots play 2 moves a unit, and the call is killed once its first unit is written."""
    patched.setattr(playing, "BOT_MOVES_PER_UNIT", 2)
    patched.setattr(Playing, "bots_go_on", lambda *_args: (_ for _ in ()).throw(Killed()))


def test_bots_left_owing_moves_by_an_interrupted_call_play_on_with_play_bots(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = open_database(migrated(db_url))
    bots = tuple(PlayerSeat(name=name, is_bot=True) for name in ("ann", "bob", "cy"))

    with monkeypatch.context() as patched:
        killed_after_the_first_unit(patched)
        with pytest.raises(Killed):
            service.playing.create_game(bots, seed=7)
    (game,) = service.reading.list_games()
    stored_state = fold(stored.event for stored in service.reading.history(game.game_id))
    assert next_bot_command(stored_state) is not None

    outcome = service.playing.play_bots(game.game_id)

    assert outcome.state.status == "finished"
    assert outcome.events[0].seq == game.head_seq + 1 and outcome.events[-1].seq == outcome.state.version
    report = service.audit(game.game_id)
    assert report.ok and report.seed_verified
    assert service.playing.play_bots(game.game_id).events == []  # nothing owed any more
    service.store.engine.dispose()


def test_showing_or_acting_in_a_game_whose_bots_owe_moves_lets_them_play_first(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = open_database(migrated(db_url))
    seats = (PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True))
    with monkeypatch.context() as patched:
        killed_after_the_first_unit(patched)
        patched.setattr(playing, "BOT_MOVES_PER_UNIT", 1)
        with pytest.raises(Killed):
            service.playing.create_game(seats, seed=5, dealer="you")  # ann is to play first (R11)
    (game,) = service.reading.list_games()
    assert game.turn == "ann"  # her draw is written, her discard is owed
    state = service.playing.look(game.game_id)
    assert (state.turn, state.status) == (0, "active")
    assert service.audit(game.game_id).ok

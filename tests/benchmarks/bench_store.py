"""Benchmark of the event store and the service, on SQLite and (when configured) PostgreSQL.

Prints, per backend:

* replay throughput: load + upcast + pydantic validation + fold, in events/s
  (goal: at least 100,000 events/s on SQLite);
* command throughput through `GameService.act`, one durable transaction per command;
* the time to load one game in a database of 10 games versus one of 10,000 games
  (goal: within 10%). The same 10 full-length games are in both databases; the large one
  also holds short filler games, cloned from real bot games (re-keyed and re-hashed, so
  every one of them audits) and appended in bulk through the store in large transactions.

Usage::

    .venv/bin/python tests/benchmarks/bench_store.py                  # SQLite (+ PG if set)
    .venv/bin/python tests/benchmarks/bench_store.py --postgres postgresql+psycopg://...
    .venv/bin/python tests/benchmarks/bench_store.py --large-games 100000 --no-postgres
    .venv/bin/python tests/benchmarks/bench_store.py --profile        # where replay time goes

PostgreSQL defaults to $SCAT_TEST_POSTGRES_URL; the benchmark works in fresh schemas that
it drops afterwards. SQLite works in a temporary directory.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url

from scat_core.domain.bots import heuristic_move
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import fold
from scat_core.service import GameService
from scat_core.store.sql.database import ensure_schema, make_engine
from scat_core.store.sql.event_store import EventStore

sys.path.insert(0, str(Path(__file__).resolve().parent))
from populate import bulk_append, clone_id, clones, play_bot_games  # noqa: E402

REPLAY_GOAL = 100_000  # events/s on SQLite
LOAD_GOAL = 0.10  # the large database may be at most 10% slower
Record = dict[str, Any]


# ---- databases -----------------------------------------------------------------------------


@dataclass
class Backend:
    """Where to make databases: SQLite files in a directory, or PostgreSQL schemas."""

    name: str
    sqlite_dir: Path | None = None
    postgres_url: str | None = None
    sqlite_synchronous: str | None = None
    schemas: list[str] | None = None

    def database(self, label: str) -> GameService:
        """A fresh, migrated database for `label`, as a service."""
        if self.sqlite_dir is not None:
            url = f"sqlite:///{self.sqlite_dir / f'{label}.db'}"
        else:
            assert self.postgres_url is not None and self.schemas is not None
            schema = f"scat_bench_{label}_{uuid.uuid4().hex[:8]}"
            with admin_engine(self.postgres_url).connect() as conn:
                conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            self.schemas.append(schema)
            url = make_url(self.postgres_url).update_query_dict(
                {"options": f"-csearch_path={schema}"}
            ).render_as_string(hide_password=False)
        engine = make_engine(url)
        if self.sqlite_synchronous:
            mode = self.sqlite_synchronous

            def synchronous(dbapi_connection: Any, _record: Any) -> None:
                dbapi_connection.execute(f"PRAGMA synchronous = {mode}")

            event.listen(engine, "connect", synchronous)
        ensure_schema(engine)
        return GameService(EventStore(engine))

    def durability(self, service: GameService) -> str:
        """How durable one commit is on this backend, as configured."""
        with service.store.engine.connect() as conn:
            if self.sqlite_dir is not None:
                level = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[
                    int(conn.exec_driver_sql("PRAGMA synchronous").scalar_one())
                ]
                journal = str(conn.exec_driver_sql("PRAGMA journal_mode").scalar_one())
                return f"journal_mode={journal}, synchronous={level}"
            commit = str(conn.exec_driver_sql("SHOW synchronous_commit").scalar_one())
            fsync = str(conn.exec_driver_sql("SHOW fsync").scalar_one())
            return f"synchronous_commit={commit}, fsync={fsync}"

    def cleanup(self) -> None:
        if self.postgres_url and self.schemas:
            with admin_engine(self.postgres_url).connect() as conn:
                for schema in self.schemas:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


_ADMIN: dict[str, Engine] = {}


def admin_engine(url: str) -> Engine:
    if url not in _ADMIN:
        _ADMIN[url] = create_engine(url, isolation_level="AUTOCOMMIT")
    return _ADMIN[url]


# ---- measurements --------------------------------------------------------------------------


def replay(service: GameService, game_ids: Sequence[str]) -> int:
    """Load, upcast, validate and fold each game once; the number of events replayed."""
    replayed = 0
    for game_id in game_ids:
        with service.store.read() as tx:
            stored = tx.load(game_id)
        fold(s.event for s in stored)
        replayed += len(stored)
    return replayed


def replay_throughput(service: GameService, game_ids: Sequence[str],
                      seconds: float) -> tuple[float, dict[str, float]]:
    """Best events/s over repeated replays, and a per-stage split (µs/event)."""
    replay(service, game_ids)  # warm up
    best = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        events = replay(service, game_ids)
        best = max(best, events / (time.perf_counter() - started))
    # Where a pass spends its time, stage by stage (the best of a few passes per stage).
    names = ("load (rows -> StoredEvent)", "upcast + validate", "fold")
    best_stage = dict.fromkeys(names, float("inf"))
    for _ in range(5):
        spent = dict.fromkeys(names, 0.0)
        total = 0
        for game_id in game_ids:
            t0 = time.perf_counter()
            with service.store.read() as tx:
                stored = tx.load(game_id)
            t1 = time.perf_counter()
            domain_events = [s.event for s in stored]
            t2 = time.perf_counter()
            fold(domain_events)
            t3 = time.perf_counter()
            for name, seconds in zip(names, (t1 - t0, t2 - t1, t3 - t2), strict=True):
                spent[name] += seconds
            total += len(stored)
        for name in names:
            best_stage[name] = min(best_stage[name], spent[name] / total * 1e6)
    return best, best_stage


def command_throughput(service: GameService, commands: int) -> tuple[float, float]:
    """Commands/s through `act` (humans only, one transaction each); mean history length."""
    humans = [PlayerSeat(name=n) for n in ("ann", "bob", "cy")]
    done, lengths = 0, 0
    started = time.perf_counter()
    seed = 0
    while done < commands:
        outcome = service.playing.create_game(humans, seed=seed)
        seed += 1
        state = outcome.state
        while state.status != "finished" and done < commands:
            assert state.turn is not None
            command = heuristic_move(state, state.turn)
            assert command is not None
            lengths += state.version
            state = service.playing.act(outcome.game_id, command).state
            done += 1
    return done / (time.perf_counter() - started), lengths / done


def load_times(services: Sequence[GameService], game_ids: Sequence[str],
               rounds: int) -> list[float]:
    """Median seconds to load one game in each database, measured interleaved."""
    samples: list[list[float]] = [[] for _ in services]
    for service in services:
        replay(service, game_ids)  # warm up
    order = list(game_ids)
    for _ in range(rounds):
        random.shuffle(order)
        for index, service in enumerate(services):
            for game_id in order:
                started = time.perf_counter()
                with service.store.read() as tx:
                    tx.load(game_id)
                samples[index].append(time.perf_counter() - started)
    return [statistics.median(s) for s in samples]


# ---- the run -------------------------------------------------------------------------------


def line(backend: str, measure: str, figure: str, goal: str = "") -> None:
    print(f"{backend:<11} {measure:<52} {figure:>20}  {goal}", flush=True)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


@contextmanager
def timed(label: str, quiet: bool) -> Iterator[None]:
    started = time.perf_counter()
    yield
    if not quiet:
        print(f"    ({label}: {time.perf_counter() - started:.1f} s)", file=sys.stderr,
              flush=True)


def run_backend(backend: Backend, args: argparse.Namespace) -> None:
    quiet = args.quiet
    try:
        with timed("playing the source games", quiet):
            scratch = backend.database("scratch")
            targets = play_bot_games(scratch, args.small_games, bots=3, lives=3, seed=1)
            fillers = play_bot_games(scratch, args.filler_sources, bots=2, lives=1, seed=10_000)
            scratch.store.engine.dispose()
        target_ids = [clone_id(i, space=1) for i in range(len(targets))]

        with timed("populating the small database", quiet):
            small = backend.database("small")
            bulk_append(small, clones(targets, target_ids))

        filler_count = max(args.large_games - len(targets), 0)

        def large_games() -> Iterator[tuple[list[Record], Any, str | None]]:
            half = filler_count // 2
            yield from clones(fillers, (clone_id(i, space=2) for i in range(half)))
            yield from clones(targets, target_ids)  # in the middle of the table
            yield from clones(fillers, (clone_id(i, space=2) for i in range(half, filler_count)))

        with timed(f"populating the large database ({args.large_games} games)", quiet):
            large = backend.database("large")
            bulk_append(large, large_games())
        with large.store.read() as tx:
            assert tx.count_games() == args.large_games
        for game_id in target_ids[:2]:
            assert large.audit(game_id).ok and small.audit(game_id).ok

        events = sum(len(t.records) for t in targets)
        rate, stages = replay_throughput(small, target_ids, args.replay_seconds)
        goal = (f"goal >= {REPLAY_GOAL:,} events/s: {verdict(rate >= REPLAY_GOAL)}"
                if backend.name == "sqlite" else f"(SQLite goal {REPLAY_GOAL:,})")
        line(backend.name, f"replay: load+upcast+validate+fold ({events / len(targets):.0f}"
             " ev/game)", f"{rate:,.0f} events/s", goal)
        for stage, micros in stages.items():
            line("", f"  {stage}", f"{micros:.2f} µs/event")
        if args.profile:
            profile_replay(small, target_ids)

        commands_db = backend.database("commands")
        per_second, history = command_throughput(commands_db, args.commands)
        line(backend.name, f"commands through the service (history {history:.0f} ev avg)",
             f"{per_second:,.0f} commands/s",
             f"one transaction per command; {backend.durability(commands_db)}")

        small_s, large_s = load_times([small, large], target_ids, args.load_rounds)
        ratio = large_s / small_s - 1
        line(backend.name, f"load one game, {len(targets)} games in the database",
             f"{small_s * 1e3:.3f} ms")
        line(backend.name, f"load one game, {args.large_games:,} games in the database",
             f"{large_s * 1e3:.3f} ms",
             f"{ratio:+.1%} vs small; goal within {LOAD_GOAL:.0%}: "
             f"{verdict(abs(ratio) <= LOAD_GOAL)}")
        for service in (small, large, commands_db):
            service.store.engine.dispose()
    finally:
        backend.cleanup()


def profile_replay(service: GameService, game_ids: Sequence[str]) -> None:
    """cProfile of repeated replays: the top functions by own time and by cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        replay(service, game_ids)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.strip_dirs().sort_stats("tottime").print_stats(18)
    stats.sort_stats("cumulative").print_stats(18)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    pg_default = os.environ.get("SCAT_TEST_POSTGRES_URL")
    parser.add_argument("--postgres", metavar="URL", default=pg_default,
                        help="PostgreSQL URL (default: $SCAT_TEST_POSTGRES_URL: "
                             f"{pg_default or 'not set'})")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    parser.add_argument("--small-games", type=int, default=10,
                        help="games in the small database, full-length 3-bot games (10)")
    parser.add_argument("--large-games", type=int, default=10_000,
                        help="games in the large database (10000)")
    parser.add_argument("--filler-sources", type=int, default=50,
                        help="distinct short bot games cloned to fill the large database (50)")
    parser.add_argument("--commands", type=int, default=1_000,
                        help="commands played through the service per backend (1000)")
    parser.add_argument("--replay-seconds", type=float, default=3.0,
                        help="how long to repeat the replay measurement (3)")
    parser.add_argument("--load-rounds", type=int, default=100,
                        help="rounds of loading every target game in each database (100)")
    parser.add_argument("--sqlite-synchronous", choices=["NORMAL", "FULL"], default=None,
                        help="override SQLite's synchronous setting (the store uses NORMAL)")
    parser.add_argument("--profile", action="store_true",
                        help="print a cProfile of the replay")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"{'backend':<11} {'measure':<52} {'figure':>20}  goal / notes")
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory(prefix="scat-bench-") as directory:
            run_backend(Backend("sqlite", sqlite_dir=Path(directory),
                                sqlite_synchronous=args.sqlite_synchronous), args)
    if args.postgres and not args.no_postgres:
        run_backend(Backend("postgresql", postgres_url=args.postgres, schemas=[]), args)
    elif not args.no_postgres:
        print("postgresql  skipped: give --postgres URL or set SCAT_TEST_POSTGRES_URL")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

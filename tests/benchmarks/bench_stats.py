"""Benchmark of the stats projection: rebuild throughput versus replay, `scat stats` versus `scat show`.

Prints, next to their goals:

* rebuild: `scat stats --rebuild`'s fold (`catch_up(..., rebuild=True)`) over every game,
  in events of the log per second, against the replay throughput of the same events
  (load + upcast + validate + fold, game by game, as `scat show` replays); goal >= 0.5x.
  The projection reads only the event types it uses (the share is printed), so its
  throughput is counted over every event of the games it covers, as replay's is;
* `scat stats` on the populated database (caught up) against `scat show GAME` on it, both
  the real `scat` executable, median of several runs; goal within 1.5x. Also printed: the
  first `scat stats` (the whole log folded in) and one after a new game (incremental);
* `scat ratings` the same way (its fold kept, store/sql/ratings_table.py): goal within 1.5x of
  `scat show`; beside it the first one (every won game folded, then kept), every won game folded
  in process as each read did before revision 0021, and one after a new game.

The database is filled by a bulk path: a few real bot games, played through the service,
cloned under new ids (re-keyed and re-hashed, so each audits) and appended through the
store in large transactions. Usage::

    .venv/bin/python tests/benchmarks/bench_stats.py               # 10,000 games on SQLite
    .venv/bin/python tests/benchmarks/bench_stats.py --games 2000 --postgres URL
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, func, select, text
from sqlalchemy.engine import make_url

from scat_core.domain.evolve import fold
from scat_core.domain.stats import HANDLED_TYPES, GameLine
from scat_core.records.stats import ratings, won
from scat_core.service import GameService
from scat_core.store.sql import tables as t
from scat_core.store.sql.database import ensure_schema, make_engine
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.projections import STATS, catch_up

sys.path.insert(0, str(Path(__file__).resolve().parent))
from populate import bulk_append, clone_id, clones, play_bot_games  # noqa: E402

EPOCH = datetime(2025, 6, 1)  # the clones' times count from here
REBUILD_GOAL = 0.5  # rebuild throughput / replay throughput, at least
STATS_GOAL = 1.5  # `scat stats` time / `scat show` time, at most
SCAT = Path(sys.executable).with_name("scat")


def populate(service: GameService, games: int, templates: int, per_transaction: int = 500) -> None:
    """Fill the database with `games` games: `templates` real ones and clones of them (bulk path),
    the clones won a minute apart over the time before (as games are won over months: the ratings
    keep those won more than a minute ago, and fold the newer ones at each read)."""
    played = play_bot_games(service, templates, names=("ann", "bob", "cy"))
    count = games - templates
    times = ((EPOCH + timedelta(minutes=number)).strftime("%Y-%m-%dT%H:%M:%S.000000Z") for number in range(count))
    bulk_append(service, clones(played, (clone_id(number) for number in range(count)), times=times), per_transaction)


def replay_throughput(service: GameService, game_ids: Sequence[str]) -> float:
    """Events/s of loading and folding each game (best of three passes)."""
    best = 0.0
    for _ in range(3):
        started, events = time.perf_counter(), 0
        for game_id in game_ids:
            with service.store.read() as tx:
                stored = tx.load(game_id)
            fold(s.event for s in stored)
            events += len(stored)
        best = max(best, events / (time.perf_counter() - started))
    return best


def median_seconds(args: Sequence[str], env: dict[str, str], runs: int) -> float:
    """The median wall time of running `scat ARGS` `runs` times (each must exit 0)."""
    return medians([args], env, runs)[0]


def medians(commands: Sequence[Sequence[str]], env: dict[str, str], runs: int) -> list[float]:
    """Median wall times of `scat` commands, run in turn (so a busy machine slows all alike)."""
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for index, args in enumerate(commands):
            started = time.perf_counter()
            subprocess.run([str(SCAT), *args], env=env, check=True, capture_output=True)
            times[index].append(time.perf_counter() - started)
    return [statistics.median(spent) for spent in times]


def line(measure: str, figure: str, goal: str = "") -> None:
    print(f"  {measure:<52} {figure:>16}   {goal}")


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def run(url: str, args: argparse.Namespace) -> None:
    engine = make_engine(url)
    ensure_schema(engine)
    service = GameService(EventStore(engine))
    started = time.perf_counter()
    populate(service, args.games, args.templates)
    with engine.connect() as conn:
        total = conn.execute(select(func.count()).select_from(t.events)).scalar_one()
        used = conn.execute(
            select(func.count()).select_from(t.events).where(t.events.c.type.in_(sorted(HANDLED_TYPES)))
        ).scalar_one()
        sample = [str(r[0]) for r in conn.execute(select(t.games.c.game_id).limit(args.replay_games))]
        sample_events = conn.execute(
            select(func.count()).select_from(t.events).where(t.events.c.game_id.in_(sample))
        ).scalar_one()
    print(f"{url.split(':')[0]}: {args.games:,} games, {total:,} events ({used / total:.0%} of them of the "
          f"{len(HANDLED_TYPES)} types the stats read); populated in {time.perf_counter() - started:.0f} s")
    env = {**os.environ, "SCAT_DB_URL": url}
    first = median_seconds(["stats"], env, 1)  # folds the whole log in
    replay = replay_throughput(service, sample)
    rebuild_s = min(_timed(lambda: catch_up(engine, STATS, rebuild=True)) for _ in range(args.rebuilds))
    rebuild = total / rebuild_s
    ratio = rebuild / replay
    line(f"replay ({len(sample)} games, {sample_events:,} events)", f"{replay:,.0f} ev/s")
    line(f"rebuild ({args.games:,} games)", f"{rebuild:,.0f} ev/s",
         f"{ratio:.1f}x replay (goal >= {REBUILD_GOAL}x: {verdict(ratio >= REBUILD_GOAL)})")
    line("  of which read and folded (the types it uses)", f"{used / rebuild_s:,.0f} ev/s")
    game_id = sample[0]
    show, stats = medians([["show", game_id], ["stats"]], env, args.runs)
    line("scat show GAME (median)", f"{show * 1000:.0f} ms")
    line("scat stats (median, caught up)", f"{stats * 1000:.0f} ms",
         f"{stats / show:.2f}x show (goal <= {STATS_GOAL}x: {verdict(stats <= STATS_GOAL * show)})")
    line("first scat stats (the whole log folded in)", f"{first * 1000:.0f} ms")
    first_ratings = median_seconds(["ratings"], env, 1)  # folds every won game, and keeps the fold
    show, rated = medians([["show", game_id], ["ratings"]], env, args.runs)
    line("scat ratings (median, kept: nothing new)", f"{rated * 1000:.0f} ms",
         f"{rated / show:.2f}x show (goal <= {STATS_GOAL}x: {verdict(rated <= STATS_GOAL * show)})")
    line("first scat ratings (every won game folded, kept)", f"{first_ratings * 1000:.0f} ms")
    every = min(_timed(lambda: ratings(won_lines(engine))) for _ in range(2))
    line("  every won game folded at each read (before 0021)", f"{every * 1000:.0f} ms", "in process, no start-up")
    subprocess.run([str(SCAT), "new", "-q", "--bot", "ann", "--bot", "dan"], env=env, check=True, capture_output=True)
    line("scat stats after one more game (incremental)", f"{median_seconds(['stats'], env, 1) * 1000:.0f} ms")
    after = median_seconds(["ratings"], env, 1)
    line("scat ratings after one more game (in the answer)", f"{after * 1000:.0f} ms")
    engine.dispose()


def won_lines(engine: Engine) -> list[GameLine]:
    """Every won game's line of the statistics' rows (what the ratings fold)."""
    with engine.connect() as conn:
        ids: list[str] = list(conn.execute(select(t.stats_games.c.game_id)).scalars())
        return [line for line in STATS.load(conn, ids).values() if won(line)]


def _timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def backends(args: argparse.Namespace) -> Iterator[str]:
    """A fresh SQLite file, then (if asked) a fresh PostgreSQL schema; cleaned up afterwards."""
    directory = tempfile.mkdtemp(prefix="bench-stats-")
    try:
        yield f"sqlite:///{directory}/scat.db"
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    if args.postgres:
        schema = f"bench_stats_{uuid.uuid4().hex[:10]}"
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            yield make_url(args.postgres).update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
                hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games in the database (10,000)")
    parser.add_argument("--templates", type=int, default=40, help="distinct real bot games cloned (40)")
    parser.add_argument("--replay-games", type=int, default=300, help="games replayed for the replay figure (300)")
    parser.add_argument("--rebuilds", type=int, default=1, help="rebuilds timed, the best kept (1)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each command timed (5)")
    parser.add_argument("--postgres", metavar="URL", help="also on PostgreSQL (a fresh schema there)")
    args = parser.parse_args(argv)
    for url in backends(args):
        run(url, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

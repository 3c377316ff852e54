"""Benchmark of issue #42 part 3: what a move, a `show` and a games page cost as the database grows.

    .venv/bin/python tests/benchmarks/bench_scale.py [--games 200000] [--no-postgres] [--no-sqlite] [--no-cold]

Per database (SQLite in a temporary directory, WAL + synchronous=FULL as scat runs it;
PostgreSQL from $SCAT_TEST_POSTGRES_URL, in a fresh schema dropped afterwards): the same
measured games are timed when the database holds 1,000 games, and again after it was filled
with `--games` (default 200,000; with progress) of cloned bot games (populate.py: real bot
games re-keyed and re-hashed, appended through the store's bulk path; PostgreSQL's statistics
then refreshed with VACUUM (ANALYZE), as autovacuum keeps them while a database grows by play), the two
side by side:

* a move (`act`) on a running game, in the process that played it last (its state kept) and
  as a new process would make it (the kept states forgotten: the snapshot and the events since);
* `show` of a running game as a player, and `show` of a finished game (its result);
* an account's games page (`games_page_for`, 20 games, his games first: a server's `scat games`)
  and the public page with its bounded total (`games_page`).

Goal (#42): each <= 1.1x what it costs at 1,000 games. Each figure is the median over the
measured games of the best of three rounds, cached (pages in memory); and, with root and
without `--no-cold`, uncached once: the operating system's page cache dropped (and
PostgreSQL restarted with pg_ctlcluster, so its buffers are empty) before each measure,
which is what a game nobody looked at for weeks costs. Not collected by pytest.
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from populate import bulk_append, clone_id, clones, play_bot_games  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from scat_cli.wiring import open_database  # noqa: E402
from scat_core.domain.events import PlayerSeat  # noqa: E402
from scat_core.service import GameService, loading  # noqa: E402
from tests.support.services import next_move  # noqa: E402

SMALL = 1_000
EPOCH = datetime(2025, 6, 1)  # the filler games' times count from here, a minute apart
MEASURED = 15  # running games and finished games timed, each
GOAL = 1.1
HUMANS = (PlayerSeat(name="ann"), PlayerSeat(name="bob"), PlayerSeat(name="cy"))
Measure = Callable[[GameService, str], None]


def line(db: str, measure: str, figure: str, goal: str = "") -> None:
    print(f"{db:<10} {measure:<52} {figure:>24}  {goal}", flush=True)


@dataclass
class Measured:
    """The games every measure runs on (the same at both sizes), and what each measure cost."""

    running: list[str]
    finished: list[str]
    figures: dict[str, dict[int, float]] = field(default_factory=dict)  # measure -> games held -> seconds


def move_new_process(service: GameService, game_id: str) -> None:
    loading.forget_kept_states()  # as a new process: it kept no state of its own
    next_move(service, game_id)


def show_running(service: GameService, game_id: str) -> None:
    state = service.playing.look(game_id)
    assert state.turn is not None
    service.show(game_id, state.players[state.turn].name)


def show_finished(service: GameService, game_id: str) -> None:
    assert service.show(game_id).result is not None


def account_page(service: GameService, _: str) -> None:
    assert service.games_page_for(limit=20, first_for="ann").games


def public_page(service: GameService, _: str) -> None:
    assert service.games_page(limit=20).games


#: measure name -> (what it does, whether it runs on the running games (else the finished ones), timed once per game)
MEASURES: dict[str, tuple[Measure, bool]] = {
    "a move, the process's state kept": (next_move, True),
    "a move, as a new process": (move_new_process, True),
    "show of a running game (as the player to act)": (show_running, True),
    "show of a finished game (with its result)": (show_finished, False),
    "an account's games page (20, his first)": (account_page, True),
    "the public games page (20, bounded total)": (public_page, True),
}


def timed(run: Callable[[], None]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def measure_all(service: GameService, measured: Measured, held: int, rounds: int, cold: Callable[[], None] | None,
                ) -> None:
    """Time every measure at `held` games: the median over the measured games of the best of
    `rounds`, cached; and once after `cold()` (caches dropped) when given, under "uncached"."""
    for name, (run, on_running) in MEASURES.items():
        games = measured.running if on_running else measured.finished
        best = [min(timed(lambda g=game_id, r=run: r(service, g)) for _ in range(rounds))  # type: ignore[misc]
                for game_id in games]
        measured.figures.setdefault(name, {})[held] = statistics.median(best)
        if cold is not None and name != "a move, the process's state kept":
            uncached = []
            for game_id in games[:5]:
                cold()
                uncached.append(timed(lambda g=game_id, r=run: r(service, g)))  # type: ignore[misc]
            measured.figures.setdefault(f"{name}, uncached", {})[held] = statistics.median(uncached)


def fill(service: GameService, db: str, start: int, count: int) -> None:
    """Add `count` cloned bot games (ids from `start`), with progress on one line."""
    templates = play_bot_games(service, 8, lives=2, seed=1000)
    events = sum(len(game.records) for game in templates) / len(templates)
    began, done, step = time.perf_counter(), 0, 5_000
    while done < count:
        batch = min(step, count - done)
        numbers = range(start + done, start + done + batch)
        ids = (clone_id(number, space=7) for number in numbers)
        # each game a time of its own, a minute apart over the year before (the lists order by it)
        times = ((EPOCH + timedelta(minutes=number)).strftime("%Y-%m-%dT%H:%M:%S.000000Z") for number in numbers)
        bulk_append(service, clones(templates, ids, snapshots=True, times=times))
        done += batch
        rate = done / (time.perf_counter() - began)
        print(f"\r{db:<10} filling: {done:,}/{count:,} games (~{done * events:,.0f} events), "
              f"{rate:,.0f} games/s, {(count - done) / rate:,.0f} s left   ", end="", flush=True)
    print(flush=True)


def prepare(service: GameService) -> Measured:
    """The measured games: running human games a few moves in, and finished bot games."""
    running = []
    for seed in range(MEASURED):
        game_id = service.playing.create_game(list(HUMANS), seed=seed).game_id
        for _ in range(6):
            next_move(service, game_id)
        running.append(game_id)
    finished = [service.playing.create_game([PlayerSeat(name=f"bot{i}", is_bot=True) for i in range(3)],
                                            seed=100 + seed).game_id for seed in range(MEASURED)]
    return Measured(running, finished)


def analyze(service: GameService, db: str) -> None:
    """Vacuum and statistics after a bulk fill, as PostgreSQL's autovacuum has them long before a
    database grows this large by play: a plan made on the statistics of an empty table would scan,
    and the autovacuum that millions of inserted rows set off would otherwise run during the
    measures, on the same two cores (a move then measured 1.6x slower at 200,000 games). A
    CHECKPOINT then writes out the pages the fill and the vacuum dirtied, as pgbench does before
    it measures, so that the checkpoint they call for is not likely to run during the measures at
    the large size only (the same 200,000 games measured a few minutes after their fill: a
    finished game's `show` 0.96x, not the 1.57x measured right after it; the checkpoint is the
    likely cause of the difference, not a proven one)."""
    if db == "postgresql":
        with service.store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM (ANALYZE)")
            conn.exec_driver_sql("CHECKPOINT")


def games_held(service: GameService) -> int:
    with service.store.read() as tx:
        return len(tx.game_ids())


def drop_os_cache() -> bool:
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def restart_postgres() -> bool:
    clusters = Path("/etc/postgresql")
    if shutil.which("pg_ctlcluster") is None or not clusters.is_dir():
        return False
    version = sorted(p.name for p in clusters.iterdir())[-1]
    done = subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
                          capture_output=True, check=False)
    return done.returncode == 0


def run_database(db: str, url: str, games: int, rounds: int, cold_wanted: bool) -> None:
    service = open_database(url)
    measured = prepare(service)
    print(f"{db:<10} filling to {SMALL:,} games first", flush=True)
    fill(service, db, 0, SMALL - games_held(service))
    analyze(service, db)
    cold = None
    if cold_wanted and drop_os_cache():
        restart = db == "postgresql" and shutil.which("pg_ctlcluster") is not None
        if db == "postgresql" and not restart:
            print(f"{db:<10} (cannot restart PostgreSQL here: its buffers stay warm; only the OS cache is dropped)")

        def cold() -> None:
            service.store.engine.dispose()  # no pooled connection outlives the restart
            if restart and restart_postgres():
                for _ in range(50):  # until it takes connections again
                    try:
                        with service.store.engine.connect():
                            break
                    except Exception:  # noqa: BLE001 - the server is coming up
                        time.sleep(0.2)
            drop_os_cache()
    elif cold_wanted:
        print(f"{db:<10} (not root: the uncached measures are left out)")
    measure_all(service, measured, SMALL, rounds, cold)
    fill(service, db, SMALL, games - SMALL)
    analyze(service, db)
    held = games_held(service)
    measure_all(service, measured, games, rounds, cold)
    line(db, f"measured at {SMALL:,} and {held:,} games", "1,000 games    many", "ratio; goal")
    for name, at in measured.figures.items():
        ratio = at[games] / at[SMALL]
        verdict = f"{ratio:.2f}x; goal <= {GOAL}x: {'met' if ratio <= GOAL else 'MISSED'}"
        line(db, name, f"{at[SMALL] * 1e3:6.2f} ms {at[games] * 1e3:6.2f} ms", verdict)
    service.store.engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200_000, help="games held in the large database (200,000)")
    parser.add_argument("--postgres", default=os.environ.get("SCAT_TEST_POSTGRES_URL"))
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-cold", dest="cold", action="store_false", help="without the uncached measures")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.games <= SMALL:
        parser.error(f"--games must be above {SMALL:,}")
    if not args.no_sqlite:
        directory = Path(tempfile.mkdtemp(prefix="scat-scale-"))
        try:
            run_database("sqlite", f"sqlite:///{directory / 'scale.db'}", args.games, args.rounds, args.cold)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    if args.postgres and not args.no_postgres:
        schema = f"scat_scale_{uuid.uuid4().hex[:6]}"
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(args.postgres).update_query_dict({"options": f"-csearch_path={schema}"})
        try:
            run_database("postgresql", url.render_as_string(hide_password=False), args.games, args.rounds, args.cold)
        finally:
            admin.dispose()
            admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    return 0


if __name__ == "__main__":
    sys.exit(main())

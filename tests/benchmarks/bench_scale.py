"""Benchmark of issue #42 part 3: what a move, a `show` and a games page cost as the database grows.

    .venv/bin/python tests/benchmarks/bench_scale.py [--games 200000] [--no-postgres] [--no-sqlite] [--no-cold]

Per database kind (SQLite in temporary files, WAL + synchronous=FULL as scat runs it;
PostgreSQL from $SCAT_TEST_POSTGRES_URL, in fresh schemas dropped afterwards), two databases
hold the same measured games (the same seeds, the same moves): one filled to 1,000 games, the
other to `--games` (default 200,000; with progress) with cloned bot games (populate.py: real bot
games re-keyed and re-hashed, appended through the store's bulk path; PostgreSQL's statistics
then refreshed with VACUUM (ANALYZE), as autovacuum keeps them while a database grows by play).
Each measure then runs on the small database and the large one in turn, call after call, so
both meet the machine in the same state (figures on these machines move 2-3x within an hour:
measured ten minutes apart, before and after the fill, the large database's figures were up to
1.4x the small one's whatever the size did):

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
from dataclasses import dataclass
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
    print(f"{db:<10} {measure:<60} {figure:>24}  {goal}", flush=True)


@dataclass
class Measured:
    """The games every measure runs on in one database (the same seeds and moves in both)."""

    service: GameService
    running: list[str]
    finished: list[str]


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


def measure_all(small: Measured, large: Measured, rounds: int, cold: Callable[[], None] | None,
                ) -> dict[str, tuple[float, float]]:
    """Every measure on both databases: measure name -> (its cost on `small`, on `large`). Each
    is the median over the measured games of the best of `rounds`, the two databases timed in
    turn, call after call; and, with `cold` (caches dropped before each call), the median of five
    uncached calls each, under "..., uncached"."""
    figures: dict[str, tuple[float, float]] = {}
    for name, (run, on_running) in MEASURES.items():
        best: tuple[list[float], list[float]] = ([], [])
        uncached: tuple[list[float], list[float]] = ([], [])
        pairs = list(zip(*((m.running if on_running else m.finished) for m in (small, large)), strict=True))
        for index, pair in enumerate(pairs):
            times: tuple[list[float], list[float]] = ([], [])
            for _ in range(rounds):
                for side, (measured, game_id) in enumerate(zip((small, large), pair, strict=True)):
                    times[side].append(timed(lambda m=measured, g=game_id, r=run: r(m.service, g)))  # type: ignore[misc]
            for side in (0, 1):
                best[side].append(min(times[side]))
            if cold is not None and name != "a move, the process's state kept" and index < 5:
                for side, (measured, game_id) in enumerate(zip((small, large), pair, strict=True)):
                    cold()
                    uncached[side].append(timed(lambda m=measured, g=game_id, r=run: r(m.service, g)))  # type: ignore[misc]
        figures[name] = (statistics.median(best[0]), statistics.median(best[1]))
        if uncached[0]:
            figures[f"{name}, uncached"] = (statistics.median(uncached[0]), statistics.median(uncached[1]))
    return figures


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
    """The measured games: running human games a few moves in, and finished bot games (their
    seeds fixed: the same games in every database)."""
    running = []
    for seed in range(MEASURED):
        game_id = service.playing.create_game(list(HUMANS), seed=seed).game_id
        for _ in range(6):
            next_move(service, game_id)
        running.append(game_id)
    finished = [service.playing.create_game([PlayerSeat(name=f"bot{i}", is_bot=True) for i in range(3)],
                                            seed=100 + seed).game_id for seed in range(MEASURED)]
    return Measured(service, running, finished)


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


def run_database(db: str, urls: tuple[str, str], games: int, rounds: int, cold_wanted: bool) -> None:
    """Fill the database at `urls[0]` to SMALL games and the one at `urls[1]` to `games`, the same
    measured games in both, and print what each measure costs on each, side by side."""
    small, large = (prepare(open_database(url)) for url in urls)
    for measured, (label, start, count) in zip((small, large), (("small", 0, SMALL), ("large", SMALL, games)),
                                               strict=True):
        print(f"{db:<10} filling the {label} database to {count:,} games", flush=True)
        fill(measured.service, db, start, count - games_held(measured.service))
    for measured in (small, large):
        analyze(measured.service, db)
    cold = None
    if cold_wanted and drop_os_cache():
        restart = db == "postgresql" and shutil.which("pg_ctlcluster") is not None
        if db == "postgresql" and not restart:
            print(f"{db:<10} (cannot restart PostgreSQL here: its buffers stay warm; only the OS cache is dropped)")

        def cold() -> None:
            for measured in (small, large):
                measured.service.store.engine.dispose()  # no pooled connection outlives the restart
            if restart and restart_postgres():
                for _ in range(50):  # until it takes connections again
                    try:
                        with small.service.store.engine.connect():
                            break
                    except Exception:  # noqa: BLE001 - the server is coming up
                        time.sleep(0.2)
            drop_os_cache()
    elif cold_wanted:
        print(f"{db:<10} (not root: the uncached measures are left out)")
    held = tuple(games_held(measured.service) for measured in (small, large))
    figures = measure_all(small, large, rounds, cold)
    line(db, f"the same games in databases of {held[0]:,} and {held[1]:,} games", f"{held[0]:,} games      many",
         "ratio; goal")
    for name, (at_small, at_large) in figures.items():
        ratio = at_large / at_small
        verdict = f"{ratio:.2f}x; goal <= {GOAL}x: {'met' if ratio <= GOAL else 'MISSED'}"
        line(db, name, f"{at_small * 1e3:6.2f} ms {at_large * 1e3:6.2f} ms", verdict)
    for measured in (small, large):
        measured.service.store.engine.dispose()


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
            urls = (f"sqlite:///{directory / 'small.db'}", f"sqlite:///{directory / 'large.db'}")
            run_database("sqlite", urls, args.games, args.rounds, args.cold)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    if args.postgres and not args.no_postgres:
        schemas = tuple(f"scat_scale_{size}_{uuid.uuid4().hex[:6]}" for size in ("small", "large"))
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            for schema in schemas:
                conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        pg_urls = tuple(make_url(args.postgres).update_query_dict({"options": f"-csearch_path={schema}"})
                     .render_as_string(hide_password=False) for schema in schemas)
        try:
            run_database("postgresql", (pg_urls[0], pg_urls[1]), args.games, args.rounds, args.cold)
        finally:
            admin.dispose()
            admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                for schema in schemas:
                    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Idle event streams against a move: N streams open on one game of a `scat serve` process, side
by side in one run with the same moves and health checks and no stream (#23 item 1).

Run: .venv/bin/python tests/benchmarks/bench_streams.py [--streams N] [--moves M] [--rounds R] [--pg URL]

One client plays a game against a bot (draw, then discard: one request each) with no stream
open, then with N idle streams on its game (`GET /games/{id}/events`, held by a lean asyncio
client in its own process, so that the streams' client does not share the mover's interpreter);
each time, M moves and M `/health` checks, one at a time; then again with no stream (the
baseline is the runs with no stream before and after, as the machine's speed drifts); all that
R times (a new game each time: one game lasts about 40 of the mover's moves), the samples pooled. Printed
beside their goals: a move's round trip with N streams against none (goal <= 1.5x, medians),
`/health` p99 with N streams (goal <= 50 ms) and the server's RSS with N streams (goal <= 300
MiB). The streams' client checks that every stream was handed every move's events. SQLite by default; PostgreSQL with
--pg URL (or $SCAT_TEST_POSTGRES_URL with --pg-from-env).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.live_server import server_process  # noqa: E402

MOVE_GOAL, HEALTH_P99_GOAL_MS, RSS_GOAL_MIB = 1.5, 50.0, 300.0


async def hold(base: str, game: str, streams: int) -> None:
    """Hold `streams` event streams of `game` open, reading and dropping what they send; print
    `ready` once all are open, and at the end (stdin closed) the lowest last seq any was handed."""
    host, port = base.removeprefix("http://").split(":")
    last = [0] * streams

    async def one(index: int, opened: asyncio.Event) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /games/{game}/events HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            print(f"stream {index} refused: {status.decode().strip()}", file=sys.stderr, flush=True)
            os._exit(1)
        opened.set()
        tail = b""
        while chunk := await reader.read(1 << 16):  # whole reads, not lines: the client stays lean
            tail = (tail + chunk)[-4096:]
            end = tail.rfind(b"\n\n")  # the last whole event in
            start = tail.rfind(b"id: ", 0, end)
            if start >= 0:
                last[index] = int(tail[start + 4:tail.index(b"\n", start)])

    tasks = []
    for start in range(0, streams, 50):  # 50 at a time: each reads the game once as it opens
        batch = [asyncio.Event() for _ in range(start, min(streams, start + 50))]
        tasks += [asyncio.create_task(one(start + i, opened)) for i, opened in enumerate(batch)]
        await asyncio.gather(*(opened.wait() for opened in batch))
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await asyncio.sleep(1.0)  # the last move's events reach every stream
    print(min(last), flush=True)
    print(f"{time.process_time():.2f}", flush=True)  # the streams' client's own CPU seconds
    for task in tasks:
        task.cancel()


class Mover:
    """One client playing one long game against a bot, one request a move."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=120)
        self.renew = True  # a game that ends is followed by a new one (not while streams follow it)
        self.new_game()

    def new_game(self) -> None:
        """A new game against the bot, the mover to play."""
        created = self.http.post("/games", json={"players": [{"name": "you"}, {"name": "bot", "is_bot": True}],
                                                  "options": {"lives": 9}})
        created.raise_for_status()
        self.game, self.state = created.json()["game_id"], created.json()["state"]
        self.headers = {"authorization": f"Bearer {created.json()['tokens']['you']}"}

    def move(self) -> float:
        """Draw or discard, whichever is due; its round trip in seconds."""
        if self.state["status"] == "finished":
            if not self.renew:
                raise SystemExit("the game ended: run fewer --moves")
            self.new_game()
        if self.state["phase"] == "discard":
            path, body = "discard", {"move": "discard", "player": "you", "card": self.state["hands"][0][0]}
        else:
            path, body = "draw", {"move": "draw", "player": "you", "source": "stock"}
        began = time.perf_counter()
        response = self.http.post(f"/games/{self.game}/moves", json=body, headers=self.headers)
        took = time.perf_counter() - began
        if response.status_code != 200:
            raise SystemExit(f"{path}: {response.status_code} {response.text}")
        self.state = response.json()["state"]
        return took

    def health(self) -> float:
        """One `/health` round trip in seconds."""
        began = time.perf_counter()
        self.http.get("/health").raise_for_status()
        return time.perf_counter() - began


def p99(samples: list[float]) -> float:
    """The 99th percentile of `samples`."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def rss_mib(pid: int) -> float:
    """The resident set of process `pid`, MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(mover: Mover, moves: int) -> tuple[list[float], list[float]]:
    """(move round trips, /health round trips) of `moves` of each, one at a time."""
    played, checked = [], []
    for _ in range(moves):
        played.append(mover.move())
        checked.append(mover.health())
    return played, checked


def add(measured: tuple[list[float], list[float]], moves: list[float], health: list[float]) -> None:
    """Pool the samples of one `measure`."""
    moves.extend(measured[0])
    health.extend(measured[1])


def run(url: str, name: str, streams: int, moves: int, rounds: int) -> list[str]:
    """Measure on the database at `url` (`rounds` times, each on a new game, the samples pooled);
    print the figures; the verdicts."""
    room = str(streams + 10)
    alone_moves: list[float] = []
    alone_health: list[float] = []
    many_moves: list[float] = []
    many_health: list[float] = []
    alone_rss, many_rss, opening, holder_cpu, short = 0.0, 0.0, 0.0, 0.0, 0
    with server_process(url, "--max-streams-per-address", room, "--max-streams", room) as (base, process):
        for _ in range(rounds):
            mover = Mover(base)
            for _ in range(4):  # warm up: first requests import and connect
                mover.move()
            add(measure(mover, moves), alone_moves, alone_health)
            alone_rss = max(alone_rss, rss_mib(process.pid))
            holder = subprocess.Popen([sys.executable, __file__, "--hold", base, mover.game, str(streams)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            assert holder.stdout is not None and holder.stdin is not None
            began = time.perf_counter()
            if holder.stdout.readline().strip() != "ready":
                raise SystemExit("the streams' client failed")
            opening = max(opening, time.perf_counter() - began)
            time.sleep(2.0)  # a few keep-alives on every stream
            mover.renew = False
            add(measure(mover, moves), many_moves, many_health)
            mover.renew = True
            many_rss = max(many_rss, rss_mib(process.pid))
            head = mover.state["version"]  # every stream should be handed the events up to here
            holder.stdin.close()
            handed = int(holder.stdout.readline().strip() or 0)
            short += handed != head
            holder_cpu += float(holder.stdout.readline().strip() or "nan")
            holder.wait(30)
            time.sleep(1.0)  # the streams' ends are logged
            add(measure(mover, moves), alone_moves, alone_health)  # no stream again: before and after
    ratio = statistics.median(many_moves) / statistics.median(alone_moves)
    print(f"{name}: {rounds} rounds of {moves} moves each way, a new game each; {streams} streams opened in "
          f"{opening:.1f} s at most; rounds where a stream missed an event: {short}; the streams' client used "
          f"{holder_cpu:.1f} s of CPU in all")
    print(f"{'':<24} {'no stream':>10} {f'{streams} streams':>14} {'ratio':>6}  goal")
    print(f"{'move p50 ms':<24} {statistics.median(alone_moves) * 1000:>10.1f} "
          f"{statistics.median(many_moves) * 1000:>14.1f} {ratio:>6.2f}  <= {MOVE_GOAL}x")
    print(f"{'move p99 ms':<24} {p99(alone_moves) * 1000:>10.1f} {p99(many_moves) * 1000:>14.1f} "
          f"{p99(many_moves) / p99(alone_moves):>6.2f}")
    print(f"{'/health p99 ms':<24} {p99(alone_health) * 1000:>10.1f} {p99(many_health) * 1000:>14.1f} "
          f"{p99(many_health) / p99(alone_health):>6.2f}  <= {HEALTH_P99_GOAL_MS:.0f} ms")
    print(f"{'server RSS MiB':<24} {alone_rss:>10.0f} {many_rss:>14.0f} {many_rss / alone_rss:>6.2f}  "
          f"<= {RSS_GOAL_MIB:.0f} MiB", flush=True)
    health = p99(many_health) * 1000
    return [f"{name}: move with {streams} streams {ratio:.2f}x ({'met' if ratio <= MOVE_GOAL else 'NOT met'}), "
            f"/health p99 {health:.1f} ms ({'met' if health <= HEALTH_P99_GOAL_MS else 'NOT met'}), "
            f"RSS {many_rss:.0f} MiB ({'met' if many_rss <= RSS_GOAL_MIB else 'NOT met'}), "
            f"events handed to every stream: {'yes' if not short else 'NO'}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1000, help="idle streams on the game (default 1000)")
    parser.add_argument("--moves", type=int, default=36, help="moves and health checks each time (default 36)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="times the whole comparison is made, each on a new game, the samples pooled (default 3)")
    parser.add_argument("--pg", default=None, help="also on this PostgreSQL URL (a schema of its own)")
    parser.add_argument("--pg-from-env", action="store_true", help="--pg $SCAT_TEST_POSTGRES_URL")
    parser.add_argument("--hold", nargs=3, metavar=("BASE", "GAME", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hold:
        asyncio.run(hold(args.hold[0], args.hold[1], int(args.hold[2])))
        return
    from scat_core.store.sql.database import ensure_schema, make_engine

    databases = {"sqlite": f"sqlite:///{tempfile.mkdtemp()}/bench.db"}
    pg = args.pg or (os.environ.get("SCAT_TEST_POSTGRES_URL") if args.pg_from_env else None)
    if pg:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        schema = f"bench_{uuid.uuid4().hex[:8]}"
        with create_engine(pg, isolation_level="AUTOCOMMIT").connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        databases["postgresql"] = make_url(pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    verdicts = []
    for name, url in databases.items():
        engine = make_engine(url)
        ensure_schema(engine)
        engine.dispose()
        verdicts += run(url, name, args.streams, args.moves, args.rounds)
    print()
    for verdict in verdicts:
        print(verdict)


if __name__ == "__main__":
    main()

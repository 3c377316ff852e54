"""Commands per second and p50/p99 latency through `scat serve`, next to a minimal FastAPI
endpoint doing one INSERT and COMMIT on the same database (the floor), all in one run.

Run: .venv/bin/python tests/benchmarks/bench_server.py [--seconds S] [--pg URL]

Each client plays its own game against a bot over HTTP (draw, then discard: one command a
request, the bot answering in the same request), with 1, 8 and 32 concurrent clients: on
SQLite with one server process, on PostgreSQL ($SCAT_TEST_POSTGRES_URL or --pg) with one and
with two (clients alternate between them). Goals: >= 0.5x the floor's throughput, p99 <= 3x
the floor's p99 at 8 clients on PostgreSQL, 0 events lost; and a move reaches a watcher on
the other server process (event stream, LISTEN/NOTIFY) with p99 no longer than the mover's
own request.

First, in this process, the cost of authenticating one request: a signed request verified
(scat_cli/server/verify.py: parse, digest, one indexed read, Ed25519, the nonce's INSERT),
a signed request rejected (signed by another key than the account's: the same work but the
INSERT), next to today's wrong game token (a 16 MiB scrypt). Goal: a rejected request costs
<= 1/100 of the wrong token's scrypt. `--verify-only` prints these figures alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.live_server import free_port, server_process  # noqa: E402

CLIENTS = (1, 8, 32)
THROUGHPUT_GOAL, P99_GOAL = 0.5, 3.0
REJECT_GOAL = 1 / 100  # a rejected signed request against a wrong token's scrypt


def median_seconds(action: Callable[[], object], rounds: int) -> float:
    """The median time of `action()` over `rounds` calls."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def verification_costs(url: str) -> list[str]:
    """Print the cost of verifying and of rejecting a signed request, and of a wrong token; the verdict."""
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from scat_cli.server import httpsig
    from scat_cli.server.verify import RequestVerifier
    from scat_core.domain.accounts import key_id_of
    from scat_core.domain.errors import RequestRefused
    from scat_core.records.tokens import hash_token, verify_token
    from scat_core.service.accounts import AccountService
    from scat_core.store.sql.account_log import SqlAccountLog
    from scat_core.store.sql.database import make_engine

    engine = make_engine(url)
    accounts = AccountService(SqlAccountLog(engine))
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    public = base64.b64encode(key.public_key().public_bytes_raw()).decode("ascii")
    accounts.register(f"bench{uuid.uuid4().hex[:8]}", public)
    verifier = RequestVerifier(accounts)
    body = b'{"player":"you","source":"stock"}'
    path = "/games/0123456789/draw"
    scope = {"path": path, "raw_path": path.encode(), "query_string": b""}

    def request(signer: Ed25519PrivateKey) -> dict[str, str]:
        return httpsig.sign(signer, key_id_of(public), "POST", path, body, int(time.time()))

    def verified() -> None:
        assert verifier.verified(scope, "POST", request(key), body, time.time()) is not None

    def rejected() -> None:
        try:
            verifier.verified(scope, "POST", request(other), body, time.time())
        except RequestRefused:
            return
        raise AssertionError("a request signed by another key was accepted")

    stored = hash_token("the right token")
    wrong = median_seconds(lambda: verify_token("a wrong token", stored), 10)
    signing = median_seconds(lambda: request(key), 300)
    ok = median_seconds(verified, 300) - signing
    refused = median_seconds(rejected, 300) - signing
    name = engine.dialect.name
    engine.dispose()
    print(f"authenticating one request on {name} (median; signing the test request not counted):")
    print(f"  signed request verified   {ok * 1e6:>9.0f} us")
    print(f"  signed request rejected   {refused * 1e6:>9.0f} us  (signed by another key than the account's)")
    print(f"  wrong game token (scrypt) {wrong * 1e6:>9.0f} us", flush=True)
    return [f"{name}: a rejected signed request costs {refused / wrong:.4f} of a wrong token's scrypt "
            f"(1/{wrong / refused:.0f}; goal <= {REJECT_GOAL:.2f}, i.e. 1/{1 / REJECT_GOAL:.0f})"]


def serve_floor(url: str, port: int) -> None:
    """The floor: POST /floor does one INSERT and one COMMIT; nothing else."""
    import uvicorn
    from fastapi import FastAPI
    from sqlalchemy import Column, Integer, MetaData, Table, Text

    from scat_core.store.sql.database import make_engine

    engine = make_engine(url)
    table = Table("bench_floor", MetaData(), Column("id", Integer, primary_key=True), Column("payload", Text))
    table.create(engine, checkfirst=True)
    app = FastAPI()

    @app.post("/floor")
    def floor(body: dict[str, str]) -> dict[str, bool]:
        with engine.begin() as conn:
            conn.execute(table.insert().values(payload=body.get("payload", "")))
        return {"ok": True}

    import socket

    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    listening = config.bind_socket()
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as `scat serve` does
    uvicorn.Server(config).run(sockets=[listening])


@contextmanager
def floor_process(url: str) -> Iterator[str]:
    """The floor app in its own process; yields its base URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, __file__, "--serve-floor", url, str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.post(f"{base}/floor", json={"payload": "warm"}, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield base
    finally:
        process.terminate()
        process.wait(15)


def http_client(base: str) -> httpx.Client:
    """An HTTP client as the CLI's (TCP_NODELAY)."""
    import socket

    transport = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    return httpx.Client(base_url=base, timeout=60, transport=transport)


class Player:
    """One client playing one game against a bot, one command per request."""

    def __init__(self, base: str) -> None:
        self.http = http_client(base)
        self.new_game()
        self.ok: dict[str, int] = {}

    def new_game(self) -> None:
        created = self.http.post("/games", json={"players": [{"name": "you"}, {"name": "bot", "is_bot": True}],
                                                  "options": {"lives": 9}}).json()
        self.game, self.state = created["game_id"], created["state"]
        self.headers = {"authorization": f"Bearer {created['tokens']['you']}"}

    def move(self) -> None:
        """Draw or discard, whichever is due; a new game when this one is over."""
        if self.state["status"] == "finished":
            self.new_game()
            return
        if self.state["phase"] == "discard":
            path, body = "discard", {"player": "you", "card": self.state["hands"][0][0]}
        else:
            path, body = "draw", {"player": "you", "source": "stock"}
        response = self.http.post(f"/games/{self.game}/{path}", json=body, headers=self.headers)
        if response.status_code != 200:
            raise RuntimeError(f"{path}: {response.status_code} {response.text}")
        self.state = response.json()["state"]
        self.ok[self.game] = self.ok.get(self.game, 0) + 1


def load(bases: list[str], clients: int, seconds: float, floor: bool) -> tuple[float, float, float, int]:
    """(commands/s, p50 ms, p99 ms, events lost) of `clients` clients for `seconds`."""
    latencies: list[float] = []
    lock, start_line = threading.Lock(), threading.Barrier(clients + 1)
    stop = threading.Event()
    players: list[Player] = []

    def client(index: int) -> None:
        base = bases[index % len(bases)]
        mine: list[float] = []
        if floor:
            http = http_client(base)
            start_line.wait()
            while not stop.is_set():
                began = time.perf_counter()
                http.post("/floor", json={"payload": uuid.uuid4().hex}).raise_for_status()
                mine.append(time.perf_counter() - began)
        else:
            player = Player(base)
            with lock:
                players.append(player)
            start_line.wait()
            while not stop.is_set():
                began = time.perf_counter()
                player.move()
                mine.append(time.perf_counter() - began)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    start_line.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    lost = 0
    for player in players:  # every command answered 200 is in the log, once
        for game, ok in player.ok.items():
            events = player.http.get(f"/games/{game}/log", params={"as": "you"}, headers=player.headers).json()
            mine = [e for e in events["events"] if e["type"] in ("CardDrawn", "CardDiscarded")
                    and e["data"]["player"] == "you"]
            lost += max(0, ok - len(mine))
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return len(latencies) / elapsed, statistics.median(latencies) * 1000, p99 * 1000, lost


def watch_latency(mover: str, watcher: str, moves: int = 30) -> tuple[float, float]:
    """(p99 of move-to-watcher ms, p99 of the mover's own request ms) across two processes."""
    player = Player(mover)
    seen: dict[int, float] = {}
    ready = threading.Event()

    def watch() -> None:
        try:
            follow()
        except httpx.HTTPError:  # the server stopped at the end of the run
            return

    def follow() -> None:
        with httpx.Client(base_url=watcher, timeout=120) as http, http.stream(
                "GET", f"/games/{player.game}/events", params={"after": player.state["version"]}) as stream:
            ready.set()
            for line in stream.iter_lines():
                if line.startswith("id:"):
                    seen[int(line[3:])] = time.perf_counter()
                if len(seen) >= 10_000 or player.state["status"] == "finished" and not line:
                    return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    ready.wait(10)
    time.sleep(0.3)
    delays, requests = [], []
    for _ in range(moves):
        if player.state["status"] == "finished":
            break
        first = player.state["version"] + 1
        began = time.perf_counter()
        player.move()
        requests.append(time.perf_counter() - began)
        deadline = time.perf_counter() + 10
        while first not in seen and time.perf_counter() < deadline:
            time.sleep(0.0005)
        delays.append(seen.get(first, deadline) - began)
    delays.sort()
    requests.sort()
    return delays[int(len(delays) * 0.99) - 1] * 1000, requests[int(len(requests) * 0.99) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="load per configuration (default 3)")
    parser.add_argument("--pg", default=os.environ.get("SCAT_TEST_POSTGRES_URL"), help="a PostgreSQL URL to fill")
    parser.add_argument("--verify-only", action="store_true", help="only the cost of authenticating a request")
    parser.add_argument("--serve-floor", nargs=2, metavar=("URL", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_floor:
        serve_floor(args.serve_floor[0], int(args.serve_floor[1]))
        return
    from scat_core.store.sql.database import ensure_schema, make_engine

    databases = {"sqlite": f"sqlite:///{tempfile.mkdtemp()}/bench.db"}
    if args.pg:
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url

        schema = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(args.pg, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        databases["postgresql"] = make_url(args.pg).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    for url in databases.values():
        engine = make_engine(url)
        ensure_schema(engine)
        engine.dispose()
    verdicts: list[str] = []
    try:
        for url in databases.values():
            verdicts += verification_costs(url)
        print()
        if args.verify_only:
            databases = {}
        else:
            print(f"{'database':<11} {'procs':>5} {'clients':>7} {'cmd/s':>8} {'floor/s':>8} {'ratio':>6} "
                  f"{'p50 ms':>7} {'p99 ms':>7} {'floor p99':>9} {'p99 x':>6} {'lost':>4}")
        for name, url in databases.items():
            floors = {}
            with floor_process(url) as floor:
                for clients in CLIENTS:
                    floors[clients] = load([floor], clients, args.seconds, floor=True)
            for processes in ((1, 2) if name == "postgresql" else (1,)):
                with ExitStack() as stack:
                    bases = [stack.enter_context(server_process(url))[0] for _ in range(processes)]
                    for clients in CLIENTS:
                        rate, p50, p99, lost = load(bases, clients, args.seconds, floor=False)
                        floor_rate, _, floor_p99, _ = floors[clients]
                        print(f"{name:<11} {processes:>5} {clients:>7} {rate:>8.0f} {floor_rate:>8.0f} "
                              f"{rate / floor_rate:>6.2f} {p50:>7.1f} {p99:>7.1f} {floor_p99:>9.1f} "
                              f"{p99 / floor_p99:>6.2f} {lost:>4}", flush=True)
                        if name == "postgresql" and clients == 8:
                            verdicts.append(f"PG {processes} proc, 8 clients: throughput {rate / floor_rate:.2f}x "
                                            f"floor (goal >= {THROUGHPUT_GOAL}x), p99 {p99 / floor_p99:.2f}x floor "
                                            f"(goal <= {P99_GOAL}x)")
                        if lost:
                            verdicts.append(f"{name} {processes} proc {clients} clients: {lost} events lost (goal 0)")
                    if name == "postgresql" and processes == 2:
                        to_watcher, request = watch_latency(bases[0], bases[1])
                        verdicts.append(f"PG move -> watcher on the other process: p99 {to_watcher:.1f} ms; the "
                                        f"mover's own request p99 {request:.1f} ms (goal: watcher <= request)")
    finally:
        if args.pg:
            with admin.connect() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    print()
    for verdict in verdicts:
        print(verdict)


if __name__ == "__main__":
    main()

"""One abusive account beside ten honest players: what each abuse costs the honest players' requests.

    .venv/bin/python tests/benchmarks/bench_abuse.py [--seconds 4] [--rounds 3] [--postgres URL]

A `scat serve` (its defaults: the limits an operator gets) over a database of 2,000 finished
games. Ten honest players, each an account playing its own game against a bot, send one
request after the other (a look at their game, its head, a signed move) from this process;
their latencies are measured. Each abuse runs as the red team ran it, from one account on
one connection of its own process, back to back, beside them for `--seconds`, each abused run
right after a quiet run of the same length, `--rounds` times in turn (the machine's load moves
both alike; the ratios are of all the rounds' requests):

- waiting-3000: `POST /waiting` with 3,000 random short tokens, under the 64 KiB a body may have (the
  most a wait may send is 100);
- waiting-100: the same with the 100 tokens a wait may send, its stream closed once it began;
- list-1000000: `GET /games?limit=1000000` over the 2,000 games (a page holds at most 100);
- list-pages: every page of `GET /games/page`, following the cursor through the 2,000 games;
- create: new games seating another account, as fast as the server takes them (20 an hour, 5 at once).

It prints, per abuse, the honest players' p50 and p99 (ms) quiet and abused, and each ratio
next to the goal (<= 1.5x), and what the abuser's requests were answered (their statuses).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import httpx  # noqa: E402

from scat_cli.wiring import open_database  # noqa: E402

GOAL = 1.5
GAMES = 2000
HONEST = 10
ABUSES = ("waiting-3000", "waiting-100", "list-1000000", "list-pages", "create")


def populated(url: str) -> None:
    """The database at `url` migrated and holding GAMES finished bot games (through the bulk path)."""
    from populate import bulk_append, clone_id, clones, play_bot_games

    from tests.support.databases import migrated

    migrated(url)
    service = open_database(url)
    try:
        played = play_bot_games(service, 8, names=["ann", "bob", "cy"])
        bulk_append(service, clones(played, [clone_id(number) for number in range(GAMES - 8)], snapshots=True))
    finally:
        service.store.engine.dispose()


def signer(api: httpx.Client, name: str) -> Any:
    from tests.support.signing import Signer

    return Signer(api, name)


class Honest:
    """One honest player: an account, its game against a bot, and the latency of every request it sent."""

    def __init__(self, base: str, name: str) -> None:
        self.api = httpx.Client(base_url=base, timeout=120)
        self.name, self.me = name, signer(self.api, name)
        self.new_game()
        self.timed: list[float] = []

    def new_game(self) -> None:
        """A new game against a bot; past his share of new games (he plays far faster than a person: a game
        ends every few seconds), as another account, as the next player to come would."""
        body = json.dumps({"players": [{"name": self.name}, {"name": "bot", "is_bot": True}],
                           "options": {"lives": 9}}).encode()
        created = self.me.post("/games", body)
        if created.status_code == 429:
            self.name = f"{self.name.split('-')[0]}-{uuid.uuid4().hex[:6]}"
            self.me = signer(self.api, self.name)
            self.new_game()
            return
        if created.status_code != 201:
            raise RuntimeError(f"{self.name} could not create a game: {created.status_code} {created.text}")
        self.game = created.json()["game_id"]

    def _get(self, target: str) -> Any:
        started = time.perf_counter()
        answer = self.api.get(target, headers=self.me.headers("GET", target))
        self.timed.append(time.perf_counter() - started)
        if answer.status_code != 200:
            raise RuntimeError(f"{self.name}: GET {target} {answer.status_code} {answer.text}")
        return answer.json()

    def step(self) -> None:
        """A look at his game, then the move due (its head first, as a signed move is made)."""
        from scat_cli.wire.move_request import move_body
        from scat_core.domain import commands as cmd
        from scat_core.records.signing import sign_move

        state = self._get(f"/games/{self.game}?as={self.name}")["state"]
        if state["status"] != "active":
            self.new_game()
            return
        command: cmd.PlayerCommand = (cmd.Draw(player=self.name, source="stock") if state["phase"] == "draw"
                                      else cmd.Discard(player=self.name, card=state["hands"][0][0]))
        head = self._get(f"/games/{self.game}/head")
        signature = sign_move(self.me.key, self.me.key_id, self.game, head["seq"], head["tag"], command)
        body = json.dumps({**move_body(command), "signature": signature.to_json()}).encode()
        started = time.perf_counter()
        moved = self.me.post(f"/games/{self.game}/moves", body)
        self.timed.append(time.perf_counter() - started)
        if moved.status_code != 200:
            raise RuntimeError(f"{self.name}: move {moved.status_code} {moved.text}")


def honest_run(players: list[Honest], seconds: float) -> list[float]:
    """Every honest player stepping for `seconds`; the latencies (s) of their requests."""
    for player in players:
        player.timed = []
    stop = time.monotonic() + seconds
    failures: list[BaseException] = []

    def play(player: Honest) -> None:
        try:
            while time.monotonic() < stop:
                player.step()
        except BaseException as error:  # noqa: BLE001 (told after the run)
            failures.append(error)

    threads = [threading.Thread(target=play, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError(f"an honest player failed: {failures[0]}")
    return [latency for player in players for latency in player.timed]


def registered(api: httpx.Client, name: str, key_hex: str) -> Any:
    """The account `name` registered before, whose private key is `key_hex`, signing on `api`."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from scat_core.domain.accounts import key_id_of
    from tests.support.signing import Signer, public_of

    account = Signer.__new__(Signer)
    account.api, account.name, account.key = api, name, Ed25519PrivateKey.from_private_bytes(bytes.fromhex(key_hex))
    account.key_id = key_id_of(public_of(account.key))
    return account


def abuse(base: str, kind: str, seconds: float, key_hex: str) -> None:
    """The abuser's process: one account (flo, its key `key_hex`), one connection, `kind` back to back for
    `seconds`; prints the statuses it got, as JSON."""
    api = httpx.Client(base_url=base, timeout=120)
    flo, victim = registered(api, "flo", key_hex), "vic"
    statuses: dict[str, int] = {}
    stop = time.monotonic() + seconds

    def count(status: int) -> None:
        statuses[str(status)] = statuses.get(str(status), 0) + 1

    while time.monotonic() < stop:
        if kind.startswith("waiting"):
            many, size = (3000, 2) if kind == "waiting-3000" else (100, 32)  # 3,000 short ones: under 64 KiB
            body = json.dumps({"player": flo.name, "tokens": {uuid.uuid4().hex[:10]: uuid.uuid4().hex[:size]
                                                              for _ in range(many)}}).encode()
            with api.stream("POST", "/waiting", content=body, headers=flo.headers("POST", "/waiting", body)) as got:
                count(got.status_code)
                for line in got.iter_lines():
                    if line.startswith("event: told") or not line:
                        break  # the stream began: closed, and opened again
        elif kind == "list-1000000":
            target = "/games?limit=1000000"
            count(api.get(target, headers=flo.headers("GET", target)).status_code)
        elif kind == "list-pages":
            after = ""
            while time.monotonic() < stop:
                target = "/games/page?limit=100" + (f"&after={after}" if after else "")
                page = api.get(target, headers=flo.headers("GET", target))
                count(page.status_code)
                after = page.json().get("next") or "" if page.status_code == 200 else ""
                if not after:
                    break
        else:
            body = json.dumps({"players": [{"name": flo.name}, {"name": victim}]}).encode()
            count(flo.post("/games", body).status_code)
    print(json.dumps(statuses))


def ms(values: list[float], quantile: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(quantile * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="each quiet and each abused run")
    parser.add_argument("--rounds", type=int, default=3, help="quiet and abused runs in turn, per abuse")
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL database (a schema of its own is made)")
    parser.add_argument("--abuse", nargs=4, metavar=("BASE", "KIND", "SECONDS", "KEY"), help=argparse.SUPPRESS)
    given = parser.parse_args()
    if given.abuse:
        base, kind, seconds, keys = given.abuse
        abuse(base, kind, float(seconds), keys)
        return
    from bench_server import started

    with tempfile.TemporaryDirectory(prefix="scat-abuse-") as folder:
        os.environ["SCAT_KEY_FILE"] = str(Path(folder) / "server.pem")  # the server's, and the clones'
        os.environ["XDG_CONFIG_HOME"] = str(Path(folder) / "config")
        url = f"sqlite:///{Path(folder) / 'abuse.db'}"
        if given.postgres:
            from sqlalchemy import create_engine, text
            from sqlalchemy.engine import make_url

            schema = f"scat_abuse_{uuid.uuid4().hex[:8]}"
            with create_engine(given.postgres, isolation_level="AUTOCOMMIT").connect() as conn:
                conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            url = make_url(given.postgres).update_query_dict(
                {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
        started_at = time.monotonic()
        populated(url)
        print(f"{GAMES} games stored in {time.monotonic() - started_at:.0f} s; {HONEST} honest players, "
              f"{given.rounds} x {given.seconds:g} s quiet and abused, "
              f"on {'PostgreSQL' if given.postgres else 'SQLite'}")
        env = {**os.environ, "SCAT_SERVER": ""}
        serve = [sys.executable, "-c", "from scat_cli.app import main; main()", "serve", "--db", url,
                 "--port", "{port}"]
        with started(serve, env, "/health", "scat serve") as (base, _):
            players = [Honest(base, f"honest{number}") for number in range(HONEST)]
            with httpx.Client(base_url=base, timeout=120) as api:  # one abusive account for every run
                keys = signer(api, "flo").key.private_bytes_raw().hex()
                signer(api, "vic")  # whom its games seat
            honest_run(players, 1.0)  # warm
            print(f"{'abuse':<14} {'p50 quiet':>9} {'abused':>8} {'ratio':>6}   {'p99 quiet':>9} {'abused':>8} "
                  f"{'ratio':>6}   goal   the abuser's answers")
            for kind in ABUSES:
                quiet: list[float] = []
                abused: list[float] = []
                answered: dict[str, int] = {}
                for _ in range(given.rounds):  # quiet and abused in turn: the machine's load moves both alike
                    quiet += honest_run(players, given.seconds)
                    abuser = subprocess.Popen([sys.executable, __file__, "--abuse", base, kind, str(given.seconds + 1),
                                               keys], env=env, stdout=subprocess.PIPE, text=True)
                    time.sleep(0.5)  # its account registered, its first requests sent
                    abused += honest_run(players, given.seconds)
                    out, _ = abuser.communicate(timeout=given.seconds * 10 + 60)
                    for status, count in json.loads(out).items():
                        answered[status] = answered.get(status, 0) + count
                out = json.dumps(answered)
                p50 = (ms(quiet, 0.5), ms(abused, 0.5))
                p99 = (ms(quiet, 0.99), ms(abused, 0.99))
                worst = max(p50[1] / p50[0], p99[1] / p99[0])
                print(f"{kind:<14} {p50[0]:>9.1f} {p50[1]:>8.1f} {p50[1] / p50[0]:>5.2f}x   {p99[0]:>9.1f} "
                      f"{p99[1]:>8.1f} {p99[1] / p99[0]:>5.2f}x   <= {GOAL}x {'met' if worst <= GOAL else 'MISSED'}"
                      f"   {out.strip()}  ({len(quiet)} / {len(abused)} requests timed, "
                      f"median {statistics.median(quiet) * 1000:.1f} ms)")


if __name__ == "__main__":
    main()

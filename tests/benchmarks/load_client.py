"""The lean load client of bench_server.py: one process, asyncio, one keep-alive connection per client.

    python tests/benchmarks/load_client.py '{"bases": [...], "clients": 8, "seconds": 3, "floor": false}'

Each client opens its own connection (HTTP/1.1 keep-alive, TCP_NODELAY, written and read by
hand on asyncio streams: no HTTP library's work per request), then, once every client is
ready, sends one request after the other for `seconds`: a move in its own game against a bot
(draw, then discard; a new game when one ends), or the floor's one INSERT. Afterwards
(untimed) it reads each game's log to count the moves answered 200 that are not in it. It
prints one JSON line: requests/s, p50 and p99 (ms), events lost, the requests timed and the
CPU this process used (to show it is not the bottleneck). Nothing but the standard library,
except with `"signed": true`: then each client is an account with its own Ed25519 key (scat's
signing code), signs every request (RFC 9421, scat_cli/wire/httpsig.py) and every move, at
the position the answer before it carried (no look at the head between moves), as a long-lived
client of a server without tokens does.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
import uuid
from typing import Any
from urllib.parse import urlsplit


class Connection:
    """One keep-alive HTTP/1.1 connection, written and read by hand."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        self.writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    async def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                      signer: Any = None, again: bool = True) -> tuple[int, Any]:
        """(status, the JSON body) of one request on this connection (opened again, the request
        sent anew, if the server closed it while idle: uvicorn's keep-alive timeout, or scat's
        408 to a connection that sent no request in time; nothing of the request was read then),
        with a token, or signed by `signer` (an Account)."""
        data = b"" if body is None else json.dumps(body).encode()
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        if signer is not None:
            auth += "".join(f"{name}: {value}\r\n" for name, value in signer.headers(method, path, data).items())
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n{auth}\r\n").encode()
        for attempt in range(2):
            assert self.reader is not None and self.writer is not None
            if self.reader.at_eof() and attempt == 0:
                await self.reopen()
                continue
            try:
                self.writer.write(head + data)
                status_line = await self.reader.readline()
            except ConnectionError:
                status_line = b""
            if status_line:
                break
            if attempt == 1:
                raise ConnectionError(f"{method} {path}: the server closed the connection")
            await self.reopen()
        status = int(status_line.split()[1])
        length, chunked = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
        if chunked:
            payload = b""
            while size := int((await self.reader.readline()).strip(), 16):
                payload += await self.reader.readexactly(size)
                await self.reader.readline()
            await self.reader.readline()
        else:
            payload = await self.reader.readexactly(length)
        if status == 408 and again:  # RFC 9110: a 408 may be repeated on a new connection
            await self.reopen()
            return await self.request(method, path, body, token, signer, again=False)
        return status, json.loads(payload) if payload else None

    async def reopen(self) -> None:
        self.close()
        await self.open()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Account:
    """A load client's account on the server: its own key, which signs its requests and moves."""

    def __init__(self) -> None:
        import base64
        import time

        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from scat_cli.wire import httpsig
        from scat_core.domain.accounts import key_id_of

        self.key = Ed25519PrivateKey.generate()
        self.public_key = base64.b64encode(self.key.public_key().public_bytes_raw()).decode("ascii")
        self.key_id = key_id_of(self.public_key)
        self.name = "m" + uuid.uuid4().hex[:12]
        self._sign, self._now = httpsig.sign, time.time
        self.server = ""  # the server's key id, which each signed request names (GET /key)

    def headers(self, method: str, target: str, body: bytes) -> dict[str, str]:
        """The headers that sign this request now."""
        return self._sign(self.key, self.key_id, method, target, body, int(self._now()), self.server)

    def move_signature(self, game: str, position: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        """The signature of the move `body` at `position` (seq and tag) of `game`, as the wire carries it."""
        from scat_core.domain import commands as cmd
        from scat_core.records.signing import sign_move

        command = (cmd.Discard(player=self.name, card=body["card"]) if "card" in body
                   else cmd.Draw(player=self.name, source=body["source"]))
        signed = sign_move(self.key, self.key_id, game, position["seq"], position["tag"], command)
        return signed.to_json()


class Mover:
    """One client playing its own games against a bot, one command a request."""

    def __init__(self, conn: Connection, signed: bool = False) -> None:
        self.conn = conn
        self.ok: dict[str, int] = {}
        self.game, self.token = "", ""
        self.state: dict[str, Any] = {}
        self.account = Account() if signed else None
        self.me = self.account.name if self.account is not None else "you"
        self.position: dict[str, Any] = {}

    async def register(self) -> None:
        """Register this client's account (signed mode; untimed)."""
        assert self.account is not None
        status, key = await self.conn.request("GET", "/key")
        if status != 200:
            raise RuntimeError(f"key: {status} {key}")
        self.account.server = key["key_id"]
        status, answer = await self.conn.request("POST", "/accounts", {
            "name": self.account.name, "public_key": self.account.public_key}, signer=self.account)
        if status != 201:
            raise RuntimeError(f"register: {status} {answer}")

    async def new_game(self) -> None:
        body = {"players": [{"name": self.me}, {"name": "bot", "is_bot": True}], "options": {"lives": 9},
                "viewer": self.me}
        status, created = await self.conn.request("POST", "/games", body, signer=self.account)
        for _ in range(5):  # SQLite: "database busy" (409) while other clients' games are made
            if status != 409:
                break
            await asyncio.sleep(0.5)
            status, created = await self.conn.request("POST", "/games", body, signer=self.account)
        if status >= 300:
            raise RuntimeError(f"new game: {status} {created}")
        self.game, self.state = created["game_id"], created["state"]
        self.token = created["tokens"].get(self.me, "")
        self.position = created.get("position") or {}

    async def step(self) -> None:
        """Draw or discard, whichever is due; a new game when this one is over."""
        if self.state["status"] == "finished":
            await self.new_game()
            return
        if self.state["phase"] == "discard":
            body = {"move": "discard", "player": self.me, "card": self.state["hands"][0][0]}
        else:
            body = {"move": "draw", "player": self.me, "source": "stock"}
        if self.account is not None:
            body["signature"] = self.account.move_signature(self.game, self.position, body)
        status, played = await self.conn.request("POST", f"/games/{self.game}/moves", body, self.token or None,
                                                 signer=self.account)
        if status != 200:
            raise RuntimeError(f"{body['move']}: {status} {played}")
        self.state, self.position = played["state"], played.get("position") or {}
        self.ok[self.game] = self.ok.get(self.game, 0) + 1

    async def lost(self) -> int:
        """The moves answered 200 that are not in their game's log."""
        lost = 0
        for game, ok in self.ok.items():
            _, log = await self.conn.request("GET", f"/games/{game}/log?as={self.me}", token=self.token or None,
                                             signer=self.account)
            mine = [e for e in log["events"] if e["type"] in ("CardDrawn", "CardDiscarded")
                    and e["data"]["player"] == self.me]
            lost += max(0, ok - len(mine))
        return lost


async def drive(bases: list[str], clients: int, seconds: float, floor: bool, signed: bool = False,
                server_pids: list[int] | None = None) -> dict[str, Any]:
    server_pids = server_pids or []
    conns = [Connection(bases[index % len(bases)]) for index in range(clients)]
    await asyncio.gather(*(conn.open() for conn in conns))
    movers = [Mover(conn, signed) for conn in conns]
    gate = asyncio.Semaphore(4)  # untimed, a few at a time: a new game and one move each (warm code paths)

    async def ready(mover: Mover) -> None:
        async with gate:
            if floor:
                await mover.conn.request("POST", "/floor", {"payload": "warm"})
            else:
                if mover.account is not None:
                    await mover.register()
                await mover.new_game()
                await mover.step()

    await asyncio.gather(*(ready(mover) for mover in movers))
    latencies: list[float] = []
    started = asyncio.Event()
    ends = [0.0]

    async def client(index: int) -> None:
        await started.wait()
        clock, mover, conn = time.perf_counter, movers[index], conns[index]
        while (began := clock()) < ends[0]:
            if floor:
                status, _ = await conn.request("POST", "/floor", {"payload": uuid.uuid4().hex})
                if status != 200:
                    raise RuntimeError(f"floor: {status}")
            else:
                await mover.step()
            done = clock()
            answered[0] += 1
            if done <= ends[0]:
                latencies.append(done - began)

    answered = [0]  # every request answered while timed, those that end after the time too
    cpu, servers = time.process_time(), sum(map(cpu_seconds, server_pids))
    tasks = [asyncio.create_task(client(index)) for index in range(clients)]
    began = time.perf_counter()
    ends[0] = began + seconds
    started.set()
    await asyncio.gather(*tasks)
    cpu, servers = time.process_time() - cpu, sum(map(cpu_seconds, server_pids)) - servers
    lost = 0 if floor else sum(await asyncio.gather(*(mover.lost() for mover in movers)))
    for conn in conns:
        conn.close()
    latencies.sort()
    count = len(latencies)
    return {"rate": count / seconds, "p50": latencies[count // 2] * 1000 if count else 0.0,
            "p99": latencies[min(count - 1, int(count * 0.99))] * 1000 if count else 0.0, "lost": lost,
            "requests": count, "client_cpu": cpu / seconds, "pid": os.getpid(),
            "server_ms": servers * 1000 / max(1, answered[0])}


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system, every thread) a process of this machine has used, s (0 if unreadable)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def main() -> None:
    job = json.loads(sys.argv[1])
    print(json.dumps(asyncio.run(drive(job["bases"], job["clients"], job["seconds"], job["floor"],
                                       job.get("signed", False), job.get("server_pids", [])))), flush=True)


if __name__ == "__main__":
    main()

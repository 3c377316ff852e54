"""The client of `scat serve`: the game service's methods and result types, over HTTP (httpx).

The CLI calls it exactly as it calls GameService (`scat_cli.common.service` picks one), so
every command prints the same output and exit codes through `--server`. What comes back is
already redacted by the server for the authenticated viewer: a client never holds a card its
user may not see.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import httpx

from scat_cli.server import wire
from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.audit import AuditReport
from scat_core.domain.errors import AuthFailed, BadInput, ConcurrencyConflict, NotFound, RuleViolation, ScatError
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.service.games import Outcome
from scat_core.store.event_store import GameRow
from scat_core.store.records import StoredEvent

TIMEOUT = httpx.Timeout(30.0, connect=5.0)
_ERRORS: dict[int, type[ScatError]] = {1: RuleViolation, 2: BadInput, 3: AuthFailed, 4: NotFound,
                                       5: ConcurrencyConflict}
_MOVES = {cmd.Draw: "draw", cmd.Discard: "discard", cmd.Knock: "knock", cmd.Declare31: "declare",
          cmd.ThrowDown: "throw-down", cmd.Resign: "resign"}


@dataclass(frozen=True)
class RemoteOutcome(Outcome):
    """An Outcome whose events the server already redacted: for its viewer, and for the public."""

    viewer: str | None = None
    public: tuple[StoredEvent, ...] = field(default_factory=tuple)

    def seen_by(self, viewer: str | None) -> list[tuple[StoredEvent, ev.Event]]:
        """The events as `viewer` saw them (as the public did, for anyone but the viewer)."""
        mine = viewer is not None and self.viewer is not None and viewer.casefold() == self.viewer.casefold()
        return [(stored, stored.event) for stored in (self.events if mine else self.public)]


def _outcome(body: dict[str, Any]) -> RemoteOutcome:
    out = wire.OutcomeOut.model_validate(body)
    return RemoteOutcome(out.game_id, out.state, [e.stored() for e in out.events], dict(out.tokens), out.before,
                         viewer=out.viewer, public=tuple(e.stored() for e in out.public_events))


def _report(body: dict[str, Any]) -> AuditReport:
    return AuditReport(**wire.AuditOut.model_validate(body).model_dump())


class RemoteGames:
    """The game service of a Scat backend at `base_url` (`scat --server URL`)."""

    remote = True

    def __init__(self, base_url: str, transport: httpx.BaseTransport | None = None) -> None:
        self.base_url = base_url
        if transport is None:  # a request's headers and body go out at once (no Nagle wait)
            transport = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        self.http = httpx.Client(base_url=base_url, timeout=TIMEOUT, transport=transport,
                                 headers={"user-agent": "scat-cli"})
        self._read_only: dict[str, bool] = {}

    def __enter__(self) -> RemoteGames:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    # ---- the wire ------------------------------------------------------------------------

    def request(self, method: str, path: str, *, token: str | None = None, params: Mapping[str, Any] | None = None,
                json: Any = None) -> Any:
        """Send one request; a refusal raises the ScatError the server named, with its message."""
        headers = {"authorization": f"Bearer {token}"} if token else {}
        query = {key: value for key, value in (params or {}).items() if value is not None}
        try:
            response = self.http.request(method, path, params=query, json=json, headers=headers)
        except httpx.TimeoutException:
            raise BadInput(f"the server {self.base_url} did not answer in time") from None
        except httpx.HTTPError as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise BadInput(f"cannot reach the server {self.base_url}: {reason}") from None
        if response.status_code < 400:
            return response.json()
        self._raise(response)

    def _raise(self, response: httpx.Response) -> NoReturn:
        """Raise the ScatError a refusal names, with its message."""
        try:
            problem = wire.ErrorOut.model_validate(response.json())
        except ValueError:
            raise RuleViolation(f"the server {self.base_url} answered {response.status_code} "
                                f"{response.reason_phrase}: is it a scat server?") from None
        raise _ERRORS.get(problem.exit_code, RuleViolation)(problem.error)

    @staticmethod
    def _game(game_id: str) -> str:
        from urllib.parse import quote

        return "/games/" + quote(game_id, safe="")

    # ---- playing -------------------------------------------------------------------------

    def create_game(self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None,
                    dealer: str | None = None, seed: int | str | None = None, deck: Sequence[str] | None = None,
                    protect: bool = False, viewer: str | None = None) -> RemoteOutcome:
        """Create a game on the server (always protected there); tokens come back once."""
        body = {"players": [seat.model_dump() for seat in players],
                "options": (options or GameOptions()).model_dump(), "dealer": dealer,
                "seed": int(seed) if seed is not None else None, "deck": list(deck) if deck is not None else None,
                "viewer": viewer}
        return _outcome(self.request("POST", "/games", json=body))

    def act(self, game_id: str, command: cmd.PlayerCommand, token: str | None = None) -> RemoteOutcome:
        """A player's move, then the bots' answer, as the server tells it to the mover."""
        body: dict[str, Any] = {"player": command.player}
        if isinstance(command, cmd.Draw):
            body["source"] = command.source
        if isinstance(command, cmd.Discard):
            body["card"] = command.card
        path = f"{self._game(game_id)}/{_MOVES[type(command)]}"
        return _outcome(self.request("POST", path, token=token, json=body))

    def look(self, game_id: str, player: str | None = None, token: str | None = None) -> GameState:
        """The game as `player` (None: the public) may see it."""
        out = wire.ViewOut.model_validate(self.request("GET", self._game(game_id), token=token,
                                                       params={"as": player}))
        self._read_only[game_id] = out.read_only
        return out.state

    def is_read_only(self, game_id: str) -> bool:
        """Whether a running game was imported without its seed (read-only on the server)."""
        if game_id not in self._read_only:
            self.look(game_id)
        return self._read_only[game_id]

    # ---- waiting -------------------------------------------------------------------------

    def wait_for_event(self, game_id: str, after: int, timeout: float | None = None) -> bool:
        """Block until the game has an event after seq `after` (the server's event stream pushes
        it); False when `timeout` seconds pass first."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        stream_timeout = httpx.Timeout(30.0, connect=5.0, read=30.0)  # the server says something each second
        try:
            with self.http.stream("GET", f"{self._game(game_id)}/events", params={"after": after},
                                  timeout=stream_timeout) as response:
                if response.status_code >= 400:
                    response.read()
                    self._raise(response)
                for line in response.iter_lines():
                    if line.startswith("id:") and int(line[3:].strip() or 0) > after:
                        return True
                    if deadline is not None and time.monotonic() >= deadline:
                        return False
        except httpx.TimeoutException:
            raise BadInput(f"the server {self.base_url} stopped answering") from None
        except httpx.HTTPError as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise BadInput(f"lost the server {self.base_url}: {reason}") from None
        return True  # the stream ended: the game is over

    # ---- reading -------------------------------------------------------------------------

    def list_games_read_only(self, status: str | None = None,
                             waiting_for: str | None = None) -> tuple[list[GameRow], set[str]]:
        """The games list, and the ids of the games listed that are read-only there."""
        out = wire.GamesOut.model_validate(self.request("GET", "/games", params={"status": status,
                                                                                "waiting_for": waiting_for}))
        rows = [GameRow(**{**row.model_dump(), "players": tuple(row.players), "bots": tuple(row.bots)})
                for row in out.games]
        return rows, set(out.read_only)

    def chosen_chance(self, game_ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        """For each game: (its seed was chosen at creation, its first deck was)."""
        out = wire.ChanceOut.model_validate(self.request("POST", "/chance", json={"game_ids": list(game_ids)}))
        return {game_id: (bool(flags[0]), bool(flags[1])) for game_id, flags in out.chosen.items()}

    def list_games(self, status: str | None = None, waiting_for: str | None = None) -> list[GameRow]:
        """The games list, newest activity first."""
        return self.list_games_read_only(status, waiting_for)[0]

    def look_at_history(self, game_id: str, viewer: str | None = None, token: str | None = None,
                        up_to: int | None = None, as_then: bool = False
                        ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]:
        """The state after `up_to` and each event as `viewer` may see it (the server redacts)."""
        path = f"{self._game(game_id)}/{'replay' if as_then else 'log'}"
        params = {"as": viewer, "to": up_to} if as_then else {"as": viewer}
        if up_to is not None and not as_then:
            raise BadInput("the server's log has no --to: use replay")
        out = wire.HistoryOut.model_validate(self.request("GET", path, token=token, params=params))
        shown = [event.stored() for event in out.events]
        return out.state, [(stored, stored.event) for stored in shown]

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game on the server whose id is or starts with `given`."""
        from urllib.parse import quote

        wanted = given.strip()
        if not wanted:
            raise BadInput("a game id cannot be empty (see `scat games`)")
        return wire.GameIdOut.model_validate(self.request("GET", "/ids/" + quote(wanted, safe=""))).game_id

    def news(self, game_id: str, viewer: str, token: str | None = None) -> Any:
        """The events since `viewer` last acted, as the server lets him see them (a News)."""
        from scat_core.service.news import News

        out = wire.NewsOut.model_validate(self.request("GET", f"{self._game(game_id)}/news", token=token,
                                                       params={"as": viewer}))
        shown = [event.stored() for event in out.events]
        return News(out.state, out.before, [(stored, stored.event) for stored in shown])

    def game_result(self, game_id: str) -> Any:
        """The result of a finished game (a GameResult)."""
        from pydantic import TypeAdapter

        from scat_core.service.outcomes import GameResult

        return TypeAdapter(GameResult).validate_python(self.request("GET", f"{self._game(game_id)}/result"))

    # ---- the archive ---------------------------------------------------------------------

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """The server's audit of one game (its signature checked against the keys the server trusts)."""
        return _report(self.request("GET", f"{self._game(game_id)}/audit", params={"strict": strict}))

    def game_ids(self) -> list[str]:
        """Every game on the server, oldest activity first."""
        return [row.game_id for row in reversed(self.list_games())]

    def running_games(self) -> dict[str, bool]:
        """Every game still running, each with whether it is protected."""
        return {row.game_id: row.protected for row in self.list_games(status="active")}

    def export_records(self, game_id: str, *, running: bool = False) -> list[dict[str, Any]]:
        """The full records of a finished game (a server exports no running game)."""
        return list(wire.RecordsOut.model_validate(self.request("GET", f"{self._game(game_id)}/export")).records)

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False) -> AuditReport:
        """Send an export to the server, which audits it and stores it only if it holds."""
        return _report(self.request("POST", "/import", json={"records": [dict(r) for r in records],
                                                               "strict": strict}))

    # ---- statistics ----------------------------------------------------------------------

    def stats(self, player: str | None = None, rebuild: bool = False) -> Any:
        """The server's statistics (a StatsReport); rebuilding them is for its operator."""
        from pydantic import TypeAdapter

        from scat_core.store.stats_projection import StatsReport

        if rebuild:
            raise BadInput("`stats --rebuild` rebuilds a database's projection: run it on the server with --db URL")
        return TypeAdapter(StatsReport).validate_python(self.request("GET", "/stats", params={"player": player}))

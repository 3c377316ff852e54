"""The client of `scat serve`: the game service's front-end methods and values, over HTTP.

The CLI calls it exactly as it calls GameService (`scat_cli.wiring.service` picks one), so
every command prints the same output and exit codes through `--server`. Each method is one
request; the server answers with the service's own values (scat_core.service.values),
already redacted for the authenticated viewer: a client never holds a card its user may not see.
"""

# Imports inside functions: start-up time; the client loads only what a request needs.
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from pydantic import TypeAdapter

from scat_cli.errors import ServerLost
from scat_cli.remote.backoff import Backoff
from scat_cli.remote.transport import READ_TIMEOUT, Answer, Connection, TransportError, TransportTimeout
from scat_cli.wire import answers
from scat_cli.wire.move_request import move_body
from scat_core.domain import events as ev
from scat_core.domain.audit_report import AuditReport
from scat_core.domain.errors import BadInput, NotFound, RuleViolation, Throttled, WrongServer
from scat_core.domain.options import GameOptions
from scat_core.records.errors import ConcurrencyConflict, HistoryDamaged
from scat_core.service.values import (
    Audits,
    Dashboard,
    Export,
    Exports,
    GamesPage,
    History,
    Listing,
    Played,
    Position,
    Progress,
    Ratings,
    SeenEvent,
    Shown,
    SigningKey,
    Skipped,
    Told,
    Waited,
    WaitedAny,
)

if TYPE_CHECKING:
    from scat_cli.remote.identity import Identity
    from scat_core.domain.commands import ClaimTime, PlayerCommand, TableCommand
    from scat_core.records.signing import MoveSignature
    from scat_core.records.stats import StatsReport

T = TypeVar("T")  # an item of a paged read
#: How many times a signed move is signed anew when the game moved on between its read and its post.
SIGN_ATTEMPTS = 3
THROTTLED_TRIES = 30  # a long `audit --all` slows to the user's share of the server's heavy work
THROTTLED_WAIT_MAX = 120  # seconds: a longer wait is told, not waited
#: How long the first contact with a server waits for its key (`GET /key`: an answer from memory).
KEY_TIMEOUT = 10.0
#: How long past its deadline a wait still waits for a slow server's answer (see `_read_within`).
GRACE = 5.0
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class RemoteGames:
    """The game service of a Scat backend at `base_url` (`scat --server URL`).

    Before its first request it knows the server by its key (known_servers.py: asked with `GET
    /key` the first time, trusted on first use; a known URL answering with another key is
    ServerKeyChanged). Its requests are signed, for that server, with this user's key where
    it is an account there (identity.py), or with `identity`'s key when one is given (the
    account commands).
    """

    def __init__(self, base_url: str, identity: Identity | None = None) -> None:
        self.base_url = base_url
        self._given = identity
        self._identity: Identity | None = None
        #: The key id of the server (None until the first request knows it).
        self.server_key: str | None = None
        self.http = Connection(base_url)
        self._positions: dict[str, Position] = {}  # game id: its position after this client's last move
        self._throttled_told = False
        self.sleep = time.sleep

    @property
    def identity(self) -> Identity | None:
        """Who signs this client's requests (and his moves, in a game whose seats are accounts)."""
        self._know_the_server()
        return self._identity

    def _know_the_server(self, read_timeout: float | None = None) -> None:
        """Know the server by its key before the first request: the key known for this URL (a signed
        request names it, and another server refuses it), else the one it answers `GET /key` with,
        remembered; unsigned, the key it answers with must be the one known (ServerKeyChanged)."""
        if self.server_key is not None:
            return
        from scat_cli.errors import ServerKeyChanged
        from scat_cli.remote import known_servers
        from scat_cli.remote.identity import identity_for

        known = known_servers.key_of(self.base_url)
        identity = self._given or (identity_for(known, self.base_url) if known is not None else None)
        if known is None or identity is None:
            answered = SigningKey.model_validate(self._request("GET", "/key", read_timeout=read_timeout or KEY_TIMEOUT))
            if known is None:  # trust on first use
                known_servers.remember(self.base_url, answered.key_id, answered.public_key)
                known, identity = answered.key_id, identity or identity_for(answered.key_id, self.base_url)
            elif answered.key_id != known:
                raise ServerKeyChanged.at(self.base_url, known, answered.key_id)
        self.server_key, self._identity = known, identity
        if identity is not None:
            self.http.signer = identity.signer(known)

    def __enter__(self) -> RemoteGames:
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.close()

    # ---- the wire ------------------------------------------------------------------------

    def request(self, method: str, path: str, *, token: str | None = None, params: Mapping[str, Any] | None = None,
                json: Any = None, read_timeout: float | None = None) -> Any:
        """Send one request; a refusal raises the ScatError the server named, with its message.
        Refused as Throttled (this user's share of the server's heavy work spent), it waits the
        seconds the server names and asks again (THROTTLED_TRIES in all), saying so once."""
        self._know_the_server()
        return self._request(method, path, token=token, params=params, json=json, read_timeout=read_timeout)

    def _request(self, method: str, path: str, *, token: str | None = None, params: Mapping[str, Any] | None = None,
                 json: Any = None, read_timeout: float | None = None) -> Any:
        """`request`, the server known already (or not needed: `GET /key`)."""
        headers = {"authorization": f"Bearer {token}"} if token else {}
        query = {key: value for key, value in (params or {}).items() if value is not None}
        for attempt in range(1, THROTTLED_TRIES + 1):
            try:
                response = self.http.request(method, path, params=query, json=json, headers=headers,
                                             read_timeout=read_timeout)
            except TransportTimeout:
                raise ServerLost(f"the server {self.base_url} did not answer in time") from None
            except TransportError as error:
                raise ServerLost(f"cannot reach the server {self.base_url}: {error}") from None
            if response.status < 400:
                return response.json()  # (a game state's seats count from 1 here: its value reads them, WireState)
            try:
                self._raise(response)
            except Throttled as throttled:
                wait = throttled.retry_after or 1
                if attempt == THROTTLED_TRIES or wait > THROTTLED_WAIT_MAX:
                    raise
                if not self._throttled_told:
                    print(f"scat: note: {throttled}; waiting", file=sys.stderr, flush=True)
                    self._throttled_told = True
                self.sleep(wait)
        raise AssertionError("unreachable")

    def _raise(self, response: Answer) -> NoReturn:
        """Raise the ScatError a refusal names, with its fields (the CLI words it as a local one); a
        request refused as signed for another server, as ServerKeyChanged (both keys named)."""
        try:
            problem = answers.ErrorOut.model_validate(response.json())
        except ValueError:
            raise RuleViolation(f"the server {self.base_url} answered {response.status} "
                                f"{response.reason}: is it a scat server?") from None
        if problem.type is None and response.status == 404:  # none of scat's routes: not a scat server's address
            from urllib.parse import urlsplit  # start-up time: only on this refusal

            path = urlsplit(self.base_url).path.rstrip("/")
            where = (f"give the server's address without {path!r}" if path
                     else "is it the address of a scat server of this version?")
            raise NotFound(f"the server {self.base_url} has no such page (404 Not Found): {where}")
        error = problem.raised(response.status)
        if isinstance(error, WrongServer):
            from scat_cli.errors import ServerKeyChanged

            raise ServerKeyChanged.refused(self.base_url, error.message)
        raise error

    @staticmethod
    def _game(game_id: str) -> str:
        from urllib.parse import quote

        return "/games/" + quote(game_id, safe="")

    # ---- playing and reading ------------------------------------------------------------

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game on the server whose id is or starts with `given`."""
        from urllib.parse import quote

        wanted = given.strip()
        if not wanted:
            raise BadInput("a game id cannot be empty (see `scat games`)")
        return answers.GameIdOut.model_validate(self.request("GET", "/ids/" + quote(wanted, safe=""))).game_id

    def new_game(self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None,
                 dealer: str | None = None, seed: int | str | None = None, deck: Sequence[str] | None = None,
                 protect: bool = False, viewer: str | None = None, open_seats: int = 0,
                 expires: int | None = None) -> Played:
        """Create a game on the server (always protected there); tokens come back once. An account's
        game waits for its other humans to accept and its `open_seats` to be taken (R28)."""
        body = {"players": [seat.model_dump() for seat in players],
                "options": (options or GameOptions()).model_dump(), "dealer": dealer,
                "seed": int(seed) if seed is not None else None, "deck": list(deck) if deck is not None else None,
                "viewer": viewer, "open_seats": open_seats, "expires": expires}
        return self._remember(Played.model_validate(self.request("POST", "/games", json=body)))

    def move(self, game_id: str, command: PlayerCommand, token: str | None = None,
             signature: MoveSignature | None = None) -> Played:
        """A player's move, then the bots' answer, as the server tells it to the mover (signed by
        this user's key where it is an account, see `_signed`; or with the `signature` given)."""
        return self._signed(game_id, command, token, signature)

    def claim(self, game_id: str, claimer: str | None = None, token: str | None = None,
              signature: MoveSignature | None = None) -> Played:
        """A claim of the turn of a player out of time (R28), as the server tells it to the claimer."""
        from scat_core.domain.commands import ClaimTime

        claim = ClaimTime(claimer, _EPOCH, _EPOCH)  # the server decides the times; the claimer is signed
        return self._signed(game_id, claim, token, signature)

    def ratings(self, player: str | None = None, rebuild: bool = False) -> Ratings:
        """Every rated player on the server (`rebuild` is the server's operator's: refused here)."""
        if rebuild:
            raise BadInput("--rebuild folds a server's events again: its operator runs it on its database (--db)")
        return Ratings.model_validate(self.request("GET", "/ratings", params={"player": player}))

    def status(self, player: str) -> Dashboard:
        """What waits for `player` on the server (the signing account's, on a server of accounts)."""
        return Dashboard.model_validate(self.request("GET", "/status", params={"as": player}))

    def rematch(self, game_id: str, player: str, token: str | None = None) -> Played:
        """The rematch of a finished game, as the server tells it to the player who asked; asking for
        it counts as accepting it: his seat is accepted here, signed, if the server awaits it."""
        played = Played.model_validate(self.request("POST", f"{self._game(game_id)}/rematch", token=token,
                                                    json={"player": player}))
        if played.state.status == "pending" and played.viewer in played.state.awaiting:
            return self.accept(played.game_id, played.viewer or player)
        return played

    def accept(self, game_id: str, player: str, token: str | None = None,
               signature: MoveSignature | None = None) -> Played:
        """Accept one's seat (R28), signed as a move is."""
        from scat_core.domain.commands import AcceptSeat

        return self._signed(game_id, AcceptSeat(player), token, signature)

    def decline(self, game_id: str, player: str, token: str | None = None,
                signature: MoveSignature | None = None) -> Played:
        """Decline one's seat (or withdraw one's game), signed as a move is."""
        from scat_core.domain.commands import DeclineSeat

        return self._signed(game_id, DeclineSeat(player), token, signature)

    def join(self, game_id: str, player: str, token: str | None = None,
             signature: MoveSignature | None = None) -> Played:
        """Take the game's first open seat, signed as a move is."""
        from scat_core.domain.commands import JoinGame

        return self._signed(game_id, JoinGame(player), token, signature)

    def say(self, game_id: str, player: str, text: str, token: str | None = None,
            signature: MoveSignature | None = None) -> Played:
        """One line said at the game's table, as the server tells it to its speaker (signed as a move is,
        where his moves are signed)."""
        from scat_core.domain.commands import Say

        return self._signed(game_id, Say(player, text), token, signature)

    def abandon(self, game_id: str, player: str | None = None, token: str | None = None,
                signature: MoveSignature | None = None) -> Played:
        """The game given up without a winner by its last human, as the server tells it to him
        (signed as a move is, where his moves are signed)."""
        from scat_core.domain.commands import AbandonGame

        return self._signed(game_id, AbandonGame(player), token, signature)

    def _signed(self, game_id: str, command: PlayerCommand | ClaimTime | TableCommand, token: str | None,
                signature: MoveSignature | None = None) -> Played:
        """POST a move to the game's /moves (its body `move_request.move_body`): with a token, or the `signature`
        given, as it is; as an account, signed at the game's position as this user reads it now, and
        signed anew (up to SIGN_ATTEMPTS times) if the game moved on meanwhile."""
        path, body = f"{self._game(game_id)}/moves", move_body(command)
        if signature is not None:
            body["signature"] = signature.to_json()
        unsigned = getattr(command, "claimer", "") is None  # scat's own claim (R28), which nobody signs
        unsigned = unsigned or getattr(command, "player", "") is None  # a local owner's abandon, never sent
        if token or signature is not None or self.identity is None or unsigned:
            return Played.model_validate(self.request("POST", path, token=token, json=body))
        kept = self._positions.pop(game_id, None)  # the position after this client's last move here
        attempts = SIGN_ATTEMPTS + (kept is not None)
        for attempt in range(1, attempts + 1):
            head = kept or Position.model_validate(self.request("GET", f"{self._game(game_id)}/head"))
            kept = None
            body["signature"] = self.identity.sign_move(head.game_id, head.seq, head.tag, command).to_json()
            try:
                played = Played.model_validate(self.request("POST", path, json=body))
            except ConcurrencyConflict:
                if attempt == attempts:
                    raise
                continue
            return self._remember(played)
        raise AssertionError("unreachable")

    def _remember(self, played: Played) -> Played:
        """`played`, its game's position kept for this client's next signed move in it (no GET then;
        a stale one, the game having moved meanwhile, costs one refusal and a fresh look)."""
        if played.position is not None:
            self._positions[played.game_id] = played.position
        return played

    def show(self, game_id: str, viewer: str | None = None, token: str | None = None, look: bool = True) -> Shown:
        """The game as `viewer` (None: the public) may know it, his news, the result once over
        (`look=False`: no look recorded, R23)."""
        return self._show(game_id, viewer, token, look)

    def _show(self, game_id: str, viewer: str | None, token: str | None, look: bool = True,
              read_timeout: float | None = None) -> Shown:
        params = {"as": viewer, "look": None if look else "false"}
        return Shown.model_validate(self.request("GET", self._game(game_id), token=token, params=params,
                                                 read_timeout=read_timeout))

    def log(self, game_id: str, viewer: str | None = None, token: str | None = None) -> History:
        """Every event as `viewer` may see it."""
        return History.model_validate(self.request("GET", f"{self._game(game_id)}/log", token=token,
                                                   params={"as": viewer}))

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: str | None = None) -> History:
        """The game as after event `to`, as `viewer` could see it then."""
        return History.model_validate(self.request("GET", f"{self._game(game_id)}/replay", token=token,
                                                   params={"as": viewer, "to": to}))

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None) -> list[Listing]:
        """The games list, newest activity first, at most `limit`; the server puts the games of the
        account that signs the request first."""
        rows = self.request("GET", "/games", params={"status": status, "waiting_for": waiting_for, "limit": limit})
        return TypeAdapter(list[Listing]).validate_python(rows)

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None) -> GamesPage:
        """The newest `limit` games of the list (the signing account's first, as `game_list`; None: every
        one), and how many match: page after page of at most the server's MAX_PAGE, following its cursor."""
        from scat_cli.wire.bodies import MAX_PAGE

        listed: list[Listing] = []
        after: str | None = None
        while True:
            ask = MAX_PAGE if limit is None else min(MAX_PAGE, limit - len(listed))
            page = GamesPage.model_validate(self.request("GET", "/games/page", params={
                "status": status, "waiting_for": waiting_for, "limit": ask, "after": after}))
            listed += page.games
            after = page.next
            if after is None or (limit is not None and len(listed) >= limit):
                return page.model_copy(update={"games": listed, "next": after})

    # ---- waiting -------------------------------------------------------------------------

    def _events(self, game_id: str, after: int, viewer: str | None = None, token: str | None = None,
                advice: str = "; run the command again", deadline: float | None = None,
                look: bool = True) -> Generator[str, None, None]:
        """The lines of the game's event stream (server-sent events) after seq `after`, as `viewer`
        may see them; it ends when the game is over or at `deadline` (ServerLost, with `advice`,
        when the server stops first)."""
        self._know_the_server(_read_within(deadline))
        headers = {"authorization": f"Bearer {token}"} if token else {}
        params: dict[str, str | int] = {"after": after, **({"as": viewer} if viewer is not None else {}),
                                        **({} if look else {"look": "false"})}
        try:  # the server says something every few seconds, so a read timeout means it is gone
            with self.http.stream("GET", f"{self._game(game_id)}/events", params=params, headers=headers,
                                  read_timeout=_read_within(deadline), deadline=lambda: deadline) as (response, lines):
                if response.status >= 400:
                    self._raise(response)
                rolled_back = False
                for line in lines:
                    if line == "event: stopping":  # the server's last word before it exits
                        raise ServerLost(f"the server {self.base_url} is stopping{advice}")
                    if line == "event: rolledback":  # the game's history was cut back while followed
                        rolled_back = True
                    elif rolled_back and line.startswith("data:"):
                        raise HistoryDamaged(game_id, str(json.loads(line[5:]).get("reason", "rolled back")))
                    yield line
        except TransportTimeout:
            raise ServerLost(f"the server {self.base_url} stopped answering") from None
        except TransportError as error:
            raise ServerLost(f"lost the server {self.base_url}: {error}") from None

    def wait_for_event(self, game_id: str, after: int, timeout: float | None = None) -> bool:
        """Block until the game has an event after seq `after` (the server's event stream pushes
        it); False when `timeout` seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        lines = self._events(game_id, after, advice="", deadline=deadline)  # the waits try again
        try:
            for line in lines:
                if line.startswith("id:") and int(line[3:].strip() or 0) > after:
                    return True
                if deadline is not None and time.monotonic() >= deadline:
                    return False
        finally:
            lines.close()
        return deadline is None or time.monotonic() < deadline  # the stream ended: the game is over

    def wait_for_turn(self, game_id: str, player: str, token: str | None = None,
                      timeout: float | None = None, look: bool = True) -> Waited:
        """What `show` gives `player` once it is his turn or the game is over (woken by the event
        stream); a lost server is tried again (Backoff) within `timeout`, from the last seq seen."""
        deadline = None if timeout is None else time.monotonic() + timeout
        backoff = Backoff(deadline)
        while True:
            try:
                shown = self._show(game_id, player, token, look, read_timeout=_read_within(deadline))
                backoff.reset()
                if shown.state.seat_of(player) is None:  # an account with no seat sees the public view
                    raise NotFound.no_seat(game_id, player, [p.name for p in shown.state.players])
                if shown.state.waits_for(player):
                    return Waited(shown=shown, timed_out=False)
                left = None if deadline is None else deadline - time.monotonic()
                if (left is not None and left <= 0) or not self.wait_for_event(game_id, shown.state.version, left):
                    return Waited(shown=shown, timed_out=True)
            except ServerLost as lost:
                backoff.after(lost)

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None, look: bool = True) -> WaitedAny:
        """The first game that waits for `player` or ended (leaving out what `told` holds), from
        one server stream for all his games; None after `timeout`. A lost server is tried again
        (Backoff) within `timeout`, sending the cursor the stream began with, so nothing is
        missed and nothing told twice."""
        deadline = None if timeout is None else time.monotonic() + timeout
        backoff = Backoff(deadline)
        while True:
            try:
                found, told = self._waiting(player, dict(tokens or {}), told, deadline, backoff, look)
            except ServerLost as lost:
                backoff.after(lost)
                continue
            if found is not None:
                return found
            if told is None:  # the deadline came before the server's first word
                raise ServerLost(f"the server {self.base_url} did not answer in time")
            return WaitedAny(shown=None, told=told)

    def _waiting(self, player: str, tokens: dict[str, str], told: Told | None, deadline: float | None,
                 backoff: Backoff, look: bool = True) -> tuple[WaitedAny | None, Told | None]:
        """One `POST /waiting` stream: (what it found or None at the deadline, the cursor it began with)."""
        from scat_cli.wire.bodies import MAX_TOKENS

        self._know_the_server(_read_within(deadline))
        newest = dict(list(tokens.items())[-MAX_TOKENS:])  # the server takes no more (remembered oldest first)
        body = {"player": player, "tokens": newest, "told": told.model_dump() if told is not None else None,
                **({} if look else {"look": False})}
        kind = ""
        try:  # the server says something every few seconds, so a read timeout means it is gone
            # the deadline counts once the server told where it began (the cursor a fresh wait sends)
            with self.http.stream("POST", "/waiting", json=body, read_timeout=_read_within(deadline),
                                  deadline=lambda: deadline if told is not None else None) as (response, lines):
                if response.status >= 400:
                    self._raise(response)
                backoff.reset()
                for line in lines:
                    if line.startswith("event:"):
                        kind = line[6:].strip()
                        if kind == "stopping":
                            raise ServerLost(f"the server {self.base_url} is stopping")
                    elif line.startswith("data:") and kind == "told":
                        told = Told.model_validate_json(line[5:].strip())
                    elif line.startswith("data:") and kind == "found":
                        return WaitedAny.model_validate_json(line[5:].strip()), told
                    if deadline is not None and time.monotonic() >= deadline and told is not None:
                        return None, told  # (a fresh wait first reads the cursor the server began with)
            if deadline is not None and time.monotonic() >= deadline:  # the server said nothing more in time
                return None, told
        except TransportTimeout:
            raise ServerLost(f"the server {self.base_url} stopped answering") from None
        except TransportError as error:
            raise ServerLost(f"lost the server {self.base_url}: {error}") from None
        raise ServerLost(f"the server {self.base_url} ended the stream early")

    def watch(self, game_id: str, viewer: str | None = None, token: str | None = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """Every event as `viewer` may see it, from the server's event stream, until the game is over
        (`look=False`: the stream records no look at his face-down hand, R23)."""
        for line in self._events(game_id, 0, viewer, token, look=look):
            if line.startswith("data:"):
                yield SeenEvent.model_validate_json(line[5:].strip())

    # ---- the archive ---------------------------------------------------------------------

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """The server's audit of one game (its signature checked against the keys the server trusts)."""
        return _report(self.request("GET", f"{self._game(game_id)}/audit", params={"strict": strict}))

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """The server's audit of every game, oldest first, page after page."""
        def page(after: str | None) -> tuple[Sequence[AuditReport], int | None, str | None]:
            got = Audits.model_validate(self.request("GET", "/audit", params={"strict": strict, "after": after}))
            return got.reports, got.total, got.next

        return _paged(page, progress)

    def export(self, game_id: str, running: bool = False) -> Export:
        """The full records of a finished game (a server exports no running game)."""
        return Export.model_validate(self.request("GET", f"{self._game(game_id)}/export"))

    def export_all(self, running: bool = False, progress: Progress | None = None) -> Iterator[Export | Skipped]:
        """Every finished game on the server, page after page; the others skipped, with the reason."""
        def page(after: str | None) -> tuple[Sequence[Export | Skipped], int | None, str | None]:
            got = Exports.model_validate(self.request("GET", "/export", params={"after": after}))
            return got.items, got.total, got.next

        return _paged(page, progress)

    def signing_key(self) -> SigningKey:
        """The server's public key (`GET /key`)."""
        return SigningKey.model_validate(self.request("GET", "/key"))

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False,
                       source: str = "the history") -> AuditReport:
        """Send an export to the server, which audits it and stores it only if it holds."""
        return _report(self.request("POST", "/import", json={"records": [dict(r) for r in records],
                                                               "strict": strict}))

    # ---- statistics ----------------------------------------------------------------------

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """The server's statistics; rebuilding them is for its operator."""
        from scat_core.records.stats import StatsReport

        if rebuild:
            raise BadInput("`stats --rebuild` rebuilds a database's projection: run it on the server with --db URL")
        return TypeAdapter(StatsReport).validate_python(self.request("GET", "/stats", params={"player": player}))


def _paged(page: Callable[[str | None], tuple[Sequence[T], int | None, str | None]],
           progress: Progress | None) -> Iterator[T]:
    """Every item of a paged read (`page(after)` gives a page's items, the total and the next
    cursor), telling `progress` how far along they are."""
    after: str | None = None
    done = 0
    while True:
        items, total, after = page(after)
        for item in items:
            if progress is not None:
                progress(done, total or len(items))
            done += 1
            yield item
        if after is None:
            return


def _report(body: Any) -> AuditReport:
    return TypeAdapter(AuditReport).validate_python(body)


def _read_within(deadline: float | None) -> float | None:
    """How long a wait's request may wait for the server's next word: the client's READ_TIMEOUT,
    but no more than GRACE seconds past the wait's `deadline` (a frozen server does not hold a
    `wait --timeout 3` for half a minute; a slow one's answer still counts)."""
    if deadline is None:
        return None
    return min(READ_TIMEOUT, max(0.0, deadline - time.monotonic()) + GRACE)

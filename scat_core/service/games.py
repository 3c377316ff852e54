"""The game service: the one boundary every front end (the CLI, the HTTP backend) calls.

GameService is a facade composed of small use-case classes that share one event store. Its
methods are the front ends' use cases, one name each (`new_game`, `move`, `claim`, `show`,
`log`, `replay`, `game_list`, `games_page`, `wait_for_turn`, `wait_for_any_turn`, `watch`,
`audit`, `export`, `import_records`, `stats` ..., the Protocol of boundary.py for most of them),
taking and returning plain typed values (scat_core.service.values) that the HTTP backend sends
as they are. Whatever else a caller needs it asks of the use-case class that owns it:
`playing` (create, act, look, bots: the writes), `reading` (lists, histories, results),
`catching_up` (a returning player's news), `finding` (abbreviated ids), `archive` (audit,
export, import), `waiting` (blocking until a game moves), `following`, `any_turn` and
`statistics`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from scat_core.domain import events as ev
from scat_core.domain.commands import AcceptSeat, DeclineSeat, JoinGame, PlayerCommand
from scat_core.domain.errors import BadInput
from scat_core.domain.options import GameOptions, recorded_text
from scat_core.records.acting import Credential
from scat_core.records.move_signatures import MoveSignature
from scat_core.service.account_ports import AccountLog
from scat_core.service.answers import Answers
from scat_core.service.boundary import Progress
from scat_core.service.catching_up import CatchingUp
from scat_core.service.finding import Finding
from scat_core.service.loading import replay
from scat_core.service.move_times import Clock, system_clock
from scat_core.service.playing import Outcome, Playing
from scat_core.service.ports import Store
from scat_core.service.read_model import summarize
from scat_core.service.reading import Reading
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
    Ratings,
    SeenEvent,
    Shown,
    SigningKey,
    Skipped,
    Told,
    Waited,
    WaitedAny,
)
from scat_core.service.waiting import Waiting

if TYPE_CHECKING:
    from scat_core.domain.accounts import Account
    from scat_core.domain.audit import AuditReport
    from scat_core.records.stats import StatsReport
    from scat_core.service.accounts import AccountService
    from scat_core.service.any_turn import AnyTurn
    from scat_core.service.archive import Archive
    from scat_core.service.following import Following
    from scat_core.service.statistics import Statistics

S = TypeVar("S", bound=Store)  # the store adapter a service runs on

__all__ = ["GameService", "Outcome", "replay", "summarize"]


class GameService(Generic[S]):
    """Every use case over one store, each delegated to the use-case class that owns it.

    The store is any adapter of the ports (`ports.Store`: `EventStore(engine)`, `MemoryStore()` ...);
    the type parameter is the adapter's class, so a front end that opened a database still sees its engine.
    """

    def __init__(self, store: S, clock: Clock = system_clock, accounts: AccountLog | None = None,
                 server: bool = False) -> None:
        self.store = store
        self._account_log, self._clock = accounts, clock
        self._accounts: AccountService | None = None
        self.playing = Playing(store, clock, server)
        self.reading = Reading(store, self.playing)
        self.catching_up = CatchingUp(store, self.playing)
        self.finding = Finding(store)
        self.waiting = Waiting(store)
        self.answers = Answers(self.playing, self.reading, self.catching_up, lambda: self.statistics.ratings())

    # The use cases a move never needs are built, and their modules imported, on first use: a
    # command loads no audit, export, statistics or waiting code it does not run (start-up time).

    @cached_property
    def archive(self) -> Archive:
        """Audits, exports and imports."""
        from scat_core.service.archive import Archive

        return Archive(self.store, self._account_named if self._account_log is not None else None)

    @cached_property
    def statistics(self) -> Statistics:
        """The statistics and ratings, projections of the events."""
        from scat_core.service.statistics import Statistics

        return Statistics(self.store)

    @cached_property
    def following(self) -> Following:
        """Waiting for one game: `wait` and `watch`."""
        from scat_core.service.following import Following

        return Following(self.answers, self.waiting)

    @cached_property
    def any_turn(self) -> AnyTurn:
        """`wait --any`: the turn of any of a player's games."""
        from scat_core.service.any_turn import AnyTurn

        return AnyTurn(self.answers, self.waiting, self._clock)

    @property
    def accounts(self) -> AccountService | None:
        """The server's accounts (None: no account log given): who may sit, and whose keys signed moves;
        built on first use (a local command that never audits a signed move does not load them)."""
        if self._accounts is None and self._account_log is not None:
            from scat_core.service.accounts import AccountService

            self._accounts = AccountService(self._account_log, self._clock)
        return self._accounts

    def _account_named(self, name: str) -> Account | None:
        """The account named `name` on this server, with its every key (None: no such account)."""
        accounts = self.accounts
        return accounts.named(name) if accounts is not None else None

    # ---- the front end's commands: one call each, values redacted for the viewer -----------

    def new_game(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
        viewer: str | None = None, open_seats: int = 0, expires: int | None = None,
    ) -> Played:
        """`scat new`: create a game, then the bots play; told to `viewer` (one of its humans) or the public.
        A local database trusts whoever holds it: its games start at once, with no open seat (R28)."""
        if open_seats or expires is not None:
            raise BadInput("open seats and invitations are a server's (its accounts accept or join): a game "
                           "here starts at once, as its file's holder made it")
        return self.answers.new_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                     protect=protect, viewer=viewer)

    def new_game_of_accounts(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, viewer: str | None = None,
        open_seats: int = 0, expires: int | None = None, rematch_of: str | None = None,
    ) -> Played:
        """`scat --server URL new` by an account (`viewer`, its creator): a game whose humans are the
        server's accounts (checked by the caller: `AccountService.seat`), each move signed by its
        player's key; no tokens. It waits for its other humans to accept, and its `open_seats` to be
        taken, before it is dealt (R28); unanswered, its invitations expire after `expires` seconds."""
        return self.answers.new_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                     viewer=viewer, signed_moves=True, consent=True, open_seats=open_seats,
                                     expires=expires, rematch_of=rematch_of)

    def ratings(self, player: str | None = None, rebuild: bool = False) -> Ratings:
        """`scat ratings`: a rating per player over the games played out (a projection of the events)."""
        return self.statistics.ratings(player, rebuild)

    def status(self, player: str) -> Dashboard:
        """`scat status`: what waits for `player`: his turns, invitations, games waiting for others,
        games ended this week."""
        return self.answers.status(player)

    def rematch(self, game_id: str, player: str, token: Credential = None) -> Played:
        """`scat rematch`: the rematch of a finished game, made once (asked again, the same game); on
        a server it waits for the others to accept (the client accepts for the asker)."""
        return self.answers.rematch(game_id, player, token)

    def accept(self, game_id: str, player: str, token: Credential = None,
               signature: MoveSignature | None = None) -> Played:
        """`scat accept`: `player` accepts his seat (R28); the last acceptance deals the first hand."""
        return self.answers.seat(game_id, AcceptSeat(player), token, signature)

    def decline(self, game_id: str, player: str, token: Credential = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat decline`: `player` declines his seat, or its creator withdraws the game: it is cancelled."""
        return self.answers.seat(game_id, DeclineSeat(player), token, signature)

    def join(self, game_id: str, player: str, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat join`: `player` takes the game's first open seat (joining is accepting)."""
        return self.answers.seat(game_id, JoinGame(player), token, signature)

    def move(self, game_id: str, command: PlayerCommand, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat draw|discard|knock|declare|throw-down|resign`: the move and the bots' answer, told to
        the mover; `signature`: his signature of it, in a game whose moves are signed."""
        return self.answers.move(game_id, command, token, signature)

    def claim(self, game_id: str, claimer: str | None = None, token: Credential = None,
              signature: MoveSignature | None = None) -> Played:
        """`scat claim`: the turn of a player out of time is claimed (R28), told to the claimer."""
        return self.answers.claim(game_id, claimer, token, signature)

    def say(self, game_id: str, player: str, text: str, token: Credential = None,
            signature: MoveSignature | None = None) -> Played:
        """`scat say`: one line said at the game's table by one of its players, told to him."""
        return self.answers.say(game_id, player, text, token, signature)

    def abandon(self, game_id: str, player: str | None = None, token: Credential = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat abandon`: the game ends without a winner, given up by its last human (or, on a local
        database, by its owner when no human is in it), told to him."""
        return self.answers.abandon(game_id, player, token, signature)

    def show(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> Shown:
        """`scat show`: a look (recorded in throw-down games, R23; none with `look=False`), the viewer's
        news, result and moves."""
        return self.answers.show(game_id, viewer, token, look)

    def log(self, game_id: str, viewer: str | None = None, token: Credential = None) -> History:
        """`scat log`: every event as `viewer` may see it."""
        return self.answers.log(game_id, viewer, token)

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: Credential = None) -> History:
        """`scat replay`: the game as after event `to`, as `viewer` could see it then."""
        return self.answers.replay(game_id, to, viewer, token)

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None) -> list[Listing]:
        """The games list (at most `limit`), each row with its read-only, chosen-chance and move-time fields."""
        return self.answers.game_list(status, waiting_for, limit)

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None) -> GamesPage:
        """`scat games`: the newest `limit` games of the list and how many match in all (a server lists
        its caller's games first: `answers.games_page(..., first_for)`)."""
        return self.answers.games_page(status, waiting_for, limit)

    def wait_for_turn(self, game_id: str, player: str, token: Credential = None,
                      timeout: float | None = None, look: bool = True) -> Waited:
        """`scat wait`: what `show` gives `player` once it is his turn (or the game is over, or `timeout` passed);
        `look=False` records no look (R23)."""
        return self.following.wait_for_turn(game_id, player, token, timeout, look)

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None, look: bool = True) -> WaitedAny:
        """`scat wait --any`: what `show` gives `player` of the first game that waits for him or
        ended (leaving out what `told` holds), or nothing once `timeout` passed (`look=False`: no look, R23)."""
        return self.any_turn.wait_for_any_turn(player, tokens, timeout, told, look)

    def watch(self, game_id: str, viewer: str | None = None, token: Credential = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """`scat watch`: every event as `viewer` may see it, each as it is appended, until the game is over
        (`look=False`: no look at a face-down hand is recorded, R23)."""
        return self.following.watch(game_id, viewer, token, look)

    def export(self, game_id: str, running: bool = False) -> Export:
        """`scat export GAME`: the full history (a running game only with `running`, never a protected one)."""
        return self.archive.export(game_id, running)

    def export_all(self, running: bool = False, progress: Progress | None = None) -> Iterator[Export | Skipped]:
        """`scat export --all`: every game exported, or skipped with the reason."""
        return self.archive.export_all(running, progress)

    def export_page(self, running: bool = False, after: str | None = None, limit: int | None = None) -> Exports:
        """One page of `export_all`: at most `limit` games after the game `after` (the previous page's `next`)."""
        return self.archive.export_page(running, after, limit)

    # ---- the server's sweep (R28) ----------------------------------------------------------

    def expired_turns(self, limit: int = 100) -> list[str]:
        """Running games whose player to act is out of move time now (R28), longest out first:
        found in the games read model (an indexed query, no event log read)."""
        return self.reading.expired_games(recorded_text(self.playing.clock()), limit)

    def claim_overdue(self, game_id: str) -> Outcome | None:
        """The server's sweep (R28): the turn of the player to act is claimed by scat itself if his
        move time ran out; None if it has not, or someone else (another server process) claimed
        or moved first: one claim per expiry."""
        return self.playing.claim_overdue(game_id)

    # ---- reading -------------------------------------------------------------------------

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given` (NotFound, or BadInput if several)."""
        return self.finding.resolve_game_id(given)

    # ---- the archive ---------------------------------------------------------------------

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """Verify a game from its stored events alone, its head and its head's signature."""
        return self.archive.audit(game_id, strict)

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """Audit every game in the database (listed, or only logged), one after the other."""
        return self.archive.audit_all(strict, progress)

    def audit_page(self, strict: bool = False, after: str | None = None, limit: int | None = None) -> Audits:
        """One page of `audit_all`: at most `limit` games after the game `after` (the previous page's `next`)."""
        return self.archive.audit_page(strict, after, limit)

    def position(self, game_id: str) -> Position:
        """Where a running game stands (its last event's seq and position tag): what a player whose
        moves are signed signs his move at. RuleViolation for a game that takes no more moves here."""
        from scat_core.domain.errors import Hint, NotFound, RuleViolation
        from scat_core.service.loading import load_for_command
        from scat_core.service.move_signing import tag_of
        from scat_core.service.playing import revealed

        with self.store.read() as tx:
            head = tx.head(game_id)
            secret = tx.get_secret(game_id) if head is not None else None
            if head is not None and secret is None:  # over: its seed revealed, for the talk after it
                secret = revealed(load_for_command(tx, game_id)[0])
        if head is None:
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        if secret is None:
            raise RuleViolation(f"game {game_id} was imported without its secret seed: it can be shown, replayed "
                                "and audited here, not played on", game_id=game_id)
        return Position(game_id=game_id, seq=head[0], tag=tag_of(secret, head[1]))

    def signing_key(self) -> SigningKey:
        """The public key that signs the heads of this service's games (its key file is created on first use)."""
        keys = self.store.keys
        return SigningKey(key_id=keys.key_id, public_key=keys.public_key)

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False,
                       source: str = "the history") -> AuditReport:
        """Audit an exported history and its head signature and, only if both hold, store it verbatim."""
        return self.archive.import_records(records, strict, source)

    # ---- statistics --------------------------------------------------------------------------

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """Figures per player and overall, caught up with the log first (rebuilt with `rebuild`)."""
        return self.statistics.stats(player, rebuild)

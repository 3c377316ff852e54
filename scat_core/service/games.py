"""The game service: the one boundary every front end (the CLI, the HTTP backend) calls.

GameService is a facade composed of small use-case classes that share one event store:
Showing (one call per front-end command: new, a move, show, log, replay, games; values
redacted for the viewer), Playing (create, act, look, bots), Reading (lists, histories,
results), CatchingUp (a returning player's news), Finding (abbreviated ids), Archive
(audit, export, import), Waiting (blocking until a game moves), Following (`wait` and
`watch`), AnyTurn (`wait --any`) and Statistics. Each public method is one use case; those a front end calls (the
Protocol of boundary.py) take and return plain typed values (scat_core.service.values),
which the HTTP backend sends as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from scat_core.domain import events as ev
from scat_core.domain.commands import PlayerCommand
from scat_core.domain.move_time import recorded_text
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.records.acting import Credential
from scat_core.records.games import GameRow
from scat_core.records.move_signatures import MoveSignature
from scat_core.records.stored import StoredEvent
from scat_core.service.account_ports import AccountLog
from scat_core.service.any_turn import AnyTurn
from scat_core.service.archive import AUDIT_PAGE, EXPORT_PAGE, Archive
from scat_core.service.boundary import Progress
from scat_core.service.finding import Finding
from scat_core.service.following import Following
from scat_core.service.loading import replay
from scat_core.service.move_times import Clock, system_clock
from scat_core.service.news import CatchingUp, Catchup
from scat_core.service.playing import Outcome, Playing
from scat_core.service.ports import Store
from scat_core.service.read_model import summarize
from scat_core.service.reading import Reading
from scat_core.service.showing import Showing
from scat_core.service.statistics import Statistics
from scat_core.service.values import (
    Audits,
    Export,
    Exports,
    GamesPage,
    History,
    Listing,
    Played,
    Position,
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
    from scat_core.service.outcomes import GameResult
    from scat_core.store.sql.event_store import EventStore

S = TypeVar("S", bound=Store)  # the store adapter a service runs on

__all__ = ["GameService", "Outcome", "replay", "summarize"]


class GameService(Generic[S]):
    """Every use case over one store, each delegated to the use-case class that owns it.

    The store is any adapter of the ports (`ports.Store`: `EventStore(engine)`, `MemoryStore()` ...);
    the type parameter is the adapter's class, so a front end that opened a database still sees its engine.
    """

    def __init__(self, store: S, clock: Clock = system_clock, accounts: AccountLog | None = None) -> None:
        self.store = store
        self._account_log, self._clock = accounts, clock
        self._accounts: AccountService | None = None
        self.playing = Playing(store, clock)
        self.reading = Reading(store, self.playing)
        self.catching_up = CatchingUp(store, self.playing)
        self.finding = Finding(store)
        self.archive = Archive(store, self._account_named if accounts is not None else None)
        self.waiting = Waiting(store)
        self.statistics = Statistics(store)
        self.showing = Showing(self.playing, self.reading, self.catching_up)
        self.following = Following(self.showing, self.waiting)
        self.any_turn = AnyTurn(self.showing, self.waiting, clock)

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

    @staticmethod
    def open(url: str | None = None, *, pre_ping: bool = False) -> GameService[EventStore]:
        """The service over the database at `url` (or $SCAT_DB_URL, or the default file): the SQLAlchemy
        adapter, with its account log; `pre_ping` (a server): each pooled connection is tested before
        use (see `make_engine`)."""
        from scat_core.store.sql.account_log import SqlAccountLog
        from scat_core.store.sql.database import open_engine
        from scat_core.store.sql.event_store import EventStore

        engine = open_engine(url, pre_ping=pre_ping)
        return GameService(EventStore(engine), accounts=SqlAccountLog(engine))

    # ---- the front end's commands: one call each, values redacted for the viewer -----------

    def new_game(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
        viewer: str | None = None,
    ) -> Played:
        """`scat new`: create a game, then the bots play; told to `viewer` (one of its humans) or the public."""
        return self.showing.new_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                     protect=protect, viewer=viewer)

    def new_game_of_accounts(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, viewer: str | None = None,
    ) -> Played:
        """`scat --server URL new` by an account: a game whose humans are the server's accounts
        (checked by the caller: `AccountService.seat`), each move signed by its player's key; no tokens."""
        return self.showing.new_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                     viewer=viewer, signed_moves=True)

    def move(self, game_id: str, command: PlayerCommand, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat draw|discard|knock|declare|throw-down|resign`: the move and the bots' answer, told to
        the mover; `signature`: his signature of it, in a game whose moves are signed."""
        return self.showing.move(game_id, command, token, signature)

    def claim(self, game_id: str, claimer: str | None = None, token: Credential = None,
              signature: MoveSignature | None = None) -> Played:
        """`scat claim`: the turn of a player out of time is claimed (R28), told to the claimer."""
        return self.showing.claim(game_id, claimer, token, signature)

    def show(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> Shown:
        """`scat show`: a look (recorded in throw-down games, R23; none with `look=False`), the viewer's
        news, result and moves."""
        return self.showing.show(game_id, viewer, token, look)

    def log(self, game_id: str, viewer: str | None = None, token: Credential = None) -> History:
        """`scat log`: every event as `viewer` may see it."""
        return self.showing.log(game_id, viewer, token)

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: Credential = None) -> History:
        """`scat replay`: the game as after event `to`, as `viewer` could see it then."""
        return self.showing.replay(game_id, to, viewer, token)

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None, first_for: str | None = None) -> list[Listing]:
        """The games list (at most `limit`; `first_for`'s games first), each row with its read-only,
        chosen-chance and move-time fields."""
        return self.showing.game_list(status, waiting_for, limit, first_for)

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None, first_for: str | None = None) -> GamesPage:
        """`scat games`: the newest `limit` games of the list (`first_for`'s first) and how many match in all."""
        return self.showing.games_page(status, waiting_for, limit, first_for)

    def games_waiting_for(self, player: str, limit: int | None = None) -> list[GameRow]:
        """Running games where `player` is to act (any case), newest activity first: from the
        games read model (an indexed query, no event log read); read-only imports left out."""
        return self.reading.list_games("active", player, limit)

    def wait_for_turn(self, game_id: str, player: str, token: Credential = None,
                      timeout: float | None = None) -> Waited:
        """`scat wait`: what `show` gives `player` once it is his turn (or the game is over, or `timeout` passed)."""
        return self.following.wait_for_turn(game_id, player, token, timeout)

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None) -> WaitedAny:
        """`scat wait --any`: what `show` gives `player` of the first game that waits for him or
        ended (leaving out what `told` holds), or nothing once `timeout` passed."""
        return self.any_turn.wait_for_any_turn(player, tokens, timeout, told)

    def watch(self, game_id: str, viewer: str | None = None, token: Credential = None) -> Iterator[SeenEvent]:
        """`scat watch`: every event as `viewer` may see it, each as it is appended, until the game is over."""
        return self.following.watch(game_id, viewer, token)

    def export(self, game_id: str, running: bool = False) -> Export:
        """`scat export GAME`: the full history (a running game only with `running`, never a protected one)."""
        return self.archive.export(game_id, running)

    def export_all(self, running: bool = False, progress: Progress | None = None) -> Iterator[Export | Skipped]:
        """`scat export --all`: every game exported, or skipped with the reason."""
        return self.archive.export_all(running, progress)

    def export_page(self, running: bool = False, after: str | None = None, limit: int | None = None) -> Exports:
        """One page of `export_all`: at most `limit` games after the game `after` (the previous page's `next`)."""
        return self.archive.export_page(running, after, limit or EXPORT_PAGE)

    # ---- playing (writes) ----------------------------------------------------------------

    def create_game(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
    ) -> Outcome:
        """Create a game, deal its first hand, then let bots play until a human must (see `Playing`)."""
        return self.playing.create_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                        protect=protect)

    def act(self, game_id: str, command: PlayerCommand, token: Credential = None) -> Outcome:
        """Carry out a human player's command, then let bots play until a human must."""
        return self.playing.act(game_id, command, token)

    def claim_expired(self, game_id: str) -> Outcome:
        """The server's own claim (R28) of a turn whose move time ran out; RuleViolation if none did."""
        return self.playing.claim(game_id, None)

    def expired_turns(self, limit: int = 100) -> list[str]:
        """Running games whose player to act is out of move time now (R28), longest out first:
        found in the games read model (an indexed query, no event log read)."""
        return self.reading.expired_games(recorded_text(self.playing.clock()), limit)

    def claim_overdue(self, game_id: str) -> Outcome | None:
        """The server's sweep (R28): the turn of the player to act is claimed by scat itself if his
        move time ran out; None if it has not, or someone else (another server process) claimed
        or moved first: one claim per expiry."""
        return self.playing.claim_overdue(game_id)

    def look(self, game_id: str, player: str | None = None, token: Credential = None) -> GameState:
        """The current state after the bots' owed moves; a player's look at his hand is recorded (R23)."""
        return self.playing.look(game_id, player, token)

    def play_bots(self, game_id: str) -> Outcome:
        """Let bots make the moves they still owe, until a human must act or the game ends."""
        return self.playing.play_bots(game_id)

    # ---- reading -------------------------------------------------------------------------

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given` (NotFound, or BadInput if several)."""
        return self.finding.resolve_game_id(given)

    def list_games(self, status: str | None = None, waiting_for: str | None = None) -> list[GameRow]:
        """Games newest activity first, optionally only those with a status or waiting for a name."""
        return self.reading.list_games(status, waiting_for)

    def list_games_read_only(
        self, status: str | None = None, waiting_for: str | None = None
    ) -> tuple[list[GameRow], set[str]]:
        """`list_games`, and the ids of the games listed that are read-only here."""
        return self.reading.list_games_read_only(status, waiting_for)

    def chosen_chance(self, game_ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        """For each game: (its seed was chosen at creation, its first deck was)."""
        return self.reading.chosen_chance(game_ids)

    def is_read_only(self, game_id: str) -> bool:
        """Whether a running game was imported without its secret seed: shown, never played."""
        return self.reading.is_read_only(game_id)

    def history(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The stored events of a game, unredacted, up to seq `up_to`."""
        return self.reading.history(game_id, up_to)

    def look_at_history(
        self, game_id: str, viewer: str | None = None, token: Credential = None, up_to: int | None = None,
        as_then: bool = False,
    ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]:
        """The state after `up_to` and each event as `viewer` may see it; showing the current hand is a look."""
        return self.reading.look_at_history(game_id, viewer, token, up_to, as_then)

    def news(self, game_id: str, viewer: str, token: Credential = None) -> Catchup:
        """The events since `viewer` last acted, as he may see them (a look: may record one, R23)."""
        return self.catching_up.news(game_id, viewer, token)

    def game_result(self, game_id: str) -> GameResult:
        """The result of a finished game: each hand's outcome, standings, duration, winner (R26)."""
        return self.reading.game_result(game_id)

    # ---- the archive ---------------------------------------------------------------------

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """Verify a game from its stored events alone, its head and its head's signature."""
        return self.archive.audit(game_id, strict)

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """Audit every game in the database (listed, or only logged), one after the other."""
        return self.archive.audit_all(strict, progress)

    def audit_page(self, strict: bool = False, after: str | None = None, limit: int | None = None) -> Audits:
        """One page of `audit_all`: at most `limit` games after the game `after` (the previous page's `next`)."""
        return self.archive.audit_page(strict, after, limit or AUDIT_PAGE)

    def game_ids(self) -> list[str]:
        """Every game in the database, oldest first."""
        return self.archive.game_ids()

    def running_games(self) -> dict[str, bool]:
        """Every game still running, each with whether it is protected."""
        return self.archive.running_games()

    def export_records(self, game_id: str, *, running: bool = False) -> list[dict[str, Any]]:
        """The full stored history of a game, one envelope per event (a running game only with `running`)."""
        return self.archive.export_records(game_id, running=running)

    def position(self, game_id: str) -> Position:
        """Where a running game stands (its last event's seq and position tag): what a player whose
        moves are signed signs his move at. RuleViolation for a game that takes no more moves here."""
        from scat_core.domain.errors import Hint, NotFound, RuleViolation
        from scat_core.service.move_signing import tag_of

        with self.store.read() as tx:
            head = tx.head(game_id)
            secret = tx.get_secret(game_id) if head is not None else None
        if head is None:
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        if secret is None:
            raise RuleViolation(f"game {game_id} takes no more moves here: it is over, or was imported",
                                game_id=game_id)
        return Position(game_id=game_id, seq=head[0], tag=tag_of(secret, head[1]))

    def signing_key(self) -> SigningKey:
        """The public key that signs the heads of this service's games (its key file is created on first use)."""
        keys = self.store.keys
        return SigningKey(key_id=keys.key_id, public_key=keys.public_key)

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False,
                       source: str = "the history") -> AuditReport:
        """Audit an exported history and its head signature and, only if both hold, store it verbatim."""
        return self.archive.import_records(records, strict, source)

    # ---- waiting and statistics ----------------------------------------------------------

    def head_seq(self, game_id: str) -> int:
        """The seq of the game's last event (NotFound when there is no such game)."""
        return self.waiting.head_seq(game_id)

    def wait_for_event(self, game_id: str, after: int, timeout: float | None = None) -> bool:
        """Block until the game has an event after seq `after`; False when `timeout` seconds pass first."""
        return self.waiting.wait_for_event(game_id, after, timeout)

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """Figures per player and overall, caught up with the log first (rebuilt with `rebuild`)."""
        return self.statistics.stats(player, rebuild)

    def catch_up_stats(self, rebuild: bool = False) -> int:
        """Fold the events the stats have not seen yet into them; return how many were folded."""
        return self.statistics.catch_up_stats(rebuild)

"""The game service: every use case a front end calls, one method each, plain values in and out.

`GameService` is the `boundary.Games` of a store (`ports.Store`): the CLI and the HTTP backend call
it, and the `--server` client implements the same Protocol over HTTP. Each method makes its answer
itself (the state and events as the viewer may know them, his moves now from the domain's legal
moves, the result once over) around the writes of `Playing` (load, fold, decide, append, in one
unit of work) and the queries of `Reading`; `wait` and `watch` block on the store here. Audits,
exports and imports (`archive.py`), statistics and ratings (`statistics.py`), `wait --any`
(`any_turn.py`) and accounts live in modules a move never runs: built on first use (start-up time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.commands import AcceptSeat, DeclineSeat, JoinGame, LegalMove, PlayerCommand
from scat_core.domain.errors import AuthFailed, BadInput, Hint, NotFound, RuleViolation
from scat_core.domain.legal import legal_moves
from scat_core.domain.options import GameOptions, recorded_text
from scat_core.domain.state import GameState
from scat_core.domain.views import redact_state
from scat_core.records.credentials import ActingAccount, Credential
from scat_core.records.errors import CorruptHistory, HistoryDamaged
from scat_core.records.games import GameRow, ListedAfter
from scat_core.records.signing import MoveSignature
from scat_core.service.loading import Clock, load_for_command, move_clock, replay, summarize, system_clock
from scat_core.service.playing import Outcome, Playing, revealed, tag_of
from scat_core.service.ports import AccountLog, Store, UnitOfWork
from scat_core.service.reading import Reading
from scat_core.service.values import (
    Audits,
    Dashboard,
    Export,
    Exports,
    GameResult,
    GamesPage,
    History,
    Listing,
    News,
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
    game_result,
)

if TYPE_CHECKING:
    from scat_core.domain.accounts import Account
    from scat_core.domain.audit import AuditReport
    from scat_core.records.stats import StatsReport
    from scat_core.service.accounts import AccountService
    from scat_core.service.any_turn import AnyTurn
    from scat_core.service.archive import Archive
    from scat_core.service.statistics import Statistics

S = TypeVar("S", bound=Store)  # the store adapter a service runs on

__all__ = ["GameService", "Outcome", "replay", "summarize"]

#: The games list's total counts no further: a page's count is bounded whatever the number of games,
#: and costs the same with 1,000 games as with a million (tests/benchmarks/bench_scale.py, #42).
COUNTED = 1_000
#: `scat status` tells the games ended in the last this many days.
DASHBOARD_DAYS = 7
#: Most game ids an ambiguous start of one names.
MAX_LISTED = 8


def moves_of(state: GameState, viewer: str | None, read_only: bool = False) -> list[LegalMove]:
    """What `viewer` may do now in `state` (as he may know it: the domain's legal moves from his own
    view); none in a finished or read-only game, or out of it."""
    seat = state.seat_of(viewer) if viewer is not None else None
    if seat is None or read_only or state.status == "finished":
        return []
    return list(legal_moves(state, seat, as_seen=True))


def _seen(outcome: Outcome, viewer: str | None) -> list[SeenEvent]:
    """The events of `outcome` as `viewer` saw them; while his hand lies face down (R23) its
    deal is told as the public saw it."""
    finished = outcome.state.status == "finished"
    seen = outcome.seen_by(viewer)
    seat = outcome.state.seat_of(viewer) if viewer is not None else None
    if seat is not None and outcome.state.hands and outcome.state.hand_unseen(seat):
        public = outcome.seen_by(None)
        seen = [mine if mine[1].type != "HandDealt" else hidden for mine, hidden in zip(seen, public, strict=True)]
    return [SeenEvent.of(stored, event, finished) for stored, event in seen]


def played(outcome: Outcome, viewer: str | None, tx: UnitOfWork) -> Played:
    """The answer to a command for `viewer` (None: the public), from its outcome, with the result
    read from `tx` when it ended the game: made in the command's unit of work, before its write."""
    finished = outcome.state.status == "finished"
    state = redact_state(outcome.state, viewer)
    return Played(game_id=outcome.game_id, viewer=viewer, state=state,
                  before=redact_state(outcome.before, viewer), events=_seen(outcome, viewer),
                  tokens=outcome.tokens, result=result_of(tx, outcome) if finished else None,
                  moves=moves_of(state, viewer), bots_interrupted=outcome.bots_interrupted,
                  bots_owe=outcome.bots_owe,
                  position=Position(game_id=outcome.game_id, seq=outcome.state.version, tag=outcome.position_tag)
                  if outcome.position_tag else None)


def result_of(tx: UnitOfWork, outcome: Outcome) -> GameResult:
    """The result of the game `outcome` ended: its log as `tx` reads it, and the records of `outcome`
    not written yet (a command's answer is made before its write)."""
    first = outcome.events[0].seq if outcome.events else outcome.state.version + 1
    whole = [*(tx.load(outcome.game_id, up_to=first - 1) if first > 1 else []), *outcome.events]
    return game_result([(event.seq, event.recorded_at, event.event) for event in whole])


class _Answer:
    """A command's answer, made by `Playing`'s `tell` before each write of the command (the last
    one made is the answer), for the viewer `viewer_of` names."""

    def __init__(self, viewer_of: Callable[[Outcome], str | None]) -> None:
        self.viewer_of = viewer_of
        self.made: dict[int, Played] = {}  # by the event the outcome told leads to

    def tell(self, outcome: Outcome, tx: UnitOfWork) -> None:
        self.made[outcome.state.version] = played(outcome, self.viewer_of(outcome), tx)

    def final(self, outcome: Outcome) -> Played:
        """The answer made for `outcome`, the command's last unit written, with what befell the bots
        after it (a later unit of theirs that could not be written, or their bound met)."""
        made = self.made[outcome.state.version]
        if (outcome.bots_interrupted, outcome.bots_owe) == (made.bots_interrupted, made.bots_owe):
            return made
        return made.model_copy(update={"bots_interrupted": outcome.bots_interrupted, "bots_owe": outcome.bots_owe})


def _seated_as(player: str) -> Callable[[Outcome], str | None]:
    """Who a command of `player` is told to: his name as seated, or as given."""
    return lambda outcome: outcome.state.name(outcome.state.seat_of(player)) or player


def _read_only(game_id: str) -> RuleViolation:
    """Why nobody can wait on a game imported running: nothing is ever played on it here."""
    return RuleViolation(
        f"game {game_id} was imported without its secret seed: it can be shown, replayed and "
        "audited, not played on, so nobody's turn comes here"
    )


def _same_history(game_id: str, last: SeenEvent, version: int, events: Sequence[SeenEvent]) -> None:
    """HistoryDamaged when the log read again no longer holds `last`, the last event a watch told: cut
    back below it, or another event in its place (cut back and played on)."""
    if version < last.seq:
        raise HistoryDamaged(game_id, f"the database's log of it went back to event {version}, but event "
                                      f"{last.seq} was shown while watched: its history was cut back to an older "
                                      "head (rolled back)")
    again = next((seen for seen in events if seen.seq == last.seq), None)
    if again is not None and (again.type, again.recorded_at) != (last.type, last.recorded_at):
        raise HistoryDamaged(game_id, f"the database shows another event {last.seq} than the one shown while "
                                      "watched: its history was rewritten (rolled back and played on)")


class GameService(Generic[S]):
    """Every use case over one store (`ports.Store`: `EventStore(engine)`, `MemoryStore()` ...); the
    type parameter is the adapter's class, so a front end that opened a database still sees its engine.

    `playing` holds the writes (create, act, look, bots) and `reading` the queries; the methods
    below are the front ends' use cases, one name each (the Protocol of boundary.py for most).
    """

    def __init__(self, store: S, clock: Clock = system_clock, accounts: AccountLog | None = None,
                 server: bool = False) -> None:
        self.store = store
        self._account_log, self._clock = accounts, clock
        self._accounts: AccountService | None = None
        self.playing = Playing(store, clock, server)
        self.reading = Reading(store, self.playing)

    # The use cases a move never needs are built, and their modules imported, on first use: a
    # command loads no audit, export, statistics or `wait --any` code it does not run (start-up time).

    @cached_property
    def archive(self) -> Archive:
        """Audits, exports and imports."""
        # start-up time: built on first use (a move never loads it)
        from scat_core.service.archive import Archive

        return Archive(self.store, self._account_named if self._account_log is not None else None)

    @cached_property
    def statistics(self) -> Statistics:
        """The statistics and ratings, projections of the events."""
        # start-up time: built on first use (a move never loads it)
        from scat_core.service.statistics import Statistics

        return Statistics(self.store, self._clock)

    @cached_property
    def any_turn(self) -> AnyTurn:
        """`wait --any`: the turn of any of a player's games."""
        # start-up time: built on first use (a move never loads it)
        from scat_core.service.any_turn import AnyTurn

        return AnyTurn(self.show, self.store, self._clock)

    @property
    def accounts(self) -> AccountService | None:
        """The server's accounts (None: no account log given): who may sit, and whose keys signed moves;
        built on first use (a local command that never audits a signed move does not load them)."""
        if self._accounts is None and self._account_log is not None:
            # start-up time: built on first use (a local game never loads it)
            from scat_core.service.accounts import AccountService

            self._accounts = AccountService(self._account_log, self._clock)
        return self._accounts

    def _account_named(self, name: str) -> Account | None:
        """The account named `name` on this server, with its every key (None: no such account)."""
        accounts = self.accounts
        return accounts.named(name) if accounts is not None else None

    # ---- the commands that write: each told to whoever gave it ------------------------------

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
        return self._created(players, options=options, dealer=dealer, seed=seed, deck=deck, protect=protect,
                             viewer=viewer)

    def new_game_of_accounts(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, viewer: str | None = None,
        open_seats: int = 0, expires: int | None = None, rematch_of: str | None = None,
    ) -> Played:
        """`scat --server URL new` by an account (`viewer`, its creator): a game whose humans are the
        server's accounts (checked by the caller: `AccountService.seat`), each move signed by its
        player's key; no tokens. It waits for its other humans to accept, and its `open_seats` to be
        taken, before it is dealt (R28); unanswered, its invitations expire after `expires` seconds."""
        return self._created(players, options=options, dealer=dealer, seed=seed, deck=deck, viewer=viewer,
                             signed_moves=True, consent=True, open_seats=open_seats, expires=expires,
                             rematch_of=rematch_of)

    def _created(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
        viewer: str | None = None, signed_moves: bool = False, consent: bool = False, open_seats: int = 0,
        expires: int | None = None, rematch_of: str | None = None,
    ) -> Played:
        """A game created (see `Playing.create_game`), told to `viewer` if he is one of its humans, else the
        public; with `consent`, `viewer` is its creator, whose seat is accepted by creating it (R28)."""

        def told(outcome: Outcome) -> str | None:
            seat = outcome.state.seat_of(viewer) if viewer else None
            # only a human of this game, whose token the creator receives
            return None if seat is None or outcome.state.players[seat].is_bot else viewer

        answer = _Answer(told)
        outcome = self.playing.create_game(players, options=options, dealer=dealer, seed=seed, deck=deck,
                                           protect=protect, signed_moves=signed_moves, tell=answer.tell,
                                           creator=viewer if consent else None, consent=consent,
                                           open_seats=open_seats, expires=expires, rematch_of=rematch_of)
        return answer.final(outcome)

    def rematch(self, game_id: str, player: str, token: Credential = None) -> Played:
        """`scat rematch`: the rematch of a finished game, made once (asked again, the same game); on
        a server it waits for the others to accept (the client accepts for the asker)."""
        answer = _Answer(_seated_as(player))
        return answer.final(self.playing.rematch(game_id, player, token, answer.tell))

    def accept(self, game_id: str, player: str, token: Credential = None,
               signature: MoveSignature | None = None) -> Played:
        """`scat accept`: `player` accepts his seat (R28); the last acceptance deals the first hand."""
        return self._seat(game_id, AcceptSeat(player), token, signature)

    def decline(self, game_id: str, player: str, token: Credential = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat decline`: `player` declines his seat, or its creator withdraws the game: it is cancelled."""
        return self._seat(game_id, DeclineSeat(player), token, signature)

    def join(self, game_id: str, player: str, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat join`: `player` takes the game's first open seat (joining is accepting)."""
        return self._seat(game_id, JoinGame(player), token, signature)

    def _seat(self, game_id: str, command: cmd.AcceptSeat | cmd.DeclineSeat | cmd.JoinGame,
              token: Credential, signature: MoveSignature | None) -> Played:
        """A seat accepted, declined or taken (see `Playing.seat`), told to the player."""
        answer = _Answer(_seated_as(command.player))
        return answer.final(self.playing.seat(game_id, command, token, signature, answer.tell))

    def move(self, game_id: str, command: PlayerCommand, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat draw|discard|knock|declare|throw-down|resign`: the move and the bots' answer, told to
        the mover (the answer is made before the move is written, so nothing can fail once it is);
        `signature`: his signature of it, in a game whose moves are signed."""
        answer = _Answer(lambda _: command.player)
        return answer.final(self.playing.act(game_id, command, token, signature, answer.tell))

    def claim(self, game_id: str, claimer: str | None = None, token: Credential = None,
              signature: MoveSignature | None = None) -> Played:
        """`scat claim`: the turn of a player out of time is claimed (R28), told to the claimer. Without a
        claimer only an unprotected game may be claimed (a protected one asks a player's token)."""
        if claimer is None and self.playing.is_protected(game_id):
            raise AuthFailed(f"game {game_id} is protected: claim as one of its players, with his token",
                             game_id=game_id, hint=Hint.GIVE_TOKEN)
        answer = _Answer(lambda _: claimer)
        return answer.final(self.playing.claim(game_id, claimer, token, signature, answer.tell))

    def say(self, game_id: str, player: str, text: str, token: Credential = None,
            signature: MoveSignature | None = None) -> Played:
        """`scat say`: one line said at the game's table by one of its players, told to him."""
        answer = _Answer(_seated_as(player))
        return answer.final(self.playing.say(game_id, player, text, token, signature, answer.tell))

    def abandon(self, game_id: str, player: str | None = None, token: Credential = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat abandon`: the game ends without a winner, given up by its last human (or, on a local
        database, by its owner when no human is in it), told to him."""
        answer = _Answer(lambda _: player)
        return answer.final(self.playing.abandon(game_id, player, token, signature, answer.tell))

    # ---- a game as a viewer may know it ------------------------------------------------------

    def _viewer(self, game_id: str, viewer: str | None, token: Credential) -> str | None:
        """`viewer`, or None (the public) when he is the acting account and sits not in the game:
        a server's account sees any game, his own hand only in his own (its seats are all he may take)."""
        if viewer is None or not isinstance(token, ActingAccount) or viewer.casefold() != token.name.casefold():
            return viewer
        return viewer if self.reading.seats(game_id, viewer) else None

    def show(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> Shown:
        """`scat show`: the game now as `viewer` (None: the public) may know it: a look (recorded in
        throw-down games, R23; owed bot moves are played), his news since his last move, the result once
        over. `look=False` records no look: a hand still face down stays so, and he may still throw down."""
        viewer = self._viewer(game_id, viewer, token)
        state = self.playing.look(game_id, viewer, token, look)
        read_only = state.status != "finished" and self.reading.is_read_only(game_id)
        news = None
        if viewer is not None:
            found = self.reading.news(game_id, viewer, token, look)
            state = found.state
            news = News(state=redact_state(found.state, viewer), before=redact_state(found.before, viewer),
                        events=[SeenEvent.of(stored, event) for stored, event in found.events])
        result = self.reading.game_result(game_id) if state.status == "finished" else None
        ends, left = (None, None) if read_only else self.playing.move_clock(state)
        state = redact_state(state, viewer)
        said = [SeenEvent.of(stored, stored.event) for stored in self.reading.last_messages(game_id, state.version)]
        return Shown(game_id=game_id, viewer=viewer, state=state, read_only=read_only, news=news, result=result,
                     moves=moves_of(state, viewer, read_only), move_deadline=ends, move_time_left=left,
                     messages=said)

    def log(self, game_id: str, viewer: str | None = None, token: Credential = None) -> History:
        """`scat log`: every event as `viewer` may see it (hashes once the game is over: before, one
        would betray a card)."""
        return self.log_of(game_id, viewer, token)

    def log_of(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> History:
        """`log`; with `look=False` (a stream that only follows) no look at a face-down hand is recorded (R23)."""
        viewer = self._viewer(game_id, viewer, token)
        state, shown = self.reading.look_at_history(game_id, viewer, token, look=look)
        hashes = state.status == "finished"
        return History(game_id=game_id, viewer=viewer, state=redact_state(state, viewer),
                       events=[SeenEvent.of(stored, event, hashes) for stored, event in shown])

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: Credential = None) -> History:
        """`scat replay`: the game rebuilt as after event `to` (default: the last), as `viewer` could see
        it then; at the last event, his moves now."""
        viewer = self._viewer(game_id, viewer, token)
        state, shown = self.reading.look_at_history(game_id, viewer, token, up_to=to, as_then=True)
        now = viewer is not None and to is None
        read_only = now and state.status != "finished" and self.reading.is_read_only(game_id)
        state = redact_state(state, viewer)
        return History(game_id=game_id, viewer=viewer, state=state,
                       events=[SeenEvent.of(stored, event) for stored, event in shown], read_only=read_only,
                       moves=moves_of(state, viewer, read_only) if now else [])

    # ---- lists ------------------------------------------------------------------------------

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None) -> GamesPage:
        """`scat games`: the newest `limit` games of the list and how many match in all (see `games_page_for`)."""
        return self.games_page_for(status, waiting_for, limit)

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None) -> list[Listing]:
        """The games list, newest activity first, at most `limit` (see `game_list_for`)."""
        return self.game_list_for(status, waiting_for, limit)

    def games_page_for(self, status: str | None = None, waiting_for: str | None = None, limit: int | None = None,
                       first_for: str | None = None, after: str | None = None) -> GamesPage:
        """`game_list_for` of at most `limit` games (after the cursor `after` a page before gave as its
        `next`), the cursor of the next page, and how many the filters match in all: counted only when
        there is more than this page, and no further than COUNTED (one bounded indexed count,
        `total_at_least` then), whatever the number of games. A server's page, `first_for` its caller."""
        cursor = None if after is None else ListedAfter.parse(after)
        listed = self.game_list_for(status, waiting_for, limit, first_for, cursor)
        full = limit is not None and len(listed) >= limit
        if not full and after is None:
            return GamesPage(games=listed, total=len(listed))
        total = self.reading.count_listed(status, waiting_for, at_most=COUNTED)
        last = listed[-1] if full else None
        key = None if first_for is None else first_for.casefold()
        following = None if last is None else ListedAfter(
            last_activity=last.last_activity, game_id=last.game_id,
            seated=key is not None and any(name.casefold() == key for name in last.players)).text()
        return GamesPage(games=listed, total=total, total_at_least=total >= COUNTED, next=following)

    def game_list_for(self, status: str | None = None, waiting_for: str | None = None, limit: int | None = None,
                      first_for: str | None = None, after: ListedAfter | None = None) -> list[Listing]:
        """Games newest activity first (optionally only those with a status or waiting for a name,
        at most `limit`, after the cursor `after`), each with whether it is read-only here and whether
        its creator chose its chance (#14 item 4) and, with a move time, how long its player to act
        has left (R28); with `first_for` (a server's account), the games he sits in first."""
        rows, read_only = self.reading.list_games_read_only(status, waiting_for, limit, first_for, after)
        return self._listings(rows, read_only)

    def status(self, player: str) -> Dashboard:
        """`scat status`: what waits for `player` (his turns, longest waiting first, with the time he
        has left; invitations to answer, R28; games waiting for others) and his games ended in the
        last DASHBOARD_DAYS days, newest first; one indexed query of the games list."""
        since = recorded_text(self.playing.clock() - timedelta(days=DASHBOARD_DAYS))
        rows, read_only = self.reading.games_of(player, since)
        key = player.casefold()
        # a bot of the same name is someone else: his games are not the player's
        listed = [row for row in self._listings(rows, read_only) if key not in {bot.casefold() for bot in row.bots}]
        mine = [row for row in listed if not row.read_only]
        return Dashboard(
            player=player,
            your_turn=[row for row in mine if row.status == "active" and (row.turn or "").casefold() == key],
            invitations=[row for row in mine if row.status == "pending"
                         and any(name.casefold() == key for name in row.awaiting)],
            waiting=[row for row in mine if (row.status == "active" and (row.turn or "").casefold() != key)
                     or (row.status == "pending" and all(name.casefold() != key for name in row.awaiting))],
            finished=[row for row in reversed(listed) if row.status in ("finished", "cancelled")],
        )

    def _listings(self, rows: Sequence[GameRow], read_only: set[str]) -> list[Listing]:
        """The games list's rows as told: each with whether it is read-only here, whether its creator
        chose its chance, its move time left (R28) and, with an open seat, its options."""
        made = self.reading.creations(rows)
        described = {row.game_id: made[row.game_id].options.describe() for row in rows
                     if row.open_seats and row.game_id in made}
        rated = {}
        if described:  # the lobby: strangers pick opponents by their ratings (only theirs are read)
            seated = {name for row in rows if row.open_seats for name in row.players}
            rated = {(row.name.casefold(), row.is_bot): row.rating
                     for row in self.statistics.ratings_of(seated).players}
        now = self.playing.clock()
        clocks = {row.game_id: move_clock(None if row.game_id in read_only or row.status not in ("active", "pending")
                                          else row.move_deadline, now) for row in rows}
        return [
            Listing(game_id=row.game_id, status=row.status, players=list(row.players), bots=list(row.bots),
                    turn=None if row.game_id in read_only else row.turn, hand_number=row.hand_number,
                    dealer=row.dealer, created_at=row.created_at, last_activity=row.last_activity,
                    winner=row.winner, head_seq=row.head_seq, protected=row.protected,
                    read_only=row.game_id in read_only,
                    seed_chosen=row.game_id in made and made[row.game_id].seed_chosen,
                    first_deck_stacked=row.game_id in made and made[row.game_id].first_deck_stacked,
                    move_deadline=clocks[row.game_id][0],
                    move_time_left=clocks[row.game_id][1], awaiting=list(row.awaiting), open_seats=row.open_seats,
                    options=described.get(row.game_id, []),
                    ratings={name: rated[(name.casefold(), name in row.bots)] for name in row.players
                             if (name.casefold(), name in row.bots) in rated} if row.open_seats else {})
            for row in rows
        ]

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given`: NotFound when no game matches;
        BadInput (a usage error) naming the matches when several do. A whole id is found with one
        lookup; only a shorter one lists ids."""
        wanted = given.strip()
        if not wanted:
            raise BadInput("a game id cannot be empty", hint=Hint.LIST_GAMES)
        with self.store.read() as tx:
            try:
                if tx.head(wanted) is not None or tx.get_game(wanted) is not None:
                    return wanted
            except CorruptHistory:  # damaged, but there: the command (or the audit) says how (#14 item 7)
                return wanted
            known = {*tx.game_ids(), *tx.logged_game_ids()}
        folded = wanted.casefold()
        matches = sorted(game_id for game_id in known if game_id.casefold().startswith(folded))
        if not matches:
            raise NotFound(f"no game {given!r}", hint=Hint.LIST_GAMES)
        if len(matches) > 1:
            listed = ", ".join(matches[:MAX_LISTED]) + (", …" if len(matches) > MAX_LISTED else "")
            raise BadInput(f"{given!r} is the start of {len(matches)} game ids ({listed}): give more of it")
        return matches[0]

    # ---- waiting for a game to move: `scat wait` and `scat watch` ---------------------------

    def head_seq(self, game_id: str) -> int:
        """The seq of the game's last event (NotFound when there is no such game)."""
        with self.store.read() as tx:
            head = tx.head(game_id)
        if head is None:
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        return head[0]

    def wait_for_event(self, game_id: str, after: int, timeout: float | None = None) -> bool:
        """Block until the game has an event after seq `after`; False when `timeout` seconds pass first.
        PostgreSQL pushes (LISTEN/NOTIFY: a move through any process or server wakes it); SQLite polls
        the head a few times a second."""
        self.head_seq(game_id)  # NotFound at once for no such game
        return self.store.wait_for_head(game_id, lambda: self.head_seq(game_id), after, timeout)

    def wait_for_change(self, game_id: str, at: int, timeout: float | None = None) -> bool:
        """Block until the game's head is no longer at seq `at`: an event after it, or its history cut
        back under it (which `wait_for_event` would wait through); False when `timeout` seconds pass first."""
        self.head_seq(game_id)

        def moved_on() -> int:  # past `at` for the store's wait whenever the head is anywhere else
            return at + 1 if self.head_seq(game_id) != at else at

        return self.store.wait_for_head(game_id, moved_on, at, timeout)

    def wait_for_turn(self, game_id: str, player: str, token: Credential = None,
                      timeout: float | None = None, look: bool = True) -> Waited:
        """`scat wait`: what `show` gives `player` once it is his turn or the game is over; after
        `timeout` seconds, what it gives then, marked `timed_out` (`look=False`: a hand face down
        stays so, R23)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                shown = self.show(game_id, player, token, look)
            except AuthFailed:  # a protected game imported running has no tokens here: read-only too
                if self.reading.is_read_only(game_id):
                    raise _read_only(game_id) from None
                raise
            if shown.read_only:
                raise _read_only(game_id)
            if shown.state.seat_of(player) is None:  # an account with no seat is shown the public view
                raise NotFound.no_seat(game_id, player, [p.name for p in shown.state.players])
            if shown.state.waits_for(player):
                return Waited(shown=shown, timed_out=False)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return Waited(shown=shown, timed_out=True)
            # Awake when the player to act runs out of move time: the next `show` claims his turn (R28).
            late = shown.move_time_left + 0.05 if shown.move_time_left else None
            moved = self.wait_for_event(game_id, shown.state.version,
                                        left if late is None else late if left is None else min(left, late))
            if not moved and late is None:
                return Waited(shown=shown, timed_out=True)

    def watch(self, game_id: str, viewer: str | None = None, token: Credential = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """`scat watch`: every event of the game as `viewer` may see it, the first ones at once, then
        each as it is appended, until the game is over (`look=False`: a new hand of his stays face
        down, R23)."""
        told, last = 0, None
        while True:
            history = self.log_of(game_id, viewer, token, look)
            if last is not None:
                _same_history(game_id, last, history.state.version, history.events)
            for seen in history.events:
                if seen.seq > told:
                    yield seen
                    told, last = seen.seq, seen
            if history.state.status == "finished":
                return
            self.wait_for_change(game_id, told, None)  # a history cut back under `told` wakes it too

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None, look: bool = True) -> WaitedAny:
        """`scat wait --any`: what `show` gives `player` of the first game that waits for him or
        ended (leaving out what `told` holds), or nothing once `timeout` passed (`look=False`: no look, R23)."""
        return self.any_turn.wait_for_any_turn(player, tokens, timeout, told, look)

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

    # ---- the archive, statistics and ratings: modules of their own, imported on first use ----

    def export(self, game_id: str, running: bool = False) -> Export:
        """`scat export GAME`: the full history (a running game only with `running`, never a protected one)."""
        return self.archive.export(game_id, running)

    def export_all(self, running: bool = False, progress: Progress | None = None) -> Iterator[Export | Skipped]:
        """`scat export --all`: every game exported, or skipped with the reason."""
        return self.archive.export_all(running, progress)

    def export_page(self, running: bool = False, after: str | None = None, limit: int | None = None) -> Exports:
        """One page of `export_all`: at most `limit` games after the game `after` (the previous page's `next`)."""
        return self.archive.export_page(running, after, limit)

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

    def ratings(self, player: str | None = None, rebuild: bool = False) -> Ratings:
        """`scat ratings`: a rating per player over the games played out (a projection of the events)."""
        return self.statistics.ratings(player, rebuild)

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """Figures per player and overall, caught up with the log first (rebuilt with `rebuild`)."""
        return self.statistics.stats(player, rebuild)

"""The front end's use cases of playing and reading: one call per command, values redacted for the viewer.

Each returns a value of scat_core.service.values (a JSON API sends it as it is): the state
and events as the viewer may know them, the viewer's moves now (from the domain's legal
moves), whether the game is read-only here, and the result once the game is over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.commands import LegalMove
from scat_core.domain.errors import AuthFailed, Hint
from scat_core.domain.legal import legal_moves
from scat_core.domain.options import GameOptions, recorded_text
from scat_core.domain.state import GameState
from scat_core.domain.views import redact_state
from scat_core.records.acting import ActingAccount, Credential
from scat_core.records.games import GameRow, ListedAfter
from scat_core.records.move_signatures import MoveSignature
from scat_core.service.catching_up import CatchingUp
from scat_core.service.move_times import move_clock
from scat_core.service.outcomes import GameResult, game_result
from scat_core.service.playing import Outcome, Playing
from scat_core.service.ports import UnitOfWork
from scat_core.service.reading import Reading
from scat_core.service.values import (
    Dashboard,
    GamesPage,
    History,
    Listing,
    News,
    Played,
    Position,
    Ratings,
    SeenEvent,
    Shown,
)

#: The games list's total counts no further: a page's count is bounded whatever the number of games.
COUNTED = 10_000


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


#: `scat status` tells the games ended in the last this many days.
DASHBOARD_DAYS = 7


class Answers:
    """`new`, a move, `show`, `log`, `replay` and `games`, each as one call returning one value."""

    def __init__(self, playing: Playing, reading: Reading, catching_up: CatchingUp,
                 rate: Callable[[], Ratings] | None = None) -> None:
        self.playing, self.reading, self.catching_up = playing, reading, catching_up
        self.rate = rate  # every player's rating: the lobby tells those of who sits in each game

    def new_game(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
        viewer: str | None = None, signed_moves: bool = False, consent: bool = False, open_seats: int = 0,
        expires: int | None = None, rematch_of: str | None = None,
    ) -> Played:
        """Create a game (see `Playing.create_game`), told to `viewer` if he is one of its humans, else the
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
        """The rematch of a finished game (see `Playing.rematch`), told to the player who asked."""
        answer = _Answer(lambda outcome: outcome.state.name(outcome.state.seat_of(player)) or player)
        return answer.final(self.playing.rematch(game_id, player, token, answer.tell))

    def seat(self, game_id: str, command: cmd.AcceptSeat | cmd.DeclineSeat | cmd.JoinGame,
             token: Credential = None, signature: MoveSignature | None = None) -> Played:
        """Accept, decline or take a seat (see `Playing.seat`), told to the player."""
        answer = _Answer(lambda outcome: outcome.state.name(outcome.state.seat_of(command.player)) or command.player)
        return answer.final(self.playing.seat(game_id, command, token, signature, answer.tell))

    def move(self, game_id: str, command: cmd.PlayerCommand, token: Credential = None,
             signature: MoveSignature | None = None) -> Played:
        """A player's move and the bots' answer (see `Playing.act`), told to the mover: the answer is
        made before the move is written, so nothing can fail once it is."""
        answer = _Answer(lambda _: command.player)
        return answer.final(self.playing.act(game_id, command, token, signature, answer.tell))

    def claim(self, game_id: str, claimer: str | None, token: Credential = None,
              signature: MoveSignature | None = None) -> Played:
        """A claim of the turn of a player out of time (R28; see `Playing.claim`), told to the claimer.

        Without a claimer only an unprotected game may be claimed (a protected one asks a player's token)."""
        if claimer is None and self.playing.is_protected(game_id):
            raise AuthFailed(f"game {game_id} is protected: claim as one of its players, with his token",
                             game_id=game_id, hint=Hint.GIVE_TOKEN)
        answer = _Answer(lambda _: claimer)
        return answer.final(self.playing.claim(game_id, claimer, token, signature, answer.tell))

    def say(self, game_id: str, player: str, text: str, token: Credential = None,
            signature: MoveSignature | None = None) -> Played:
        """A message said at the game's table (see `Playing.say`), told to its speaker."""
        answer = _Answer(lambda outcome: outcome.state.name(outcome.state.seat_of(player)) or player)
        return answer.final(self.playing.say(game_id, player, text, token, signature, answer.tell))

    def abandon(self, game_id: str, player: str | None = None, token: Credential = None,
                signature: MoveSignature | None = None) -> Played:
        """The game given up without a winner (see `Playing.abandon`), told to whoever gave it up."""
        answer = _Answer(lambda _: player)
        return answer.final(self.playing.abandon(game_id, player, token, signature, answer.tell))

    def _viewer(self, game_id: str, viewer: str | None, token: Credential) -> str | None:
        """`viewer`, or None (the public) when he is the acting account and sits not in the game:
        a server's account sees any game, his own hand only in his own (its seats are all he may take)."""
        if viewer is None or not isinstance(token, ActingAccount) or viewer.casefold() != token.name.casefold():
            return viewer
        return viewer if self.reading.seats(game_id, viewer) else None

    def show(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> Shown:
        """The game now as `viewer` (None: the public) may know it: a look (recorded in throw-down
        games, R23; owed bot moves are played), his news since his last move, the result once over.
        `look=False` records no look: a hand still face down stays so, and he may still throw down."""
        viewer = self._viewer(game_id, viewer, token)
        state = self.playing.look(game_id, viewer, token, look)
        read_only = state.status != "finished" and self.reading.is_read_only(game_id)
        news = None
        if viewer is not None:
            found = self.catching_up.news(game_id, viewer, token, look)
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

    def log(self, game_id: str, viewer: str | None = None, token: Credential = None, look: bool = True) -> History:
        """Every event as `viewer` may see it (hashes once the game is over: before, one would betray a card);
        `look=False` records no look at a face-down hand (R23)."""
        viewer = self._viewer(game_id, viewer, token)
        state, shown = self.reading.look_at_history(game_id, viewer, token, look=look)
        hashes = state.status == "finished"
        return History(game_id=game_id, viewer=viewer, state=redact_state(state, viewer),
                       events=[SeenEvent.of(stored, event, hashes) for stored, event in shown])

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: Credential = None) -> History:
        """The game rebuilt as after event `to` (default: the last), as `viewer` could see it then;
        at the last event, his moves now."""
        viewer = self._viewer(game_id, viewer, token)
        state, shown = self.reading.look_at_history(game_id, viewer, token, up_to=to, as_then=True)
        now = viewer is not None and to is None
        read_only = now and state.status != "finished" and self.reading.is_read_only(game_id)
        state = redact_state(state, viewer)
        return History(game_id=game_id, viewer=viewer, state=state,
                       events=[SeenEvent.of(stored, event) for stored, event in shown], read_only=read_only,
                       moves=moves_of(state, viewer, read_only) if now else [])

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None, first_for: str | None = None, after: str | None = None) -> GamesPage:
        """`game_list` of at most `limit` games (after the cursor `after` a page before gave as its `next`),
        the cursor of the next page, and how many the filters match in all: counted only when there is
        more than this page, and no further than COUNTED (one bounded indexed count, `total_at_least`
        then), whatever the number of games."""
        cursor = None if after is None else ListedAfter.parse(after)
        listed = self.game_list(status, waiting_for, limit, first_for, cursor)
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

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None, first_for: str | None = None,
                  after: ListedAfter | None = None) -> list[Listing]:
        """Games newest activity first (optionally only those with a status or waiting for a name,
        at most `limit`), each with whether it is read-only here and whether its creator chose its
        chance (#14 item 4) and, with a move time, how long its player to act has left (R28);
        with `first_for` (a server's account), the games he sits in first."""
        rows, read_only = self.reading.list_games_read_only(status, waiting_for, limit, first_for, after)
        return self._listings(rows, read_only)

    def status(self, player: str) -> Dashboard:
        """`scat status`: what waits for `player` (his turns, longest waiting first, with the time he
        has left; invitations to answer, R28; games waiting for others) and his games ended in the
        last DASHBOARD_DAYS days, newest first; one indexed query of the games list."""
        since = recorded_text(self.playing.clock() - timedelta(days=DASHBOARD_DAYS))
        rows, read_only = self.reading.games_of(player, since)
        key = player.casefold()
        listed = self._listings(rows, read_only)
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
        chosen = self.reading.chosen_chance([row.game_id for row in rows])
        described = self.reading.options_of([row.game_id for row in rows if row.open_seats])
        rated = {}
        if described and self.rate is not None:  # the lobby: strangers pick opponents by their ratings
            rated = {(row.name.casefold(), row.is_bot): row.rating for row in self.rate().players}
        now = self.playing.clock()
        clocks = {row.game_id: move_clock(None if row.game_id in read_only or row.status not in ("active", "pending")
                                          else row.move_deadline, now) for row in rows}
        return [
            Listing(game_id=row.game_id, status=row.status, players=list(row.players), bots=list(row.bots),
                    turn=None if row.game_id in read_only else row.turn, hand_number=row.hand_number,
                    dealer=row.dealer, created_at=row.created_at, last_activity=row.last_activity,
                    winner=row.winner, head_seq=row.head_seq, protected=row.protected,
                    read_only=row.game_id in read_only, seed_chosen=chosen[row.game_id][0],
                    first_deck_stacked=chosen[row.game_id][1], move_deadline=clocks[row.game_id][0],
                    move_time_left=clocks[row.game_id][1], awaiting=list(row.awaiting), open_seats=row.open_seats,
                    options=described.get(row.game_id, []),
                    ratings={name: rated[(name.casefold(), name in row.bots)] for name in row.players
                             if (name.casefold(), name in row.bots) in rated} if row.open_seats else {})
            for row in rows
        ]

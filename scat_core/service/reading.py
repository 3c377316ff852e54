"""Reading games: the games list, a game's history as a viewer may see it, a returning player's news,
a finished game's result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scat_core.domain import events as ev
from scat_core.domain.errors import Hint, RuleViolation
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.state import GameState
from scat_core.domain.views import PUBLIC_TYPES, PublicState, public_evolve, redact, with_public
from scat_core.records.credentials import Credential
from scat_core.records.errors import CorruptHistory
from scat_core.records.games import GameRow, ListedAfter
from scat_core.records.stored_log import StoredEvent
from scat_core.service.loading import (
    authorize,
    check_up_to,
    creations,
    load_for_command,
    refuse_bot_viewer,
    replay,
    require_player,
)
from scat_core.service.playing import Playing
from scat_core.service.ports import Store, UnitOfWork
from scat_core.service.values import ACTIONS, Creation, GameResult, game_result, result_kept

#: How many of the last messages `show` tells.
LAST_MESSAGES = 5
NEWS_PAGE = 24  # actions read per step back through the log (a few rounds of a full table)
ACTION_TYPES = tuple(kind.__name__ for kind in ACTIONS)


@dataclass(frozen=True)
class Catchup:
    """What a player has not seen himself: the events since his last action, redacted for him."""

    state: GameState  # the game now
    before: GameState  # the game just before the first of `events`: its public parts only (no cards)
    events: list[tuple[StoredEvent, ev.Event]]


class Reading:
    """Lists, histories and results over one store; a history of the current hand is a look (see `Playing.look`)."""

    def __init__(self, store: Store, playing: Playing) -> None:
        self.store, self.playing = store, playing

    def list_games(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None) -> list[GameRow]:
        """Games newest activity first, optionally only those with a status or waiting for a name, at most `limit`.

        An imported running game waits for nobody here (read-only): `waiting_for` leaves it out.
        """
        return self.list_games_read_only(status, waiting_for, limit)[0]

    def list_games_read_only(
        self, status: str | None = None, waiting_for: str | None = None, limit: int | None = None,
        first_for: str | None = None, after: ListedAfter | None = None,
    ) -> tuple[list[GameRow], set[str]]:
        """`list_games` (`first_for`'s games first), and the ids of the games listed that are read-only here.

        Read-only: running, but imported without the secret seed (which stays where the game
        was created), so nobody can play it here and its turn waits for nobody.
        """
        with self.store.read() as tx:
            rows = tx.list_games(status=status, waiting_for=waiting_for, limit=limit, first_for=first_for, after=after)
            read_only = self._read_only(tx, rows)
        if waiting_for is not None:  # it waits for nobody here
            return [row for row in rows if row.game_id not in read_only], set()
        return rows, read_only

    @staticmethod
    def _read_only(tx: UnitOfWork, rows: Sequence[GameRow]) -> set[str]:
        """The ids of the running games of `rows` imported without their seed: nobody plays them here."""
        running = [row.game_id for row in rows if row.status in ("active", "pending")]
        playable = tx.secret_game_ids(running)
        return {game_id for game_id in running if game_id not in playable}

    def games_of(self, player: str, ended_since: str) -> tuple[list[GameRow], set[str]]:
        """The games `player` sits in that wait or run, or ended at or after `ended_since` (oldest
        activity first), and the ids of those read-only here."""
        with self.store.read() as tx:
            rows = tx.games_of(player, ended_since)
            return rows, self._read_only(tx, rows)

    def count_listed(self, status: str | None = None, waiting_for: str | None = None,
                     at_most: int | None = None) -> int:
        """How many games `list_games` lists without a limit (an imported running game counted), counting
        no further than `at_most`."""
        with self.store.read() as tx:
            return tx.count_listed(status, waiting_for, at_most)

    def expired_games(self, now: str, limit: int) -> list[str]:
        """Running games whose player to act ran out of move time by `now` (R28), from the read model."""
        with self.store.read() as tx:
            return tx.expired_games(now, limit)

    def creations(self, rows: Sequence[GameRow]) -> dict[str, Creation]:
        """What the games of `rows` were created with (kept in their rows; from the first events of
        games added before it was kept): whether their creator chose their chance (#14 item 4: whoever
        did can know every hand, so every list says so), their options (the lobby's), their creator."""
        with self.store.read() as tx:
            return creations(tx, rows)

    def seats(self, game_id: str, player: str) -> bool:
        """Whether `player` sits in the game (as its games list row tells; a game not listed: as if he did)."""
        with self.store.read() as tx:
            row = tx.get_game(game_id)
        return row is None or any(name.casefold() == player.casefold() for name in row.players)

    def is_read_only(self, game_id: str) -> bool:
        """Whether a running game was imported without its secret seed: shown, never played."""
        with self.store.read() as tx:
            row = tx.get_game(game_id)
            if row is None:
                tx.load(game_id)  # NotFound
            return (row is None or row.status != "finished") and tx.get_secret(game_id) is None

    def last_messages(self, game_id: str, up_to: int, limit: int = LAST_MESSAGES) -> list[StoredEvent]:
        """The last `limit` messages said at the game's table up to event `up_to`, oldest first (one
        indexed read from the log's end, whatever its length)."""
        with self.store.read() as tx:
            said = tx.load_between(game_id, 0, up_to, ("MessageSaid",), newest_first=True, limit=limit)
        return said[::-1]

    def history(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The stored events of a game, unredacted, up to seq `up_to` (BadInput when it has no such event)."""
        with self.store.read() as tx:
            events = tx.load(game_id)
        if up_to is not None:
            check_up_to(game_id, up_to, len(events))
            events = events[:up_to]
        return events

    def look_at_history(
        self, game_id: str, viewer: str | None = None, token: Credential = None, up_to: int | None = None,
        as_then: bool = False, look: bool = True,
    ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]:
        """The state after `up_to` and each event as `viewer` may see it (all, once the game ended).

        Showing `viewer` the game as it is now (no `up_to`) is a look (`Playing.look`: recorded
        in throw-down games, R23; not with `look=False`: his face-down hand's deal is then told as
        the public saw it). A history cut at `up_to` records none: it shows his hand of
        then only if he had looked at it by then (R23), and a look is never undone within a hand,
        so it shows nothing he has not seen. With `as_then`, events are shown as `viewer` saw
        them at `up_to`, even if the game has ended since (a replay); the state returned is
        always the true one.
        """
        with self.store.read() as tx:
            full = tx.load(game_id)
        final = replay(game_id, full)
        # Everything that can refuse is checked before `look`, which may write (R23, bots).
        if viewer is not None:
            require_player(final, viewer)
        if up_to is not None:
            check_up_to(game_id, up_to, len(full))
        if viewer is not None and final.status != "finished":
            refuse_bot_viewer(final, viewer)
            if up_to is None:
                # Authorizes, and in throw-down games records that the viewer sees his hand (R23).
                if self.playing.look(game_id, viewer, token, look).version != final.version:
                    with self.store.read() as tx:
                        full = tx.load(game_id)
                    final = replay(game_id, full)
            else:  # the game as it was: his hand only if he had seen it then, so no look is recorded
                with self.store.read() as tx:
                    authorize(tx, final, viewer, token)
        shown: list[tuple[StoredEvent, ev.Event]] = []
        state = GameState()
        revealed = final.status == "finished" and not (as_then and up_to is not None and up_to < len(full))
        last_deal: tuple[int, ev.Event] | None = None  # the latest deal as the public saw it
        for stored in full[:up_to]:
            event = stored.event
            if not revealed and isinstance(event, ev.HandDealt):
                last_deal = (len(shown), redact(event, state, None))
            shown.append((stored, event if revealed else redact(event, state, viewer)))
            state = evolve(state, event)
        seat = state.seat_of(viewer) if viewer is not None else None
        if last_deal is not None and seat is not None and state.hand_unseen(seat):
            # His hand still lies face down (R23; a read-only game records no look): its deal is
            # told as the public saw it, as the state shows it.
            index, public = last_deal
            shown[index] = (shown[index][0], public)
        return state, shown

    def news(self, game_id: str, viewer: str, token: Credential = None, look: bool = True) -> Catchup:
        """The events since `viewer` last acted (since the game was created if he never has), as he may see them.

        `look=False` records no look (R23): while his hand lies face down its deal is told as
        the public saw it.

        Its cost does not grow with the game: the state comes from the snapshot, the viewer's
        last action is sought from the log's end backwards, only the events after it are read
        (and redacted), and the public table before them is rebuilt from the few events that
        change it (the creation, the last deal, pennies paid, players out).
        """
        with self.store.read() as tx:
            final = load_for_command(tx, game_id)[0]
        seat = require_player(final, viewer)  # everything that can refuse is checked before `look` (R23, bots)
        viewer = final.players[seat].name  # as seated: `--as " josé "` is José
        if final.status != "finished":
            refuse_bot_viewer(final, viewer)
            final = self.playing.look(game_id, viewer, token, look)  # authorizes; records a look (R23)
        head, key = final.version, viewer.casefold()
        with self.store.read() as tx:
            start, below = 1, head
            while below > 1 and start == 1:  # the viewer's last action, newest first, a page at a time
                page = tx.load_between(game_id, 1, below, ACTION_TYPES, newest_first=True, limit=NEWS_PAGE)
                mine = next((s for s in page if s.event.player.casefold() == key), None)  # type: ignore[union-attr]
                start = start if mine is None else mine.seq
                below = 1 if len(page) < NEWS_PAGE else page[-1].seq - 1
            tail = tx.load_between(game_id, start, head)
            changes = tx.load_between(game_id, 0, start, PUBLIC_TYPES)
            deal = tx.load_between(game_id, 0, start, ("HandDealt",), newest_first=True, limit=1)
        if [s.seq for s in tail] != list(range(start + 1, head + 1)) or not changes or changes[0].seq != 1:
            raise CorruptHistory(
                f"the stored history of game {game_id} is damaged (an event is missing or misnumbered)",
                game_id=game_id, hint=Hint.FIND_BAD_EVENT,
            )
        before, table = _public_state([s.event for s in changes], deal[0].event if deal else None)
        revealed = final.status == "finished"
        at = final.seat_of(viewer)
        face_down = not revealed and at is not None and final.hand_unseen(at)
        shown: list[tuple[StoredEvent, ev.Event]] = []
        state = before
        for stored in tail:
            event = stored.event
            if face_down and isinstance(event, ev.HandDealt) and event.hand_number == final.hand_number:
                shown.append((stored, redact(event, state, None)))  # his hand is face down: the public's deal
            else:
                shown.append((stored, event if revealed else redact(event, state, viewer)))
            after = public_evolve(table, event)
            if after is not table:
                state, table = with_public(state, after), after
        return Catchup(final, before, shown)

    def game_result(self, game_id: str) -> GameResult:
        """The result of a finished game: each hand's outcome, standings, duration, winner (R26)."""
        with self.store.read() as tx:
            row = tx.get_game(game_id)
            if row is not None and row.status == "finished" and row.result is not None:
                kept = result_kept(row.result)  # kept by the append that ended it or the import (older games: none)
                if kept is not None:
                    return kept
            stored = tx.load(game_id)
        if not stored or ev.ending_of([s.event for s in stored]) is None:
            raise RuleViolation(f"game {game_id} is not over yet")
        return game_result([(s.seq, s.recorded_at, s.event) for s in stored])


def _public_state(changes: list[ev.Event], deal: ev.Event | None) -> tuple[GameState, PublicState]:
    """The public part of the game before the news (seats, pennies, kitty, hand, dealer), rebuilt
    from its creation, the last deal and every penny paid or player out before then."""
    table = public_evolve(PublicState(), changes[0])
    if deal is not None:
        table = public_evolve(table, deal)
    for event in changes[1:]:
        table = public_evolve(table, event)
    return with_public(fold(changes[:1]), table), table

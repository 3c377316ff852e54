"""Finding a game by an abbreviated id; a returning player's news; a finished game's result."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scat_core.domain import events as ev
from scat_core.domain.errors import BadInput, CorruptHistory, NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.state import GameState
from scat_core.domain.views import redact
from scat_core.service.outcomes import ACTIONS, GameResult, game_result
from scat_core.store.event_store import EventStore, StoredEvent, StoreTransaction

MAX_LISTED = 8
NEWS_PAGE = 24  # actions read per step back through the log (a few rounds of a full table)
ACTION_TYPES = tuple(kind.__name__ for kind in ACTIONS)
PUBLIC_TYPES = ("GameCreated", "PennyPaid", "PlayerEliminated", "Resigned")  # what changes seats and kitty


class FindingUseCases:
    """Resolving game ids; mixed into GameService, over its `store`."""

    store: EventStore

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given`.

        NotFound when no game matches; BadInput (a usage error) naming the matches when
        several do. A whole id is found with one lookup; only a shorter one lists ids.
        """
        wanted = given.strip()
        if not wanted:
            raise BadInput("a game id cannot be empty (see `scat games`)")
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
            raise NotFound(f"no game {given!r} (see `scat games`)")
        if len(matches) > 1:
            listed = ", ".join(matches[:MAX_LISTED]) + (", …" if len(matches) > MAX_LISTED else "")
            raise BadInput(f"{given!r} is the start of {len(matches)} game ids ({listed}): give more of it")
        return matches[0]


@dataclass(frozen=True)
class News:
    """What a player has not seen himself: the events since his last action, redacted for him."""

    state: GameState  # the game now
    before: GameState  # the game just before the first of `events`: its public parts only (no cards)
    events: list[tuple[StoredEvent, ev.Event]]


class ReadingUseCases(FindingUseCases):
    """A returning player's news and a finished game's result; mixed into GameService."""

    if TYPE_CHECKING:

        def visible_history(
            self, game_id: str, viewer: str | None = None, token: str | None = None, up_to: int | None = None,
            as_then: bool = False,
        ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]: ...

        def view(self, game_id: str, player: str | None = None, token: str | None = None) -> GameState: ...

        @staticmethod
        def _load_for_command(tx: StoreTransaction, game_id: str) -> tuple[GameState, object, str]: ...

    def news(self, game_id: str, viewer: str, token: str | None = None) -> News:
        """The events since `viewer` last acted (since the game was created if he never has), as he may see them.

        Its cost does not grow with the game: the state comes from the snapshot, the viewer's
        last action is sought from the log's end backwards, only the events after it are read
        (and redacted), and the public table before them is rebuilt from the few events that
        change it (the creation, the last deal, pennies paid, players out).
        """
        from scat_core.service.games import _refuse_bot_viewer, _require_player

        with self.store.read() as tx:
            final = self._load_for_command(tx, game_id)[0]
        _require_player(final, viewer)  # everything that can refuse is checked before `view` (R23, bots)
        if final.status != "finished":
            _refuse_bot_viewer(final, viewer)
            final = self.view(game_id, viewer, token)  # authorizes; records a look (R23)
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
                f"the stored history of game {game_id} is damaged (an event is missing or misnumbered); "
                f"`scat audit {game_id}` names the first bad event"
            )
        before = _public_state([s.event for s in changes], deal[0].event if deal else None)
        revealed = final.status == "finished"
        shown: list[tuple[StoredEvent, ev.Event]] = []
        state = before
        for stored in tail:
            event = stored.event
            shown.append((stored, event if revealed else redact(event, state, viewer)))
            state = _public_step(state, event)
        return News(final, before, shown)

    def game_result(self, game_id: str) -> GameResult:
        """The result of a finished game: each hand's outcome, standings, duration, winner (R26)."""
        with self.store.read() as tx:
            stored = tx.load(game_id)
        if not stored or not isinstance(stored[-1].event, ev.GameWon):
            raise RuleViolation(f"game {game_id} is not over yet")
        return game_result([(s.seq, s.recorded_at, s.event) for s in stored])


def _public_state(changes: list[ev.Event], deal: ev.Event | None) -> GameState:
    """The public part of the game before the news (seats, pennies, kitty, hand, dealer), rebuilt
    from its creation, the last deal and every penny paid or player out before then."""
    state = fold(changes[:1])
    if isinstance(deal, ev.HandDealt):
        state = state.evolved(dict(status="active", hand_number=deal.hand_number,
                                   dealer=state.seats[deal.dealer.casefold()]))
    for event in changes[1:]:
        state = _public_step(state, event)
    return state


def _public_step(state: GameState, event: ev.Event) -> GameState:
    """`state` after `event`, its public part only (what the redaction and the table use)."""
    if isinstance(event, ev.HandDealt):
        return state.evolved(dict(status="active", hand_number=event.hand_number,
                                  dealer=state.seats[event.dealer.casefold()]))
    if not isinstance(event, (ev.PennyPaid, ev.PlayerEliminated, ev.Resigned)):
        return state
    seat = state.seats[event.player.casefold()]
    players = list(state.players)
    if isinstance(event, ev.PennyPaid):
        players[seat] = replace(players[seat], pennies=players[seat].pennies - 1)
        return state.evolved(dict(players=tuple(players), kitty=state.kitty + 1))
    players[seat] = replace(players[seat], out=True, resigned=players[seat].resigned or isinstance(event, ev.Resigned))
    return state.evolved(dict(players=tuple(players)))

"""Finding a game by an abbreviated id; a returning player's news; a finished game's result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scat_core.domain import events as ev
from scat_core.domain.errors import BadInput, CorruptHistory, NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.state import GameState
from scat_core.service.outcomes import GameResult, game_result, last_action_index
from scat_core.store.event_store import EventStore, StoredEvent

MAX_LISTED = 8


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
    before: GameState  # the game just before the first of `events` (public parts only are used)
    events: list[tuple[StoredEvent, ev.Event]]


class ReadingUseCases(FindingUseCases):
    """A returning player's news and a finished game's result; mixed into GameService."""

    if TYPE_CHECKING:

        def visible_history(
            self, game_id: str, viewer: str | None = None, token: str | None = None, up_to: int | None = None,
            as_then: bool = False,
        ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]: ...

    def news(self, game_id: str, viewer: str, token: str | None = None) -> News:
        """The events since `viewer` last acted (since the game was created if he never has), as he may see them."""
        state, shown = self.visible_history(game_id, viewer, token)
        true_events = [stored.event for stored, _ in shown]
        last = last_action_index(true_events, viewer)
        start = 1 if last is None else last + 1
        return News(state, fold(true_events[:start]), shown[start:])

    def game_result(self, game_id: str) -> GameResult:
        """The result of a finished game: each hand's outcome, standings, duration, winner (R26)."""
        with self.store.read() as tx:
            stored = tx.load(game_id)
        if not stored or not isinstance(stored[-1].event, ev.GameWon):
            raise RuleViolation(f"game {game_id} is not over yet")
        return game_result([(s.seq, s.recorded_at, s.event) for s in stored])

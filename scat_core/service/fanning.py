"""New events of a game as every kind of viewer may see them, each redacted once per kind: the
public, and each seated human (what `Reading.look_at_history` shows each of them, event by event)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scat_core.domain import events as ev
from scat_core.domain.evolve import evolve
from scat_core.domain.state import GameState
from scat_core.domain.views import redact
from scat_core.records.stored_log import StoredEvent
from scat_core.service.values import SeenEvent

#: The view of a viewer who is no player (the public), beside each player's seat.
PUBLIC: None = None
View = int | None


@dataclass(frozen=True)
class SeenByAll:
    """One stored event as each view may see it; `everyone` when it is the same for all (the game is over)."""

    seq: int
    by_view: dict[View, SeenEvent]
    everyone: SeenEvent | None = None

    def seen_by(self, view: View) -> SeenEvent:
        """The event as `view` (PUBLIC or a seat) may see it."""
        return self.everyone if self.everyone is not None else self.by_view.get(view, self.by_view[PUBLIC])


def seen_by_all(before: GameState, new: Sequence[StoredEvent]) -> tuple[GameState, list[SeenByAll]]:
    """The state after `new` (the events after `before`, in seq order) and each of them as every
    view may see it: the public, and each seated human (a bot watches nothing while the game runs).

    As a history read at the end of `new` shows them: once the game is over every card is public
    (the events carry their hashes), and a player whose hand still lies face down (R23) is told
    the batch's latest deal as the public saw it.
    """
    state, shown = before, list[SeenByAll]()
    last_deal: int | None = None
    for stored in new:
        event, seats = stored.event, _human_seats(state)
        views: dict[View, SeenEvent] = {PUBLIC: SeenEvent.of(stored, redact(event, state, None))}
        for seat, name in seats:
            views[seat] = SeenEvent.of(stored, redact(event, state, name))
        if isinstance(event, ev.HandDealt):
            last_deal = len(shown)
        shown.append(SeenByAll(stored.seq, views))
        state = evolve(state, event)
    if state.status == "finished":
        return state, [SeenByAll(stored.seq, {}, SeenEvent.of(stored, stored.event, True)) for stored in new]
    if last_deal is not None:
        deal = shown[last_deal]
        unseen: dict[View, SeenEvent] = {
            seat: deal.by_view[PUBLIC] for seat in deal.by_view if seat is not None and state.hand_unseen(seat)}
        shown[last_deal] = SeenByAll(deal.seq, deal.by_view | unseen)
    return state, shown


def _human_seats(state: GameState) -> list[tuple[int, str]]:
    """(seat, name) of each human seated in `state` (none before the game is created)."""
    return [(seat, player.name) for seat, player in enumerate(state.players) if not player.is_bot]


def view_of(state: GameState, viewer: str | None) -> View:
    """The view `viewer` (None: the public) sees the game through: his seat, or PUBLIC."""
    return state.seat_of(viewer) if viewer is not None else PUBLIC


def hands_to_show(state: GameState, new: Sequence[StoredEvent], watched: Sequence[int]) -> list[int]:
    """The seats among `watched` whose new hand lies face down after `new` (R23): a history read
    as their player would record that he looked, so a follower records it before telling them."""
    dealt = any(isinstance(stored.event, ev.HandDealt) for stored in new)
    if not dealt or state.status == "finished":
        return []
    return [seat for seat in watched if state.hand_unseen(seat) and not state.players[seat].out]

"""A returning player's news: the events since his last action, redacted for him, read in steps."""

from __future__ import annotations

from dataclasses import dataclass

from scat_core.domain import events as ev
from scat_core.domain.errors import Hint
from scat_core.domain.evolve import fold
from scat_core.domain.state import GameState
from scat_core.domain.views import PUBLIC_TYPES, PublicState, public_evolve, redact, with_public
from scat_core.records.acting import Credential
from scat_core.records.errors import CorruptHistory
from scat_core.records.stored import StoredEvent
from scat_core.service.loading import load_for_command, refuse_bot_viewer, require_player
from scat_core.service.outcomes import ACTIONS
from scat_core.service.playing import Playing
from scat_core.service.ports import Store

NEWS_PAGE = 24  # actions read per step back through the log (a few rounds of a full table)
ACTION_TYPES = tuple(kind.__name__ for kind in ACTIONS)


@dataclass(frozen=True)
class Catchup:
    """What a player has not seen himself: the events since his last action, redacted for him."""

    state: GameState  # the game now
    before: GameState  # the game just before the first of `events`: its public parts only (no cards)
    events: list[tuple[StoredEvent, ev.Event]]


class CatchingUp:
    """A returning player's news: what happened since his last move (a look: it may record one, R23)."""

    def __init__(self, store: Store, playing: Playing) -> None:
        self.store, self.playing = store, playing

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


def _public_state(changes: list[ev.Event], deal: ev.Event | None) -> tuple[GameState, PublicState]:
    """The public part of the game before the news (seats, pennies, kitty, hand, dealer), rebuilt
    from its creation, the last deal and every penny paid or player out before then."""
    table = public_evolve(PublicState(), changes[0])
    if deal is not None:
        table = public_evolve(table, deal)
    for event in changes[1:]:
        table = public_evolve(table, event)
    return with_public(fold(changes[:1]), table), table

"""Following a game over days: waiting for a player's turn, and each event as it is appended."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from scat_core.domain.errors import AuthFailed, NotFound, RuleViolation
from scat_core.domain.state import GameState
from scat_core.records.acting import Credential
from scat_core.records.errors import HistoryDamaged
from scat_core.service.answers import Answers
from scat_core.service.values import SeenEvent, Waited
from scat_core.service.waiting import Waiting


def turn_has_come(state: GameState, player: str) -> bool:
    """Whether `player` is to act in `state`, is invited to accept his seat in it (R28), or the game is
    over or cancelled (nothing more to wait for)."""
    seat = state.seat_of(player)
    if state.status == "pending":
        return seat is not None and state.players[seat].name in state.awaiting
    return state.status in ("finished", "cancelled") or (state.in_hand and seat is not None and state.turn == seat)


def _read_only(game_id: str) -> RuleViolation:
    """Why nobody can wait on a game imported running: nothing is ever played on it here."""
    return RuleViolation(
        f"game {game_id} was imported without its secret seed: it can be shown, replayed and "
        "audited, not played on, so nobody's turn comes here"
    )


class Following:
    """`scat wait` and `scat watch`: each one call that blocks until the game moves."""

    def __init__(self, answers: Answers, waiting: Waiting) -> None:
        self.answers, self.waiting = answers, waiting

    def wait_for_turn(self, game_id: str, player: str, token: Credential = None,
                      timeout: float | None = None, look: bool = True) -> Waited:
        """What `show` gives `player` once it is his turn or the game is over; after `timeout`
        seconds, what it gives then, marked `timed_out` (`look=False`: a hand face down stays so, R23)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                shown = self.answers.show(game_id, player, token, look)
            except AuthFailed:  # a protected game imported running has no tokens here: read-only too
                if self.answers.reading.is_read_only(game_id):
                    raise _read_only(game_id) from None
                raise
            if shown.read_only:
                raise _read_only(game_id)
            if shown.state.seat_of(player) is None:  # an account with no seat is shown the public view
                raise NotFound.no_seat(game_id, player, [p.name for p in shown.state.players])
            if turn_has_come(shown.state, player):
                return Waited(shown=shown, timed_out=False)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return Waited(shown=shown, timed_out=True)
            # Awake when the player to act runs out of move time: the next `show` claims his turn (R28).
            late = shown.move_time_left + 0.05 if shown.move_time_left else None
            moved = self.waiting.wait_for_event(game_id, shown.state.version,
                                                left if late is None else late if left is None else min(left, late))
            if not moved and late is None:
                return Waited(shown=shown, timed_out=True)

    def watch(self, game_id: str, viewer: str | None = None, token: Credential = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """Every event of the game as `viewer` may see it, the first ones at once, then each as it
        is appended, until the game is over (`look=False`: a new hand of his stays face down, R23)."""
        told, last = 0, None
        while True:
            history = self.answers.log(game_id, viewer, token, look)
            if last is not None:
                _same_history(game_id, last, history.state.version, history.events)
            for seen in history.events:
                if seen.seq > told:
                    yield seen
                    told, last = seen.seq, seen
            if history.state.status == "finished":
                return
            self.waiting.wait_for_change(game_id, told, None)  # a history cut back under `told` wakes it too


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

"""Waiting for a game to move: `scat wait` and `scat watch` on a database."""

from __future__ import annotations

from scat_core.domain.errors import Hint, NotFound
from scat_core.service.ports import Store


class Waiting:
    """Blocking until a game has new events, over one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def head_seq(self, game_id: str) -> int:
        """The seq of the game's last event (NotFound when there is no such game)."""
        with self.store.read() as tx:
            head = tx.head(game_id)
        if head is None:
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        return head[0]

    def wait_for_event(self, game_id: str, after: int, timeout: float | None = None) -> bool:
        """Block until the game has an event after seq `after`; False when `timeout` seconds pass first.

        PostgreSQL pushes (LISTEN/NOTIFY: a move through any process or server wakes it);
        SQLite polls the head a few times a second.
        """
        self.head_seq(game_id)  # NotFound at once for no such game
        return self.store.wait_for_head(game_id, lambda: self.head_seq(game_id), after, timeout)

    def wait_for_change(self, game_id: str, at: int, timeout: float | None = None) -> bool:
        """Block until the game's head is no longer at seq `at`: an event after it, or its history cut
        back under it (which `wait_for_event` would wait through); False when `timeout` seconds pass first."""
        self.head_seq(game_id)

        def moved_on() -> int:  # past `at` for the store's wait whenever the head is anywhere else
            return at + 1 if self.head_seq(game_id) != at else at

        return self.store.wait_for_head(game_id, moved_on, at, timeout)

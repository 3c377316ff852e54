"""The store's errors: a history damaged outside scat, a write that lost a race, a database unusable now."""

from __future__ import annotations

from scat_core.domain.errors import BadInput, Hint, ScatError


class CorruptHistory(ScatError):
    """A stored event cannot be read back: the history was damaged outside scat."""


class HistoryDamaged(CorruptHistory):
    """A command found the stored log out of step with its verified head, or its chain broken.

    Raised before anything is appended: a damaged history is refused, never healed. `reason`
    says what was found; the front end words the advice (run an audit, `Hint.RUN_AUDIT`).
    """

    def __init__(self, game_id: str, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the stored history of game {game_id} is damaged: {reason}", game_id=game_id,
                         hint=Hint.RUN_AUDIT)


class ConcurrencyConflict(ScatError):
    """Someone else acted on the game first: try again."""


class DatabaseBusy(ConcurrencyConflict):
    """Another program held the database's lock for longer than the bounded wait: try again."""


class StoreUnavailable(BadInput):
    """The database cannot be used now: connection lost, read-only, unreachable."""


class DatabaseReadOnly(StoreUnavailable):
    """The database can be read but not written (a read-only file or medium): commands that only read work."""

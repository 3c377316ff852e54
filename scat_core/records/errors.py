"""The store's errors: a history damaged outside scat, a database unusable now, settings that cannot be used.

Each is a leaf of the one error tree (`scat_core.domain.errors`), in the branch of what it
means: a busy, lost or read-only database is `Unavailable`, never bad input. Where the fix is
a setting of the front end (which database, how long to wait for a lock, which key file, a
strict check), the error's type says which: each front end names its own setting (the CLI:
`scat_cli.errors.SETTINGS`); the core's messages name none.
"""

from __future__ import annotations

from scat_core.domain.errors import (
    BadInput,
    ConcurrencyConflict,
    CorruptHistory,
    Hint,
    RuleViolation,
    Unavailable,
)

__all__ = ["BusyWaitUnreadable", "ConcurrencyConflict", "CorruptHistory", "DatabaseBusy", "DatabaseNotGiven",
           "DatabaseReadOnly", "HistoryDamaged", "KeyFileUnusable", "NotStrictlySigned", "StoreUnavailable"]


class HistoryDamaged(CorruptHistory):
    """A command found the stored log out of step with its verified head, or its chain broken.

    Raised before anything is appended: a damaged history is refused, never healed. `reason`
    says what was found; the front end words the advice (run an audit, `Hint.RUN_AUDIT`).
    """

    def __init__(self, game_id: str, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the stored history of game {game_id} is damaged: {reason}", game_id=game_id,
                         hint=Hint.RUN_AUDIT)


class StoreUnavailable(Unavailable):
    """The database cannot be used now: connection lost, restarted, unreachable.

    `reason` is the driver's first line, without the database's URL (the message names it).
    """

    reason: str = ""


class DatabaseReadOnly(StoreUnavailable):
    """The database can be read but not written (a read-only file or medium): commands that only read work."""


class DatabaseBusy(Unavailable):
    """Another program held the database's lock for longer than the bounded wait (a setting): try again."""


class DatabaseNotGiven(BadInput):
    """No usable database was named: an empty URL, or no data folder for the default one (a setting)."""


class BusyWaitUnreadable(BadInput):
    """The setting of how long to wait for a locked database is not a number of seconds."""


class KeyFileUnusable(BadInput):
    """This installation's signing key file cannot be used or created: another can be set."""


class NotStrictlySigned(RuleViolation):
    """Refused only because a strict check was asked for: unsigned, or signed by a key not trusted here."""

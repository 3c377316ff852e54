"""Domain errors, each carrying the exit code the CLI contract gives it."""

from __future__ import annotations


class ScatError(Exception):
    """Base of every error the user can cause; `exit_code` follows the CLI contract.

    `command`: the words of a command the message suggests (after `scat`), quoted in the
    message as `scat WORD ...`; a front end renders it for its users (quoting, options).
    """

    exit_code = 1
    command: tuple[str, ...] | None = None


class RuleViolation(ScatError):
    """The move is not allowed by the rules or the game's state (exit 1)."""

    exit_code = 1

    def __init__(self, message: str, rule: str | None = None, command: tuple[str, ...] | None = None) -> None:
        self.rule = rule
        self.command = command
        super().__init__(f"{message} ({rule})" if rule else message)


def suggested(words: tuple[str, ...]) -> str:
    """How a message quotes a suggested command (see `ScatError.command`): `scat WORD ...`."""
    return "`scat " + " ".join(words) + "`"


class BadInput(ScatError):
    """Unreadable input: a malformed card, a bad option, an unusable URL (exit 2)."""

    exit_code = 2


class AuthFailed(ScatError):
    """A wrong or missing player token for a protected game (exit 3)."""

    exit_code = 3


class NotFound(ScatError):
    """No such game, player or file (exit 4)."""

    exit_code = 4


class CorruptHistory(ScatError):
    """A stored event cannot be read back: the history was damaged outside scat (exit 1)."""

    exit_code = 1


class HistoryDamaged(CorruptHistory):
    """A command found the stored log out of step with its verified head, or its chain broken (exit 1).

    Raised before anything is appended: a damaged history is refused, never healed. `reason`
    says what was found; the CLI words the advice (run an audit).
    """

    exit_code = 1

    def __init__(self, game_id: str, reason: str) -> None:
        self.game_id = game_id
        self.reason = reason
        super().__init__(f"the stored history of game {game_id} is damaged: {reason}")


class ConcurrencyConflict(ScatError):
    """Someone else acted on the game first (exit 5): try again."""

    exit_code = 5


class DatabaseBusy(ConcurrencyConflict):
    """Another program held the database's lock for longer than the bounded wait (exit 5): try again."""


class StoreUnavailable(BadInput):
    """The database cannot be used now: connection lost, read-only, unreachable (exit 2)."""

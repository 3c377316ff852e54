"""Domain errors: what went wrong, as structured fields; each front end words them.

An error knows nothing of exit codes, HTTP statuses or command lines: `scat_cli.errors` maps
each error type to the CLI contract's exit code and words each suggested next step (`Hint`)
as a `scat ...` command; the server maps types to HTTP statuses and sends the fields along.
The storage errors (a damaged history, a conflict) are the store's: `scat_core.records.errors`.
"""

from __future__ import annotations

from enum import StrEnum


class Hint(StrEnum):
    """A next step an error suggests, as data: each front end words it (the CLI as a command).

    Where it names a game or a player, they are the error's `game_id` and `player`.
    """

    LIST_GAMES = "list_games"  # see the games of this database
    LIST_PLAYERS = "list_players"  # see the players with statistics here
    FIND_BAD_EVENT = "find_bad_event"  # audit game_id: the audit names the first bad event
    CHECK_HISTORY = "check_history"  # audit game_id: the audit checks its history
    RUN_AUDIT = "run_audit"  # audit game_id (its history was refused as damaged)
    SHOW_TABLE = "show_table"  # show game_id as anyone sees it (the table)
    LOOK = "look"  # player looks at his own hand in game_id
    SHOW_KEY = "show_key"  # print this installation's public key
    TRUST_KEY = "trust_key"  # trust another installation's public key (printed there)
    EXPORT = "export"  # write a game's export
    GIVE_TOKEN = "give_token"  # give player's token (a protected game)
    EXPORT_RUNNING = "export_running"  # export game_id although it is still running


class ScatError(Exception):
    """Base of every error the user can cause, with what a front end needs to word it.

    The line is `message`, then the front end's wording of `hint` (nothing when there is
    none), then `after`, then ` (rule)`: `str()` gives it without a hint.
    """

    def __init__(
        self,
        message: str,
        rule: str | None = None,
        *,
        game_id: str | None = None,
        player: str | None = None,
        hint: Hint | None = None,
        after: str = "",
    ) -> None:
        self.message, self.rule, self.after = message, rule, after
        self.game_id, self.player, self.hint = game_id, player, hint
        super().__init__(self.worded(""))

    def worded(self, hint: str) -> str:
        """The error's one line with `hint`, a front end's wording of `self.hint`, in its place."""
        line = f"{self.message}{hint}{self.after}"
        return f"{line} ({self.rule})" if self.rule else line


class RuleViolation(ScatError):
    """The move is not allowed by the rules or the game's state; `rule` names the rule (e.g. R12)."""


class BadInput(ScatError):
    """Unreadable input: a malformed card, a bad option, an unusable URL."""


class AuthFailed(ScatError):
    """A wrong or missing player token for a protected game."""


class NotFound(ScatError):
    """No such game, player or file."""

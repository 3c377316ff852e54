"""How the CLI tells an error: the contract's exit code of each error type, and the `scat ...` hints.

The core's errors carry structured fields (`scat_core.domain.errors`); this module is the one
place that turns them into the CLI's words and exit codes, for a local database and for
`--server` alike (the server sends the fields, `scat_cli.remote.client` raises the error again).
Every error type is defined in a module imported here, so `error_types` names them all.
Imported when an error is told, never by `scat --help`.
"""

from __future__ import annotations

import shlex

from scat_core.domain.errors import (
    AuthFailed,
    BadInput,
    ConcurrencyConflict,
    CorruptHistory,
    Hint,
    NotFound,
    RuleViolation,
    ScatError,
    Throttled,
    TimedOut,
    Unavailable,
)
from scat_core.domain.errors import error_types as error_types  # the client raises a server's errors by name
from scat_core.records.errors import (
    BusyWaitUnreadable,
    DatabaseBusy,
    DatabaseNotGiven,
    HistoryDamaged,
    KeyFileUnusable,
    NotStrictlySigned,
)


class WaitTimedOut(TimedOut):
    """`scat wait --timeout` ran out before the player's turn came."""


class ServerLost(Unavailable):
    """The `--server` could not be reached, or the connection to it broke (a wait tries again)."""


class ServerKeyChanged(AuthFailed):
    """A server URL this user's scat knows answers with another key than the one it knew there:
    another server now (replaced, or someone in between). Refused until the user forgets the old
    key (scat_cli/remote/known_servers.py)."""

    @classmethod
    def at(cls, url: str, known: str, answered: str) -> ServerKeyChanged:
        """The refusal for `url`, known by the key `known`, now answering with `answered`."""
        return cls(f"the server {url} answers with the key {answered}, but scat knows it as the server with the key "
                   f"{known}: another server now, or someone in between. If its operator says it was replaced "
                   f"(check the new key id with him), run `scat key forget --server {url}`, then this again")

    @classmethod
    def refused(cls, url: str, why: str) -> ServerKeyChanged:
        """The refusal for `url`, whose server refused a request signed for the key known there (`why`)."""
        return cls(f"the server {url} is not the one scat knows there: {why}. If its operator says it was replaced "
                   f"(check the new key id with him), run `scat key forget --server {url}`, then this again; "
                   "else someone may be in between")


class HistoryRolledBack(HistoryDamaged):
    """A game shown older than (or other than) a position this user saw of it before: its log cut
    back and an older head put back, which no check of the database or server alone can see
    (scat_cli/remembered.py). `recorded`: the command's move was recorded on it all the same."""

    def __init__(self, game_id: str, reason: str, recorded: bool = False) -> None:
        self.recorded = recorded
        super().__init__(game_id, reason)


#: Error type -> the exit code the CLI contract gives it (/shared/spec/cli.md): one line per
#: branch of the error tree (scat_core.domain.errors), and the one leaf the contract words
#: otherwise. A type takes the code of its nearest listed base class.
EXIT_CODES: dict[type[ScatError], int] = {
    RuleViolation: 1,  # not allowed by the rules or the game's state
    CorruptHistory: 1,  # the history cannot be played on (scat audit names the first bad event)
    BadInput: 2,  # bad usage or unreadable input
    Unavailable: 2,  # the database or the server cannot be used now (the contract names no code of its own)
    AuthFailed: 3,  # authentication failed
    NotFound: 4,  # no such game, player or file
    ConcurrencyConflict: 5,  # a concurrent change won: try again
    DatabaseBusy: 5,  # another program holds the lock: as a concurrent change, try again
    Throttled: 5,  # the server's heavy work is shared and this caller's share is spent: try again later
    TimedOut: 6,  # scat wait timed out
}
#: How the CLI words each suggested next step: the text between an error's message and the
#: rest of its line. `{game}` and `{player}` are the error's fields, quoted for the shell.
HINTS: dict[Hint, str] = {
    Hint.LIST_GAMES: " (see `scat games`)",
    Hint.LIST_PLAYERS: " (see `scat stats`)",
    Hint.FIND_BAD_EVENT: "; `scat audit {game}` names the first bad event",
    Hint.CHECK_HISTORY: ": `scat audit {game}` checks its history",
    Hint.RUN_AUDIT: ": run `scat audit {game}`",
    Hint.SHOW_TABLE: " (`scat show {game}` shows the table)",
    Hint.LOOK: " (`scat show {game} --as {player} --look`)",
    Hint.SHOW_KEY: ", as `scat key show` prints",
    Hint.TRUST_KEY: " or run `scat key trust PUBLIC_KEY` with the key `scat key show` prints there",
    Hint.EXPORT: " written by `scat export`",
    Hint.GIVE_TOKEN: ": give {player}'s token with --token or SCAT_TOKEN",
    Hint.EXPORT_RUNNING: ", or pass --running",
    Hint.UPGRADE_SCHEMA: " (is it a scat database? `scat db upgrade` brings its schema up to date)",
    Hint.ADD_KEY: " (if {player} is yours, run `scat account add-key PUBLIC_KEY` on a device of yours, with the "
                  "key `scat key show` prints here)",
    Hint.ADD_ANOTHER_KEY: ": add another first (`scat account add-key PUBLIC_KEY`)",
    Hint.REVOKE_KEY: ": revoke one first (`scat account revoke-key KEY_ID`)",
    Hint.LIST_KEYS: " (`scat account keys` lists them)",
}
#: How the CLI names the setting an error of these types (or their subtypes) asks to change, in
#: the place of a hint: the core's errors name no option or environment variable.
SETTINGS: dict[type[ScatError], str] = {
    DatabaseNotGiven: "; give a database with --db URL or SCAT_DB_URL",
    DatabaseBusy: " (the wait is set by SCAT_BUSY_TIMEOUT)",
    BusyWaitUnreadable: " (set by SCAT_BUSY_TIMEOUT)",
    KeyFileUnusable: "; set SCAT_KEY_FILE to a file in a folder you can write",
    NotStrictlySigned: " (--strict)",
}


def exit_code(error: ScatError | type[ScatError]) -> int:
    """The contract's exit code of `error` (an error or an error type)."""
    kind = error if isinstance(error, type) else type(error)
    return next((EXIT_CODES[base] for base in kind.__mro__ if base in EXIT_CODES), EXIT_CODES[RuleViolation])


def hint_text(error: ScatError) -> str:
    """The CLI's words for the next step `error` suggests, or the setting it names ("" when none)."""
    if error.hint is None:
        return next((SETTINGS[kind] for kind in type(error).__mro__ if kind in SETTINGS), "")
    return HINTS[error.hint].format(game=shlex.quote(error.game_id or "GAME"),
                                    player=shlex.quote(error.player or "NAME"))


def wording(error: ScatError) -> str:
    """The one line the CLI tells `error` in (after `scat: error: `), its hint worded as a command."""
    if isinstance(error, HistoryDamaged):
        done = "your move was recorded on it" if getattr(error, "recorded", False) else "nothing was played"
        return f"history damaged: game {error.game_id}: {error.reason}; {done}{hint_text(error)}"
    return error.worded(hint_text(error))

"""Scat's errors, arranged by what went wrong; each front end words them and gives them its codes.

An error knows nothing of exit codes, HTTP statuses or command lines: `scat_cli.errors` maps
each error type to the CLI contract's exit code and words each suggested next step (`Hint`)
as a `scat ...` command; the wire's table (`scat_cli.wire.answers.HTTP_STATUS`) maps types to
HTTP statuses: the server sends the type and its fields with that status, from which the client
raises the same error again (`error_types`; a type it does not know, by its status).
Both tables are keyed by the branches below, so a new error type is placed by what it means.

The tree (every error type of the package is in exactly one branch, `BRANCHES`)::

    ScatError
    ├── RuleViolation         refused by the rules or the game's state (R12 ...)
    │   ├── AlreadyImported, AccountNameTaken, KeyAlreadyRegistered
    │   └── NotStrictlySigned             (records/errors.py: only a strict check refused it)
    ├── NotFound              no such game, player, account or file
    │   └── NoSuchAccount
    ├── AuthFailed            a wrong or missing token, an unproven or throttled request
    │   └── RequestRefused (WrongServer), TooManyFailures (TooManyRegistrations)
    ├── ConcurrencyConflict   someone else acted first: try again
    ├── Unavailable           the database (or the server) cannot be used now: lost, restarted, busy
    │   ├── StoreUnavailable ── DatabaseReadOnly   (records/errors.py)
    │   ├── DatabaseBusy                            (records/errors.py)
    │   ├── Throttled                               a caller's share of a server's heavy work is spent
    │   └── ServerLost                              (scat_cli/errors.py: the --server is gone)
    ├── CorruptHistory        a stored history damaged outside scat
    │   └── HistoryDamaged                          (records/errors.py)
    ├── BadInput              unreadable input or settings: a malformed card, a bad URL or option
    │   └── DatabaseNotGiven, BusyWaitUnreadable, KeyFileUnusable   (records/errors.py)
    └── TimedOut              a wait (or a request's upload) ran out of time
        └── WaitTimedOut                            (scat_cli/errors.py)

Every error type lives in this module, `scat_core.records.errors` or `scat_cli.errors`: light
modules, so whoever tells an error (the CLI, the `--server` client) can name every type.
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
    UPGRADE_SCHEMA = "upgrade_schema"  # the database refused a statement: bring its schema up to date
    ADD_KEY = "add_key"  # add this device's key to one's account, from a device whose key it has
    ADD_ANOTHER_KEY = "add_another_key"  # add another device's key to one's account first
    REVOKE_KEY = "revoke_key"  # revoke one of the account's keys first
    LIST_KEYS = "list_keys"  # list the account's keys


class ScatError(Exception):
    """Base of every error the user can cause, with what a front end needs to word it.

    The line is `message`, then the front end's wording of `hint` (nothing when there is
    none), then `after`, then ` (rule)`: `str()` gives it without a hint. `retry_after`
    (seconds), where set, is how long to wait before trying again.
    """

    retry_after: int | None = None

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


# ---- the branches: what went wrong ---------------------------------------------------------


class RuleViolation(ScatError):
    """The move is not allowed by the rules or the game's state; `rule` names the rule (e.g. R12)."""


class NotFound(ScatError):
    """No such game, player or file."""

    @classmethod
    def no_seat(cls, game_id: str, name: str, players: list[str]) -> NotFound:
        """NAME has no seat in the game: the one answer every command gives it (scat_cli/seats.py says
        which commands show the public view instead, for a NAME that is only a default)."""
        return cls(f"no player {name!r} in game {game_id} (players: {', '.join(players)})", game_id=game_id,
                   player=name)


class AuthFailed(ScatError):
    """A wrong or missing player token for a protected game, or a request that does not prove its account."""


class ConcurrencyConflict(ScatError):
    """Someone else acted on the game first: try again."""


class Unavailable(ScatError):
    """Something scat needs cannot be used now (the database lost, restarted or busy; the server gone): try later."""

    retry_after: int | None = 2


class Throttled(Unavailable):
    """A caller asked a server for more heavy work (audits, exports, stats, imports) than his share
    lately: `retry_after` seconds until it can be done (scat_cli/server/heavy_work.py)."""

    @classmethod
    def waiting(cls, retry_after: int) -> Throttled:
        """The refusal, the caller to wait `retry_after` seconds."""
        error = cls(f"this server's heavy work (audits, exports, stats, imports) is shared: yours is spent "
                    f"for now, try again in {retry_after} s")
        error.retry_after = retry_after
        return error

    @classmethod
    def creating(cls, retry_after: int, per_hour: int) -> Throttled:
        """The refusal of a new game past the caller's share of game creation (`per_hour` games an hour)."""
        error = cls(f"this server lets one account create {per_hour} games an hour, a few at once: you have "
                    f"created that many lately, try again in {retry_after} s")
        error.retry_after = retry_after
        return error


class CorruptHistory(ScatError):
    """A stored event cannot be read back: the history was damaged outside scat."""


class BadInput(ScatError):
    """Unreadable input: a malformed card, a bad option, an unusable URL."""


class TimedOut(ScatError):
    """A wait ran out of time before what it waited for came."""


#: Every branch of the tree: each error type is a subclass of exactly one of them.
BRANCHES: tuple[type[ScatError], ...] = (RuleViolation, NotFound, AuthFailed, ConcurrencyConflict, Unavailable,
                                         CorruptHistory, BadInput, TimedOut)


# ---- the leaves of the domain and of the accounts ------------------------------------------


class AlreadyImported(RuleViolation):
    """The game of an export is in this database already (`game_id` names it): nothing was imported."""


class AccountNameTaken(RuleViolation):
    """The name asked for is an account's already, or looks like one (`player`: the account it meets)."""

    @classmethod
    def of(cls, name: str, taken_by: str) -> AccountNameTaken:
        """The refusal of `name`, taken by the account `taken_by`."""
        same = "is taken" if name == taken_by else f"looks like the account {taken_by!r}"
        return cls(f"the account name {name!r} {same}: choose another", player=taken_by, hint=Hint.ADD_KEY)


class KeyAlreadyRegistered(RuleViolation):
    """The public key is (or was) an account's key already: one key, one account (`player`: that account)."""

    @classmethod
    def of(cls, key_id: str, account: str) -> KeyAlreadyRegistered:
        """The refusal of the key `key_id`, which `account` holds or held."""
        return cls(f"the key {key_id} is registered already, to the account {account!r}", player=account)


class NoSuchAccount(NotFound):
    """No account has this name or key here."""

    @classmethod
    def of(cls, what: str) -> NoSuchAccount:
        """The refusal for an account described by `what` ("named 'ann'", "with the key ...")."""
        return cls(f"no account {what} on this server")


class RequestRefused(AuthFailed):
    """A signed request that does not prove its account; the message says what failed."""

    @classmethod
    def because(cls, reason: str) -> RequestRefused:
        """The refusal, for `reason`."""
        return cls(f"the request's signature was refused: {reason}")

    @classmethod
    def replayed(cls) -> RequestRefused:
        """The refusal of a request whose nonce was served already."""
        return cls.because("its nonce was used already (a replayed request)")


class WrongServer(RequestRefused):
    """A signed request meant for another server (signed for another server key than this one's)."""

    @classmethod
    def of(cls, meant_for: str, own: str) -> WrongServer:
        """The refusal of a request signed for the server key `meant_for` by the server whose key is `own`."""
        return cls(f"the request's signature was refused: it was signed for the server with the key {meant_for}, "
                   f"and this server's key is {own}")


class WrongToken(AuthFailed):
    """A token that is not the player's (a server counts them: in an old game each costs a scrypt);
    `count`: how many of the tokens sent were wrong."""

    count: int = 1


class TooManyFailures(AuthFailed):
    """Too many refused signatures (or wrong tokens) from one client address lately: `retry_after`
    seconds to wait."""

    retry_after: int | None = 0

    @classmethod
    def waiting(cls, retry_after: int, refused: str = "signatures") -> TooManyFailures:
        """The refusal, the address to wait `retry_after` seconds; `refused`: what it sent too many of."""
        error = cls(f"too many refused {refused} from this address: try again in {retry_after} s")
        error.retry_after = retry_after
        return error


class TooManyRegistrations(TooManyFailures):
    """Too many registrations from one client address within the hour: `retry_after` seconds to wait."""

    @classmethod
    def waiting(cls, retry_after: int, allowed: int | str = "") -> TooManyRegistrations:
        """The refusal, the address to wait `retry_after` seconds; `allowed`: how many an hour it may make."""
        error = cls(f"this address has registered {allowed} accounts (or tried to) within the hour, as many as this "
                    f"server takes from one address: try again in {retry_after} s")
        error.retry_after = retry_after
        return error


def error_types() -> dict[str, type[ScatError]]:
    """Every error type of scat_core and scat_cli loaded in this process, by name: how an error sent by
    `scat serve` is raised again by the client (scat_cli.errors imports every module that defines one)."""
    found: dict[str, type[ScatError]] = {}
    pending: list[type[ScatError]] = [ScatError]
    while pending:
        kind = pending.pop()
        if kind.__module__.startswith(("scat_core.", "scat_cli.")):
            found.setdefault(kind.__name__, kind)
        pending.extend(kind.__subclasses__())
    return found

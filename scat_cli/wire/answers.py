"""What both sides of HTTP read alike besides the service's values: the refusals (their body and
the one table of statuses by error type, read one way by the server and the other by the
client) and the whole id of a game. (A game state's seats, counted from 1 on the wire, are its
value's own: `WireState`, scat_core/service/values.py.)

The client imports this module, not bodies.py (the request bodies, which only the server
validates): a command through a server pays for no model it does not read (#26). Nothing of
the CLI is here: the server tells an error by its type, fields and status, and the client
raises it again, for the CLI to word and give its exit code.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from scat_core.domain.errors import (
    AuthFailed,
    BadInput,
    ConcurrencyConflict,
    Hint,
    NotFound,
    RequestRefused,
    RuleViolation,
    ScatError,
    Throttled,
    TimedOut,
    TooManyFailures,
    Unavailable,
    error_types,
)
from scat_core.records.errors import CorruptHistory, HistoryDamaged

#: Each model is built on first use (defer_build): a command pays only for the bodies it reads.
_LAZY = ConfigDict(defer_build=True)

#: Error type -> the HTTP status of its refusal: one line per branch of the error tree
#: (scat_core.domain.errors) and the leaves that say more; a type takes its nearest listed base's.
#: Read backwards by the client: a refusal that names no type it knows is raised as the first
#: type listed with its status (`BARE_REFUSALS` adds the statuses no ScatError is sent with).
HTTP_STATUS: dict[type[ScatError], int] = {
    RuleViolation: 422,  # refused by the rules or the game's state
    CorruptHistory: 422,  # the game's stored history cannot be played on
    BadInput: 400,
    AuthFailed: 403,  # 401 when the request carried no credentials (see routes/errors.scat_error)
    RequestRefused: 401,
    TooManyFailures: 429,
    Throttled: 429,  # a caller's share of heavy work spent: with Retry-After
    NotFound: 404,
    ConcurrencyConflict: 409,
    Unavailable: 503,  # the database lost, restarting or busy: with Retry-After
    TimedOut: 408,
}
#: The statuses of refusals that are no ScatError (a method the path does not take, a body too
#: large), as the error type the client raises them as.
BARE_REFUSALS: dict[int, type[ScatError]] = {405: BadInput, 413: BadInput}
#: HTTP status -> the exit code clients before issue #41 read in a refusal's `exit_code` when they
#: did not know its type: still sent, for one release, then dropped. No client of today reads it.
LEGACY_EXIT_CODES: dict[int, int] = {400: 2, 401: 3, 403: 3, 404: 4, 405: 2, 408: 6, 409: 5, 413: 2, 422: 1, 500: 1,
                                     429: 3, 503: 2}


def http_status(error: ScatError | type[ScatError]) -> int:
    """The HTTP status of the refusal `error` (an error or an error type: see HTTP_STATUS)."""
    kind = error if isinstance(error, type) else type(error)
    return next(HTTP_STATUS[base] for base in kind.__mro__ if base in HTTP_STATUS)


def error_of_status(status: int) -> type[ScatError]:
    """The error type a refusal with `status` and no type known here is raised as (RuleViolation: none)."""
    listed = next((kind for kind, listed in HTTP_STATUS.items() if listed == status), None)
    return listed or BARE_REFUSALS.get(status, RuleViolation)


class GameIdOut(BaseModel):
    """The whole id of the game an abbreviated one names."""

    model_config = _LAZY

    game_id: str


class ErrorOut(BaseModel):
    """Every refusal: its one line (the core's words, no front end's), and for a ScatError its type and fields.

    The client raises the same error again from `type` and the fields (`raised`), so the CLI
    words it, hints and all, exactly as it words the error of a local database. `exit_code` is
    for older clients only (see LEGACY_EXIT_CODES).
    """

    model_config = _LAZY

    error: str
    exit_code: int | None = None
    type: str | None = None
    message: str | None = None
    rule: str | None = None
    game_id: str | None = None
    player: str | None = None
    hint: str | None = None
    after: str | None = None
    reason: str | None = None  # HistoryDamaged: what was found
    retry_after: int | None = None  # Unavailable, TooManyFailures: seconds to wait before trying again

    @classmethod
    def of(cls, error: ScatError, status: int | None = None) -> ErrorOut:
        """The body of the refusal `error` sent with `status` (by default its own, see HTTP_STATUS)."""
        status = status or http_status(error)
        return cls(error=error.worded(""), exit_code=LEGACY_EXIT_CODES.get(status), type=type(error).__name__,
                   message=error.message, rule=error.rule, game_id=error.game_id, player=error.player,
                   hint=error.hint, after=error.after or None, reason=getattr(error, "reason", None) or None,
                   retry_after=error.retry_after)

    @classmethod
    def bare(cls, status: int, line: str) -> ErrorOut:
        """The body of a refusal that is no ScatError (a bad path or method, a body too large)."""
        return cls(error=line, exit_code=LEGACY_EXIT_CODES.get(status))

    def raised(self, status: int) -> ScatError:
        """The error this refusal (sent with `status`) names, with its fields; a bare refusal as its status's type."""
        kind = error_types().get(self.type or "")
        if kind is None or self.message is None:
            return error_of_status(status)(self.error)
        if issubclass(kind, HistoryDamaged):
            if self.game_id is not None and self.reason is not None:
                return kind(self.game_id, self.reason)
            kind = CorruptHistory
        hint = next((known for known in Hint if known.value == self.hint), None)  # unknown (a newer server's): none
        error = kind(self.message, self.rule, game_id=self.game_id, player=self.player, hint=hint,
                     after=self.after or "")
        if self.retry_after is not None:
            error.retry_after = self.retry_after
        return error

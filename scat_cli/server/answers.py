"""What the `--server` client reads of the server besides the service's values: the refusals, the
whole id of a game, and the seats counted from 1 on the wire.

The client imports this module, not wire.py (the request bodies, which only the server
validates): a command through a server pays for no model it does not read (#26).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from scat_cli.errors import BY_EXIT_CODE, error_types, exit_code, wording
from scat_core.domain.errors import Hint, RuleViolation, ScatError
from scat_core.records.errors import CorruptHistory, HistoryDamaged

#: Each model is built on first use (defer_build): a command pays only for the bodies it reads.
_LAZY = ConfigDict(defer_build=True)


class GameIdOut(BaseModel):
    """The whole id of the game an abbreviated one names."""

    model_config = _LAZY

    game_id: str


class ErrorOut(BaseModel):
    """Every refusal: the one line the CLI prints and its exit code; for a ScatError, its type and fields.

    The client raises the same error again from `type` and the fields (`raised`), so the CLI
    words it, hints and all, exactly as it words the error of a local database.
    """

    model_config = _LAZY

    error: str
    exit_code: int
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
    def of(cls, error: ScatError) -> ErrorOut:
        """The body of the refusal `error`: the CLI's line (hint worded), its exit code and its fields."""
        return cls(error=wording(error), exit_code=exit_code(error), type=type(error).__name__,
                   message=error.message, rule=error.rule, game_id=error.game_id, player=error.player,
                   hint=error.hint, after=error.after or None, reason=getattr(error, "reason", None) or None,
                   retry_after=error.retry_after)

    def raised(self) -> ScatError:
        """The error this refusal names, with its fields; a bare refusal as the type of its exit code."""
        kind = error_types().get(self.type or "")
        if kind is None or self.message is None:
            return BY_EXIT_CODE.get(self.exit_code, RuleViolation)(self.error)
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


#: The keys that make a JSON object a game's state (scat_core.domain.state.GameState as sent).
_STATE_KEYS = frozenset({"players", "seats", "dealer", "turn", "knocker", "had_turn", "looked"})


def seats_from_one(document: Any) -> Any:
    """A response as sent: each game state's seats counted from 1, as the CLI counts them (no dealer yet: 0).

    The service's states count seats from 0 (`players[].seat`, `seats`, `dealer`, `turn`,
    `knocker`, `had_turn`, `looked`); `hands` stays a list in seat order.
    """
    return _shifted(document, 1)


def seats_from_zero(document: Any) -> Any:
    """A response as received (see `seats_from_one`), its seats counted from 0 again, as the service's values do."""
    return _shifted(document, -1)


def _shifted(document: Any, by: int) -> Any:
    if isinstance(document, list):
        return [_shifted(item, by) for item in document]
    if not isinstance(document, dict):
        return document
    found = {key: _shifted(value, by) for key, value in document.items()}
    if _STATE_KEYS <= found.keys():
        _shift_state(found, by)
    return found


def _shift_state(state: dict[str, Any], by: int) -> None:
    """Shift the seat fields of one game state (a JSON object) by `by`, in place."""
    def seat(value: Any) -> Any:
        return value + by if isinstance(value, int) and not isinstance(value, bool) else value

    for player in state["players"]:
        if isinstance(player, dict):
            player["seat"] = seat(player.get("seat"))
    if isinstance(state["seats"], dict):
        state["seats"] = {name: seat(number) for name, number in state["seats"].items()}
    for key in ("dealer", "turn", "knocker"):
        state[key] = seat(state[key])
    for key in ("had_turn", "looked"):
        if isinstance(state[key], list):
            state[key] = [seat(number) for number in state[key]]

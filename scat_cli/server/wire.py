"""What travels between `scat serve` and `scat --server` besides the service's own values.

Responses are the game service's values (scat_core.service.values, the audit's report, the
stats report), already redacted by the service for the authenticated viewer; here are only
the request bodies and the refusals (the HTTP status of each error type is the app's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scat_cli.errors import BY_EXIT_CODE, error_types, exit_code, wording
from scat_core.domain.errors import Hint, RuleViolation, ScatError
from scat_core.domain.options import GameOptions
from scat_core.records.errors import CorruptHistory, HistoryDamaged
from scat_core.service.values import Told

if TYPE_CHECKING:
    from scat_core.domain.commands import ClaimTime, PlayerCommand  # noqa: F401 - ClaimTime also at run time
    from scat_core.records.move_signatures import MoveSignature

#: Longest name, card or token a request may carry; bodies are limited by the app too.
SHORT = 200
MAX_SEATS = 16
#: The most games one page of `scat games` may ask for (`--all` asks for no limit).
MAX_PAGE = 1_000_000
MAX_TOKENS = 10_000  # the games one `wait --any` may cover
#: The most games one page of `GET /audit` (each replayed) and of `GET /export` may cover: a page
#: holds a worker for a few seconds at most; the client follows the pages.
MAX_AUDIT_PAGE = 200
MAX_EXPORT_PAGE = 500


#: Each model is built on first use (defer_build): a command pays only for the bodies it sends or reads.
_LAZY = ConfigDict(defer_build=True)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class SeatIn(_Body):
    """A seat of a new game."""

    name: str = Field(min_length=1, max_length=SHORT)
    is_bot: bool = False


class CreateIn(_Body):
    """`scat new`: seats in order, options; `viewer` is the human whose view comes back."""

    players: list[SeatIn] = Field(max_length=MAX_SEATS)
    options: GameOptions = Field(default_factory=GameOptions)
    dealer: str | None = Field(default=None, max_length=SHORT)
    seed: int | None = None
    deck: list[str] | None = Field(default=None, max_length=60)
    viewer: str | None = Field(default=None, max_length=SHORT)


class SignatureIn(_Body):
    """A player's signature of his move (scat_core/records/move_signatures.py): the head he saw
    (its seq and position tag), his key id and the base64 Ed25519 signature."""

    seq: int = Field(ge=1, le=2**31)
    tag: str = Field(pattern="^[0-9a-f]{64}$")
    key_id: str = Field(pattern="^[0-9a-f]{16}$")
    signature: str = Field(min_length=1, max_length=128)

    def signed(self) -> MoveSignature:
        """The service's value of this signature."""
        from scat_core.records.move_signatures import MoveSignature

        return MoveSignature(self.seq, self.tag, self.key_id, self.signature)


class MoveIn(_Body):
    """A player's move: who moves, the draw source or the card where the move needs one, and his
    signature of it in a game whose seats are accounts."""

    player: str = Field(min_length=1, max_length=SHORT)
    source: Literal["stock", "discard"] | None = None
    card: str | None = Field(default=None, max_length=8)
    signature: SignatureIn | None = None


def move_body(command: PlayerCommand | ClaimTime) -> dict[str, Any]:
    """The body of `POST /games/{id}/moves` that sends `command` (without its signature): its
    `move` (the class's verb) and its fields; a claim names its claimer `player` (none: scat's
    own claim) and leaves its times to the server (move_wire.py reads it)."""
    from dataclasses import fields

    from scat_core.domain.commands import ClaimTime

    if isinstance(command, ClaimTime):
        return {"move": command.verb, "player": command.claimer}
    return {"move": command.verb, **{part.name: getattr(command, part.name) for part in fields(command)}}


class ClaimIn(_Body):
    """A claim of a turn whose move time ran out (R28): who claims (none: a protected game refuses
    it), and his signature of the claim in a game whose seats are accounts."""

    player: str | None = Field(default=None, min_length=1, max_length=SHORT)
    signature: SignatureIn | None = None


class WaitAnyIn(_Body):
    """`scat wait --any`: the player, the tokens his client holds for him (game -> token: who he
    is, until accounts), and what earlier waits told him (None: a fresh wait)."""

    player: str = Field(min_length=1, max_length=SHORT)
    tokens: dict[str, str] = Field(default_factory=dict, max_length=MAX_TOKENS)
    told: Told | None = None


class ImportIn(_Body):
    """`scat import`: the records of an export, as parsed by the client."""

    records: list[dict[str, Any]]
    strict: bool = False


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


class HealthOut(BaseModel):
    """`GET /health`."""

    model_config = _LAZY

    status: Literal["ok"] = "ok"
    database: str


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

"""What travels between `scat serve` and `scat --server` besides the service's own values.

Responses are the game service's values (scat_core.service.values, the audit's report, the
stats report), already redacted by the service for the authenticated viewer; here are only
the request bodies, and (from answers.py, which the client imports alone) the refusals and the
few answers of the server's own (the HTTP status of each error type is the app's).
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scat_cli.wire.answers import ErrorOut, GameIdOut
from scat_cli.wire.move_request import move_body
from scat_core.domain.options import GameOptions
from scat_core.service.values import Told

__all__ = ["MAX_AUDIT_PAGE", "MAX_EXPORT_PAGE", "MAX_PAGE", "MAX_SEATS", "MAX_TOKENS", "SHORT", "ClaimIn", "CreateIn",
           "ErrorOut", "GameIdOut", "HealthOut", "ImportIn", "MoveIn", "SeatIn", "SignatureIn", "WaitAnyIn",
           "move_body"]

if TYPE_CHECKING:
    from scat_core.records.signing import MoveSignature

#: Longest name, card or token a request may carry; bodies are limited by the app too.
SHORT = 200
MAX_SEATS = 16
#: The most games one page of the games list (`GET /games`, `GET /games/page`) holds: a page's work is
#: bounded whatever its sender asks; the client follows the pages' cursor (`after`) for more.
MAX_PAGE = 100
#: The per-game tokens one `wait --any` may send (each is a look-up, a wrong one of an old game a scrypt): more is 400;
#: the client sends the newest it remembers.
MAX_TOKENS = 100
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
    open_seats: int = Field(default=0, ge=0, le=8, description="Seats any account may take (`scat join`).")
    expires: int | None = Field(default=None, ge=1, le=366 * 86_400,
                                description="Seconds the invitations stay open (default 7 days), then it is cancelled.")


class RematchIn(_Body):
    """`scat rematch`: the player who asks (on a server of accounts, the signing account)."""

    player: str = Field(min_length=1, max_length=SHORT)


class SignatureIn(_Body):
    """A player's signature of his move (scat_core/records/signing.py): the head he saw
    (its seq and position tag), his key id and the base64 Ed25519 signature."""

    seq: int = Field(ge=1, le=2**31)
    tag: str = Field(pattern="^[0-9a-f]{64}$")
    key_id: str = Field(pattern="^[0-9a-f]{16}$")
    signature: str = Field(min_length=1, max_length=128)

    def signed(self) -> MoveSignature:
        """The service's value of this signature."""
        from scat_core.records.signing import MoveSignature

        return MoveSignature(self.seq, self.tag, self.key_id, self.signature)


class MoveIn(_Body):
    """A player's move: who moves, the draw source or the card where the move needs one, and his
    signature of it in a game whose seats are accounts."""

    player: str = Field(min_length=1, max_length=SHORT)
    source: Literal["stock", "discard"] | None = None
    card: str | None = Field(default=None, max_length=8)
    signature: SignatureIn | None = None


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
    look: bool = True  # false: the game found is shown without recording a look at a face-down hand (R23)


class ImportIn(_Body):
    """`scat import`: the records of an export, as parsed by the client."""

    records: list[dict[str, Any]]
    strict: bool = False


class HealthOut(BaseModel):
    """`GET /health`."""

    model_config = _LAZY

    status: Literal["ok"] = "ok"
    database: str

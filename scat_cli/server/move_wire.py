"""The body of `POST /games/{id}/moves`, derived from the domain's commands: one model per move a
player sends (scat_core.domain.commands.MOVES, each named by its class's `verb`), discriminated by
`move`; its fields are the command's own (typed as there; `player` is who moves) and the
player's signature where his moves are signed. The claim of another's turn (R28) is one of them
too (`move: "claim"`), though its command's times are the server's: its body is the claimer
(`player`; none: refused in a protected game) and his signature. `move_request.move_body` is the
client's side of the same body."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_type_hints

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model

from scat_cli.server.wire import SHORT, SignatureIn, _Body
from scat_core.domain import commands as cmd

Mover = Annotated[str, Field(min_length=1, max_length=SHORT, description="Who moves.")]


class ClaimMove(_Body):
    """A claim of the turn of a player whose move time ran out (R28): who claims (none: a protected
    game refuses it), and his signature of the claim in a game whose seats are accounts."""

    move: Literal["claim"]
    player: str | None = Field(default=None, min_length=1, max_length=SHORT)
    signature: SignatureIn | None = None


class AbandonMove(_Body):
    """The game given up without a winner by the one human still in it (`player`), signed by him
    in a game whose seats are accounts."""

    move: Literal["abandon"]
    player: str | None = Field(default=None, min_length=1, max_length=SHORT)
    signature: SignatureIn | None = None


class SayMove(_Body):
    """One line said at the game's table by one of its players (`player`), up to 500 characters of
    printable text; signed by him in a game whose seats are accounts. Not a move: it changes no turn."""

    move: Literal["say"]
    player: str = Field(min_length=1, max_length=SHORT)
    text: str = Field(max_length=2_000)  # its rules (printable, 500 characters at most) are the domain's
    signature: SignatureIn | None = None


def _model_of(kind: type[cmd.PlayerCommand]) -> type[BaseModel]:
    """The body of the move `kind`: its verb as `move`, its fields, the signature."""
    hints = get_type_hints(kind, include_extras=True)
    shape: dict[str, Any] = {"move": (Literal[kind.verb], ...)}
    shape |= {part.name: (Mover if part.name == "player" else hints[part.name], ...) for part in fields(kind)}
    shape["signature"] = (SignatureIn | None, None)
    return create_model(f"{kind.__name__}Move", __base__=_Body, __doc__=kind.__doc__, __module__=__name__,
                        **shape)


#: The body of each move, by its verb.
MODELS: dict[str, type[BaseModel]] = {kind.verb: _model_of(kind) for kind in cmd.MOVES} | {"claim": ClaimMove,
                                                                                           "abandon": AbandonMove,
                                                                                           "say": SayMove}
if TYPE_CHECKING:
    MoveBody = BaseModel
else:  # the body of `POST /games/{id}/moves`: any move, told by its `move`
    MoveBody = Annotated[Union[tuple(MODELS.values())], Field(discriminator="move")]  # noqa: UP007
_KINDS: dict[str, type[cmd.PlayerCommand]] = {kind.verb: kind for kind in cmd.MOVES}


def command_of(body: Any) -> cmd.PlayerCommand:
    """The command a move's body (not a claim's) sends."""
    kind = _KINDS[body.move]
    return kind(**{part.name: getattr(body, part.name) for part in fields(kind)})


def body_for(verb: str, given: dict[str, Any]) -> BaseModel:
    """The body of the move `verb` from a deprecated per-move URL's body (`wire.MoveIn`, whose fields
    any move may carry): the fields of that move only; ValidationError when one is missing."""
    model = MODELS[verb]
    return model.model_validate({"move": verb} | {name: value for name, value in given.items()
                                                   if name in model.model_fields and value is not None})


def parsed(data: Any) -> BaseModel:
    """`data` read as a move's body (ValidationError when it is none)."""
    body: BaseModel = _ADAPTER.validate_python(data)
    return body


_ADAPTER: TypeAdapter[Any] = TypeAdapter(MoveBody)
__all__ = ["MODELS", "AbandonMove", "ClaimMove", "SayMove", "MoveBody", "ValidationError", "body_for", "command_of",
           "parsed"]

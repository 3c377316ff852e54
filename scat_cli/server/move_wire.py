"""The body of `POST /games/{id}/moves`, derived from the domain's commands: one model per move a
player sends (scat_core.domain.commands.MOVES, each named by its class's `verb`), discriminated by
`move`; its fields are the command's own (typed as there; `player` is who moves) and the
player's signature where his moves are signed. The claim of another's turn (R28) is one of them
too (`move: "claim"`), though its command's times are the server's: its body is the claimer
(`player`; none: refused in a protected game) and his signature. `move_request.move_body` is the
client's side of the same body."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_type_hints

from pydantic import BaseModel, Field, TypeAdapter, ValidationError, create_model

from scat_cli.wire.bodies import SHORT, SignatureIn, _Body
from scat_core.domain import commands as cmd

Mover = Annotated[str, Field(min_length=1, max_length=SHORT, description="Who moves.")]


class ClaimMove(_Body):
    """A claim of the turn of a player whose move time ran out (R28): who claims (none: a protected
    game refuses it), and his signature of the claim in a game whose seats are accounts."""

    move: Literal["claim"]
    player: str | None = Field(default=None, min_length=1, max_length=SHORT)
    signature: SignatureIn | None = None


def _model_of(kind: type[cmd.PlayerCommand | cmd.TableCommand]) -> type[BaseModel]:
    """The body of the move `kind`: its verb as `move`, its fields, the signature. A `player` the
    command may leave out (a local owner's abandon) is optional here too, for the service to refuse."""
    hints = get_type_hints(kind, include_extras=True)
    shape: dict[str, Any] = {"move": (Literal[kind.verb], ...)}
    for part in fields(kind):
        if part.name != "player":
            shape[part.name] = (hints[part.name], ...)
        elif type(None) in get_args(hints["player"]):
            shape["player"] = (Mover | None, None)
        else:
            shape["player"] = (Mover, ...)
    shape["signature"] = (SignatureIn | None, None)
    return create_model(f"{kind.__name__}Move", __base__=_Body, __doc__=kind.__doc__, __module__=__name__,
                        **shape)


#: The body of each move, by its verb.
MODELS: dict[str, type[BaseModel]] = ({kind.verb: _model_of(kind) for kind in (*cmd.MOVES, *cmd.TABLE_COMMANDS)}
                                      | {"claim": ClaimMove})
if TYPE_CHECKING:
    MoveBody = BaseModel
else:  # the body of `POST /games/{id}/moves`: any move, told by its `move`
    MoveBody = Annotated[Union[tuple(MODELS.values())], Field(discriminator="move")]  # noqa: UP007
_KINDS: dict[str, type[cmd.PlayerCommand | cmd.TableCommand]] = {
    kind.verb: kind for kind in (*cmd.MOVES, *cmd.TABLE_COMMANDS)}


def command_of(body: Any) -> cmd.PlayerCommand | cmd.TableCommand:
    """The command a move's body (not a claim's) sends."""
    kind = _KINDS[body.move]
    return kind(**{part.name: getattr(body, part.name) for part in fields(kind)})


def body_for(verb: str, given: dict[str, Any]) -> BaseModel:
    """The body of the move `verb` from a deprecated per-move URL's body (`bodies.MoveIn`, whose fields
    any move may carry): the fields of that move only; ValidationError when one is missing."""
    model = MODELS[verb]
    return model.model_validate({"move": verb} | {name: value for name, value in given.items()
                                                   if name in model.model_fields and value is not None})


def parsed(data: Any) -> BaseModel:
    """`data` read as a move's body (ValidationError when it is none)."""
    body: BaseModel = _ADAPTER.validate_python(data)
    return body


_ADAPTER: TypeAdapter[Any] = TypeAdapter(MoveBody)
__all__ = ["MODELS", "ClaimMove", "MoveBody", "ValidationError", "body_for", "command_of", "parsed"]

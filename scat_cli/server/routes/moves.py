"""The players' moves: every move one `POST /games/{id}/moves`, its body discriminated by `move`
(move_wire.py, derived from the domain's commands), a claim of another's turn (R28) among them;
and, deprecated for one release, the per-move URLs of before (`/games/{id}/draw`, ..., `/claim`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, BackgroundTasks, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from scat_cli.server.move_wire import MODELS, ClaimMove, MoveBody, body_for, command_of
from scat_cli.server.rendered import rendered
from scat_cli.server.routes.deps import Acting, Server, ServerState
from scat_cli.server.routes.errors import MOVE, responses
from scat_cli.wire import bodies
from scat_core.domain import commands as cmd
from scat_core.records.credentials import Credential
from scat_core.records.signing import MoveSignature
from scat_core.service.values import Played

router = APIRouter()
MOVED = responses(*MOVE)
#: The per-move URLs of before /moves (each the move's verb), kept as deprecated aliases for one release.
ALIASES = ("draw", "discard", "knock", "declare", "throw-down", "resign")


def play(game_id: str, body: BaseModel, server: ServerState, credential: Credential,
         then: BackgroundTasks) -> Response:
    """Make the move `body` sends, as the service tells it to the mover (a Played, rendered here).
    This process's watchers hear of it (SQLite has no NOTIFY) once the mover has his answer: a
    thousand open streams are handed the move after it, not before; a refused move, at once (a
    bot or a claim may have moved)."""
    sent: Any = body
    signature = sent.signature.signed() if sent.signature is not None else None
    try:
        if isinstance(body, ClaimMove):
            played = server.games.claim(game_id, body.player, credential, signature)
        else:
            played = made(server, game_id, command_of(body), credential, signature)
    except BaseException:
        server.notifier.changed(game_id)
        raise
    then.add_task(tell_watchers, server, game_id)
    return rendered(played)


def made(server: ServerState, game_id: str, command: cmd.PlayerCommand | cmd.TableCommand,
         credential: Credential, signature: MoveSignature | None) -> Played:
    """The service's answer to `command`: its use case by the command's kind."""
    games = server.games
    match command:
        case cmd.Say():
            return games.say(game_id, command.player, command.text, credential, signature)
        case cmd.AbandonGame():
            return games.abandon(game_id, command.player, credential, signature)
        case cmd.AcceptSeat():
            return games.accept(game_id, command.player, credential, signature)
        case cmd.DeclineSeat():
            return games.decline(game_id, command.player, credential, signature)
        case cmd.JoinGame():
            return games.join(game_id, command.player, credential, signature)
        case _:
            return games.move(game_id, command, credential, signature)


async def tell_watchers(server: ServerState, game_id: str) -> None:
    """After a move's answer is sent: this process's streams and waits of the game hear of it
    (in the event loop: no worker thread taken)."""
    server.notifier.changed(game_id)


@router.post("/games/{game_id}/moves", response_model=Played, responses=MOVED, summary="Move",
             description=f"A player's move (`move`: {', '.join(MODELS)}; a claim takes the turn of a player "
             "out of move time, R28; abandon gives the game up without a winner, by the last human in it; say is a "
             "message at the game's table, not a move), then "
             "the bots' answer, as the mover may see it. In a game whose seats are accounts, `signature` is the "
             "player's of this move at the game's head.")
def moves(game_id: str, body: MoveBody, server: Server, credential: Acting, then: BackgroundTasks) -> Response:
    return play(game_id, body, server, credential, then)


def _alias(verb: str) -> None:
    def moved(game_id: str, body: bodies.MoveIn, server: Server, credential: Acting, then: BackgroundTasks) -> Response:
        try:
            sent = body_for(verb, body.model_dump())
        except ValidationError as error:
            raise RequestValidationError(error.errors()) from None
        return play(game_id, sent, server, credential, then)

    router.add_api_route(f"/games/{{game_id}}/{verb}", moved, methods=["POST"], response_model=Played,
                         responses=MOVED, deprecated=True, name=f"{verb.replace('-', '_')}_deprecated",
                         summary=f"{verb.capitalize()} (deprecated: POST /games/{{game_id}}/moves)",
                         description=f'Deprecated: `POST /games/{{game_id}}/moves` with `"move": "{verb}"`.')


for _verb in ALIASES:
    _alias(_verb)

#: The routes whose command spends the nonce of its signed request (verify.py, service/playing.py).
NONCE_SPENT_BY_THE_MOVE = frozenset({"/games/{game_id}/moves", "/games/{game_id}/claim",
                                     *(f"/games/{{game_id}}/{verb}" for verb in ALIASES)})


@router.post("/games/{game_id}/claim", response_model=Played, responses=MOVED, deprecated=True,
             summary="Claim (deprecated: POST /games/{game_id}/moves)")
def claim(game_id: str, body: bodies.ClaimIn, server: Server, credential: Acting, then: BackgroundTasks) -> Response:
    """Deprecated: the same as `POST /games/{game_id}/moves` with `"move": "claim"`."""
    return play(game_id, ClaimMove(move="claim", player=body.player, signature=body.signature), server, credential,
                then)

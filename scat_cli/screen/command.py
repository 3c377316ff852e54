"""`scat play`: the command that opens the play screen (Textual is imported only here, when it runs)."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from scat_cli.command_lines import command_line
from scat_cli.remembered import remember, token_for
from scat_cli.typer_glue import GameArg, Token
from scat_cli.wiring import service

PlayAs = Annotated[str | None, typer.Option(
    "--as", metavar="NAME", show_default=False, help="The player you play as (default: the game's one human).")]


def play(ctx: typer.Context, game: GameArg, player: PlayAs = None, token: Token = None) -> None:
    """Play one game full-screen, a key per move.

    The table, your hand, the others' moves as they happen.

    Each move you may make now is on one key (s, d: draw from the stock or the discard pile;
    1-4: discard that card of your hand; k: knock; e: declare 31; t: throw down; l: look;
    r: resign, which asks first); q quits, and the game waits for you. In a throw-down game
    a new hand stays face down until you press l (a look, R23) or move, so t throws it down
    unseen. --as may be left out when the game has one human.
    Needs a terminal: elsewhere play with `scat show`, `scat draw`, `scat discard`, ...

    Example: scat play 3f2a1b9c0d --as you
    """
    from scat_core.domain.errors import BadInput

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        name = player or "NAME"
        raise BadInput(
            "scat play needs a terminal; without one, play with the plain commands: "
            f"`scat {command_line('show', game, '--as', name)}`, `scat {command_line('draw', game, '--as', name)} "
            f"stock|discard`, `scat {command_line('discard', game, '--as', name)} CARD` (and knock, declare, "
            "throw-down, resign)")
    from scat_cli.screen.app import PlayScreenApp

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        if player is None:
            player = only_human(games.show(game).state.players, game)
        token = token_for(ctx, game, player, token)
        # Refusals (no such player, a token wrong) before the screen; no look recorded: a hand
        # dealt face down stays so until `l` (R23), so that `t` may throw it down unseen.
        shown = games.show(game, player, token, look=False)
        PlayScreenApp(ctx, games, shown, player, token).run()
    if token and shown.state.protected:
        remember(ctx, game, {player: token})


def only_human(players: Sequence[Any], game: str) -> str:
    """The one human of a game, who `scat play` is without --as (else a usage error naming them)."""
    from scat_core.domain.errors import BadInput

    humans = [seat.name for seat in players if not seat.is_bot]
    if len(humans) == 1:
        return str(humans[0])
    raise BadInput(f"say who you are in game {game} with --as NAME (one of {', '.join(humans)})")

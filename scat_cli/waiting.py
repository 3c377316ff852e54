"""`scat wait` and `scat watch`: playing over days, told when it is your turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from scat_cli import render
from scat_cli.common import AsName, AsViewer, GameArg, Json, Token, ViewerToken, service
from scat_cli.token_store import remember, token_for

if TYPE_CHECKING:
    from scat_core.service.values import SeenEvent


Timeout = Annotated[float | None, typer.Option(
    "--timeout", min=0, metavar="SECONDS", show_default=False,
    help="Give up after this many seconds (exit 6). Default: wait for as long as it takes.")]


def wait(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, timeout: Timeout = None,
         as_json: Json = False) -> None:
    """Wait for NAME's turn (or the game's end), then show it.

    Prints what `scat show GAME --as NAME` would. On PostgreSQL and through --server it is
    woken by the move itself (push); on SQLite it looks a few times a second. Exit 6 when
    --timeout runs out first.

    Example: scat wait 3f2a1b9c0d --as you --timeout 3600
    """
    from scat_cli.errors import WaitTimedOut
    from scat_cli.play import print_shown

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        waited = games.wait_for_turn(game, player, token_for(ctx, game, player, token), timeout)
    state = waited.shown.state
    if waited.timed_out:
        seat = state.seat_of(player)
        name = state.players[seat].name if seat is not None else player
        seconds = "second" if timeout == 1 else "seconds"
        raise WaitTimedOut(f"still not the turn of {name} in game {game} after {timeout:g} {seconds}")
    print_shown(ctx, waited.shown, as_json)
    if token and state.protected:
        remember(ctx, game, {player: token})


def watch(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
          as_json: Json = False) -> None:
    """Print each event of a game as it happens.

    Until the game ends, or Ctrl-C.

    One line per event as `scat log` prints it (hidden cards left out while the game runs;
    with --as, your own shown); --json prints one JSON object per line.

    Example: scat watch 3f2a1b9c0d --as you
    """
    from scat_cli.transcript import PublicTable, describe

    table = PublicTable()
    try:
        with service(ctx) as games:
            game = games.resolve_game_id(game)
            for seen in games.watch(game, player, token_for(ctx, game, player, token)):
                _print_event(seen, describe(seen.event, table), as_json)
                table.apply(seen.event)
    except KeyboardInterrupt:  # the way to stop watching: not an error
        return


def _print_event(stored: SeenEvent, text: str, as_json: bool) -> None:
    if as_json:
        import json

        typer.echo(json.dumps({"seq": stored.seq, "recorded_at": stored.recorded_at, "type": stored.type,
                               "data": stored.data, "text": text}, ensure_ascii=False))
    else:
        render.print_lines([f"{stored.seq:>4}  {stored.recorded_at[:19].replace('T', ' ')}  {stored.type:<14}  {text}"])
    # each line reaches a pipe at once
    import sys

    sys.stdout.flush()

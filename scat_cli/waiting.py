"""`scat wait` and `scat watch`: playing over days, told when it is your turn."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated

import typer

from scat_cli import render
from scat_cli.hook import CANCELLED, GAME_OVER, INVITATION, TIMEOUT, occasion, run_hook
from scat_cli.remembered import remember, token_for, tokens_of
from scat_cli.render import local_text
from scat_cli.settings import state
from scat_cli.typer_glue import AsName, AsViewer, GameArg, Json, Look, Token, ViewerToken
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.service.boundary import Games
    from scat_core.service.values import SeenEvent


Timeout = Annotated[float | None, typer.Option(
    "--timeout", min=0, metavar="SECONDS", show_default=False,
    help="Give up after this many seconds (exit 6). Default: wait for as long as it takes.")]


OptionalGame = Annotated[str | None, typer.Argument(
    metavar="[GAME]", show_default=False,
    help="The game id, or any unique start of it (see `scat games`); leave it out with --any.")]
Any_ = Annotated[bool, typer.Option(
    "--any", help="Wait for NAME's turn in any running game he sits in (or for one of them to end).")]
New = Annotated[bool, typer.Option(
    "--new", help="With --any: leave out what an earlier `wait --any --new` as NAME told (each turn and "
                  "each end is told once; remembered in your config directory), for a loop of waits.")]
Exec = Annotated[str | None, typer.Option(
    "--exec", metavar="CMD", show_default=False,
    help="When the wait returns (or times out), run CMD through `/bin/sh -c` with SCAT_GAME (the game's "
         "id; empty on a timeout of --any), SCAT_PLAYER, SCAT_EVENT (your-turn, game-over, invitation, "
         "cancelled or timeout) and SCAT_SERVER (the --server URL, or empty) in its environment. The exit code stays "
         "scat's own; a CMD that fails is a note on stderr.")]


def wait(ctx: typer.Context, game: OptionalGame = None, player: AsName = "", token: Token = None,
         timeout: Timeout = None, as_json: Json = False, any_game: Any_ = False, new: New = False,
         command: Exec = None, look: Look = False) -> None:
    """Wait for NAME's turn (or the game's end), then show it.

    Prints what `scat show GAME --as NAME` would. On PostgreSQL and through --server it is
    woken by the move itself (push); on SQLite it looks a few times a second. Exit 6 when
    --timeout runs out first.

    With --any instead of GAME: returns as soon as any running game NAME sits in waits for
    him, or one of them ends (at once if one waits already), and prints that game as
    `scat show GAME --as NAME` would (its id first). Protected games count with the tokens
    scat remembers for NAME. Through --server one stream carries all of them, and a wait
    outlives a server restart within its timeout.

    Example: scat wait 3f2a1b9c0d --as you --timeout 3600

    Example: scat wait --any --new --as you --exec 'notify-send Scat "$SCAT_EVENT in $SCAT_GAME"'
    """
    from scat_core.domain.errors import BadInput

    if not player:
        raise BadInput("wait needs --as NAME: the player whose turn to wait for")
    if any_game == (game is not None):
        raise BadInput("give either a GAME or --any (any game NAME sits in), not both" if any_game
                       else "give the GAME to wait in, or --any for any game NAME sits in")
    if new and not any_game:
        raise BadInput("--new goes with --any")
    if any_game and token and getattr(ctx.get_parameter_source("token"), "name", "") == "COMMANDLINE":
        raise BadInput("--token is one game's: give it once with `scat show GAME --as NAME --token TOKEN`, "
                       "then wait --any uses every token scat remembers for NAME")
    if any_game:
        _wait_any(ctx, player, timeout, as_json, new, command, look)
        return
    assert game is not None
    _wait_one(ctx, game, player, token, timeout, as_json, command, look)


def _resolved_in_time(games: Games, given: str, deadline: float | None) -> str:
    """The whole id of the game `given` names; a server that is away (restarting, say) is asked
    again until `deadline` (monotonic), as the wait itself tries a lost server again."""
    from scat_cli.errors import ServerLost

    backoff = None
    while True:
        try:
            return games.resolve_game_id(given)
        except ServerLost as lost:
            if backoff is None:
                from scat_cli.remote.backoff import Backoff

                backoff = Backoff(deadline)
            backoff.after(lost)


def _wait_one(ctx: typer.Context, game: str, player: str, token: str | None, timeout: float | None,
              as_json: bool, command: str | None, look: bool = False) -> None:
    from scat_cli.errors import WaitTimedOut
    from scat_cli.play import print_shown

    with service(ctx) as games:
        deadline = None if timeout is None else time.monotonic() + timeout
        game = _resolved_in_time(games, game, deadline)
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        waited = games.wait_for_turn(game, player, token_for(ctx, game, player, token), left, look)
    state = waited.shown.state
    if waited.timed_out:
        seat = state.seat_of(player)
        name = state.players[seat].name if seat is not None else player
        _hook(ctx, command, game, name, TIMEOUT)
        raise WaitTimedOut(f"still not the turn of {name} in game {game} after {_seconds(timeout)}")
    print_shown(ctx, waited.shown, as_json)
    if token and state.protected:
        remember(ctx, game, {player: token})
    _hook(ctx, command, game, player, occasion(state.status))


def _wait_any(ctx: typer.Context, player: str, timeout: float | None, as_json: bool, new: bool,
              command: str | None, look: bool = False) -> None:
    from scat_cli.errors import WaitTimedOut
    from scat_cli.play import print_shown
    from scat_cli.remembered import keep_told, told_before

    with service(ctx) as games:
        waited = games.wait_for_any_turn(player, tokens_of(ctx, player), timeout,
                                         told_before(ctx, player) if new else None, look)
    if new:
        keep_told(ctx, player, waited.told)
    if waited.shown is None:
        _hook(ctx, command, None, player, TIMEOUT)
        raise WaitTimedOut(f"no game waits for {player} after {_seconds(timeout)}")
    shown = waited.shown
    event = occasion(shown.state.status)
    if not as_json:  # which game, before its news and its table
        render.print_lines([{GAME_OVER: f"Game {shown.game_id} is over.",
                             INVITATION: f"You are invited to game {shown.game_id} (R28).",
                             CANCELLED: f"Game {shown.game_id} was cancelled."}.get(
            event, f"Your turn in game {shown.game_id}.")])
    print_shown(ctx, shown, as_json)
    _hook(ctx, command, shown.game_id, player, event)


def _seconds(timeout: float | None) -> str:
    return f"{timeout:g} {'second' if timeout == 1 else 'seconds'}"


def _hook(ctx: typer.Context, command: str | None, game: str | None, player: str, event: str) -> None:
    """Run the --exec command, if any (see scat_cli.hook)."""
    if command is not None:
        run_hook(command, game=game, player=player, event=event, server=state(ctx).server)


def watch(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
          as_json: Json = False, look: Look = False) -> None:
    """Print each event of a game as it happens.

    Until the game ends, or Ctrl-C.

    One line per event as `scat log` prints it (hidden cards left out while the game runs;
    with --as, your own shown); --json prints one JSON object per line.

    Example: scat watch 3f2a1b9c0d --as you
    """
    from scat_cli.seats import seated
    from scat_cli.transcript import PublicTable, describe, marked

    table, signed = PublicTable(), False
    try:
        with service(ctx) as games:
            game = games.resolve_game_id(game)
            player = seated(ctx, "watch", player,  # a look that records none (R23): whom it watches as
                            lambda viewer: games.show(game, viewer, token_for(ctx, game, viewer, token), look=False),
                            lambda answer: answer.state).viewer
            for seen in games.watch(game, player, token_for(ctx, game, player, token), look):
                if seen.type == "MoveSigned" and not as_json:  # the move it signs is marked instead
                    signed = True
                    continue
                _print_event(seen, marked(describe(seen.event, table), signed), as_json)
                signed = False
                table.apply(seen.event)
    except KeyboardInterrupt:  # the way to stop watching: not an error
        return


def _print_event(stored: SeenEvent, text: str, as_json: bool) -> None:
    if as_json:
        import json

        typer.echo(json.dumps({"seq": stored.seq, "recorded_at": stored.recorded_at, "type": stored.type,
                               "data": stored.data, "text": text}, ensure_ascii=False))
    else:
        render.print_lines([f"{stored.seq:>4}  {local_text(stored.recorded_at)}  {stored.type:<14}  {text}"])
    # each line reaches a pipe at once
    import sys

    sys.stdout.flush()

"""The record of a game: `log` and `replay`."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from typing import Annotated, Any

import typer

from scat_cli import render
from scat_cli.presenter import messages_block, messages_json, next_steps, viewer_view
from scat_cli.remembered import token_for
from scat_cli.render import local_text, print_json
from scat_cli.typer_glue import AsViewer, GameArg, Json, ViewerToken
from scat_cli.wiring import service


def log(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
        as_json: Json = False) -> None:
    """The event log, one line per event.

    Each line: seq, time (your local time, with its offset), type, what happened; a move its player signed (on a
    server) is marked `✓ signed` (--json has its MoveSigned event, with the key id). While
    the game runs, hidden cards (other hands, the stock) are left out; with --as you also
    see your own. Once it is over, everything is shown.

    Example: scat log 3f2a1b9c0d --as you
    """
    from scat_cli.seats import seated
    from scat_cli.transcript import PublicTable, describe

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        history = seated(ctx, "log", player,
                         lambda viewer: games.log(game, viewer, token_for(ctx, game, viewer, token)),
                         lambda answer: answer.state)
    player = history.viewer
    # While the game runs, no hashes: with the hash of a redacted event (a card drawn from the
    # stock) and the hash before it, the hidden card is one of 52 tries away.
    hashes = history.state.status == "finished"
    table = PublicTable()
    lines: list[dict[str, Any]] = []
    for seen in history.events:
        line = {"seq": seen.seq, "recorded_at": seen.recorded_at, "type": seen.type,
                "schema_version": seen.schema_version, "data": seen.data, "text": describe(seen.event, table)}
        if hashes:
            line |= {"prev_hash": seen.prev_hash, "hash": seen.hash}
        lines.append(line)
        table.apply(seen.event)
    if as_json:
        print_json({"game_id": game, "viewer": player, "events": lines})
        return
    from scat_cli.transcript import marked

    told: list[dict[str, Any]] = []
    signed = False  # a signed move: one line, marked; its MoveSigned is --json's
    for line in lines:
        if line["type"] == "MoveSigned":
            signed = True
            continue
        told.append({**line, "text": marked(str(line["text"]), signed)})
        signed = False
    width = max(len(line["type"]) for line in told)
    render.print_lines(
        f"{line['seq']:>4}  {local_text(line['recorded_at'])}  {line['type']:<{width}}  {line['text']}"
        for line in told
    )


def replay(ctx: typer.Context, game: GameArg,
           to: Annotated[int | None, typer.Option("--to", metavar="SEQ", show_default=False,
                                                  help="Stop after event SEQ (default: the last).")] = None,
           player: AsViewer = None, token: ViewerToken = None, as_json: Json = False) -> None:
    """Show a game rebuilt from its events, as after event SEQ.

    With --as, show what that player could see at that moment (that player's own hand only).

    Example: scat replay 3f2a1b9c0d --to 12 --as you
    """
    from scat_cli.seats import seated

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        replayed = seated(ctx, "replay", player,
                          lambda viewer: games.replay(game, to, viewer, token_for(ctx, game, viewer, token)),
                          lambda answer: answer.state)
    player = replayed.viewer
    state, shown = replayed.state, replayed.events
    view = {**viewer_view(state, player), "replayed_to": state.version,
            "messages": messages_json(shown)[-5:]}  # what had been said by then
    if as_json:
        print_json(view)
        return
    from scat_cli.transcript import PublicTable, describe

    table = PublicTable()
    for seen in shown[:-1]:
        table.apply(seen.event)
    render.plain(f"Replayed to event {state.version} of {game}: {describe(shown[-1].event, table)}")
    render.view_table(view)
    messages_block(shown)
    if player and to is None:
        title, steps = next_steps(ctx, state, player, replayed.moves, replayed.read_only)
        if title or steps:
            render.hints(steps, title)

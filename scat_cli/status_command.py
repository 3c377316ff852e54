"""`scat status`: what waits for you: your turns (longest waiting first, with the time you have
left), invitations to answer (R28), games waiting for others, games ended in the last 7 days.

One call to the service (`Games.status`), rendered here: each line begins with the command to run
for it, as typed, so it pastes."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from scat_cli.command_lines import command_line, runnable, scat_prefix
from scat_cli.render import print_json
from scat_cli.typer_glue import AsViewer, Json
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.service.values import Dashboard, Listing


def status(ctx: typer.Context, player: AsViewer = None, as_json: Json = False) -> None:
    """What waits for you, in all your games.

    Your turns (longest waiting first, with the time you have left), the invitations you may
    accept or decline (R28), the games waiting for others, and the games that ended in the last
    7 days. Each line begins with the command to run. --as may be left out when config.toml or SCAT_AS
    names you, or on a server where your key is an account.

    Example: scat status --as you
    """
    from scat_core.domain.errors import BadInput

    if not player:
        raise BadInput("whose games? give --as NAME (or keep it in config: `scat config set as NAME`)")
    with service(ctx) as games:
        board = games.status(player)
    if as_json:
        print_json({part: [_game_json(row) for row in getattr(board, part)] for part in PARTS})
        return
    _render(ctx, board)


#: The dashboard's lists, in the order they are told, with their titles.
PARTS = {"your_turn": "Your turn", "invitations": "Invitations", "waiting": "Waiting for others",
         "finished": "Ended in the last 7 days"}


def _game_json(row: Listing) -> dict[str, Any]:
    """One game of the dashboard as JSON: its id, status, turn and players, and what its line tells."""
    return {"game_id": row.game_id, "status": row.status, "turn": row.turn, "players": row.players,
            "bots": row.bots, "awaiting": row.awaiting, "open_seats": row.open_seats, "winner": row.winner,
            "hand_number": row.hand_number, "last_activity": row.last_activity,
            "move_deadline": row.move_deadline, "move_time_left": row.move_time_left}


def _render(ctx: typer.Context, board: Dashboard) -> None:
    from scat_cli import render

    scat = scat_prefix(ctx)
    if not any(getattr(board, part) for part in PARTS):
        render.plain(runnable(f"Nothing waits for {board.player}. Start a game: "
                              f"`{scat} {command_line('new', '--player', board.player, '--bot', 'ann')}`"))
        return
    for part, title in PARTS.items():
        rows = getattr(board, part)
        if not rows:
            continue
        render.plain(f"{title} ({len(rows)}):")
        render.hints([(f"{scat} {_command(row, part)}", _line(row, part, board.player)) for row in rows])


def _line(row: Listing, part: str, player: str) -> str:
    """One game in a line: its id, the others in it, and where it stands."""
    from scat_cli.render import ago, time_left, waiting_text

    others = ", ".join(name + ("*" if name in row.bots else "") for name in row.players
                       if name.casefold() != player.casefold())
    where = f"{row.game_id}  with {others or 'nobody yet'}"
    if part == "your_turn":
        left = "" if row.move_time_left is None else f", {time_left(row.move_time_left) or '0s'} left"
        return f"{where}  (hand {row.hand_number}, last move {ago(row.last_activity)}{left})"
    if row.status == "pending":
        return f"{where}  ({waiting_text(row.awaiting, row.open_seats)})"
    if part == "waiting":
        return f"{where}  ({row.turn or 'nobody'} to play)"
    ended = "cancelled" if row.status == "cancelled" else f"won by {row.winner}" if row.winner else "abandoned"
    return f"{where}  ({ended} {ago(row.last_activity)})"


def _command(row: Listing, part: str) -> str:
    """What to run for the game of a line."""
    if part == "your_turn":
        return command_line("play", row.game_id)
    if part == "invitations":
        return command_line("accept", row.game_id)
    return command_line("show", row.game_id)

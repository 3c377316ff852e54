"""What a command does for a NAME with no seat in the game: one table, one answer (NotFound.no_seat).

A NAME typed (`--as NAME`) that has no seat is refused with exit 4 naming the players, locally
and through a server alike (a server shows an account with no seat the public view: the client
refuses it there). A NAME that is only a default (SCAT_AS, `as` in config.toml, or the account
on a server) means "me, where I sit": where the command can show the game to anyone, it shows
the public view instead; where it needs a seat (`wait`), it is refused at once, never a timeout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

import typer

from scat_core.domain.errors import NotFound
from scat_core.domain.state import GameState

#: Per command, what a default NAME with no seat gets: "public" (the view without --as) or "refuse".
#: A typed NAME with no seat is refused by every command.
NO_SEAT: dict[str, Literal["public", "refuse"]] = {
    "show": "public", "log": "public", "replay": "public", "watch": "public", "wait": "refuse",
}

T = TypeVar("T")


def typed(ctx: typer.Context, parameter: str = "player") -> bool:
    """Whether the command's `--as` was typed (not a default from the environment, config.toml or the account)."""
    source = ctx.get_parameter_source(parameter)
    return getattr(source, "name", "") == "COMMANDLINE"


def seated(ctx: typer.Context, command: str, player: str | None, shown: Callable[[str | None], T],
           state_of: Callable[[T], GameState]) -> T:
    """`shown(player)` as `command` answers a NAME with no seat (see NO_SEAT): refused (NotFound.no_seat),
    or `shown(None)`, the public view, for a default NAME."""
    if player is None:
        return shown(None)
    public_instead = not typed(ctx) and NO_SEAT[command] == "public"
    try:
        answer = shown(player)
    except NotFound as missing:
        if missing.player is None or not public_instead:
            raise
        return shown(None)
    state = state_of(answer)
    if state.seat_of(player) is None and not public_instead:  # a server shows a seatless account the public view
        raise NotFound.no_seat(state.game_id, player, [p.name for p in state.players])
    return answer

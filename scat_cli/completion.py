"""Shell completion of values (Typer's own `--install-completion`): game ids from this invocation's
database or server, and card names (those the `--as` player may discard now when the game can be seen
as him, else the deck).

A completion never fails aloud: whatever goes wrong (no database, a server away), it offers nothing.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scat_core.service.boundary import Games


def complete_game(ctx: Any, incomplete: str) -> list[tuple[str, str]]:
    """The ids of the games here that start with `incomplete`, each with its players and status."""
    try:
        with _games(ctx) as games:
            rows = games.game_list()
    except Exception:  # noqa: BLE001 - a completion offers nothing rather than an error in the shell
        return []
    wanted = incomplete.strip().casefold()
    return [(row.game_id, f"{', '.join(row.players)} ({row.status})")
            for row in rows if row.game_id.startswith(wanted)]


def complete_card(ctx: Any, incomplete: str) -> list[str]:
    """Card names starting with `incomplete`: the cards the `--as` player may discard now, as the rules
    say (R12, R13: not the card just taken from the discard pile; none before his draw), when the game
    can be seen as him; else every card."""
    from scat_core.domain.cards import DECK

    allowed = _discards(ctx)
    cards = list(DECK) if allowed is None else allowed
    wanted = incomplete.strip().upper()
    return [card for card in cards if card.startswith(wanted)]


def _discards(ctx: Any) -> list[str] | None:
    """The cards the player named by --as may discard now in the game named (the service's legal moves,
    seen without recording a look, R23); None when that cannot be known."""
    game, player = ctx.params.get("game"), ctx.params.get("player")
    if not game or not player:
        return None
    try:
        from scat_cli.remembered import token_for

        with _games(ctx) as games:
            game_id = games.resolve_game_id(game)
            shown = games.show(game_id, player, token_for(ctx, game_id, player, ctx.params.get("token")), look=False)
            if shown.state.seat_of(player) is None:
                return None
            return [move.card for move in shown.moves if move.card is not None]  # the legal discards
    except Exception:  # noqa: BLE001 - see complete_game
        return None


@contextmanager
def _games(ctx: Any) -> Iterator[Games]:
    """The games of the database or server the command line (or the environment, or config.toml) names."""
    from scat_cli.settings import CliState, settle
    from scat_cli.wiring import service

    root = ctx.find_root()
    if not isinstance(root.obj, CliState):  # completing: the root's callback did not run
        root.obj = settle(root, root.params.get("db"), root.params.get("server"))
    with service(root) as games:
        yield games

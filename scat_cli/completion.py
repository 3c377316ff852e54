"""Shell completion of values (Typer's own `--install-completion`): game ids from this invocation's
database or server, and card names (the hand of the `--as` player when it can be seen, else the deck).

A completion never fails aloud: whatever goes wrong (no database, a server away), it offers nothing.
"""

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
    """Card names starting with `incomplete`: the `--as` player's hand when it can be seen, else every card."""
    from scat_core.domain.cards import DECK

    cards = _hand(ctx) or list(DECK)
    wanted = incomplete.strip().upper()
    return [card for card in cards if card.startswith(wanted)]


def _hand(ctx: Any) -> list[str]:
    """The cards of the player named by --as in the game named, as he may see them; [] when unknown."""
    game, player = ctx.params.get("game"), ctx.params.get("player")
    if not game or not player:
        return []
    try:
        from scat_cli.token_store import token_for

        with _games(ctx) as games:
            game_id = games.resolve_game_id(game)
            shown = games.show(game_id, player, token_for(ctx, game_id, player, ctx.params.get("token")))
            seat = shown.state.seat_of(player)
            return [] if seat is None else [card for card in shown.state.hands[seat] if card != "??"]
    except Exception:  # noqa: BLE001 - see complete_game
        return []


@contextmanager
def _games(ctx: Any) -> Iterator[Games]:
    """The games of the database or server the command line (or the environment, or config.toml) names."""
    from scat_cli.context import CliState
    from scat_cli.service import service
    from scat_cli.settings import settle

    root = ctx.find_root()
    if not isinstance(root.obj, CliState):  # completing: the root's callback did not run
        root.obj = settle(root, root.params.get("db"), root.params.get("server"))
    with service(root) as games:
        yield games

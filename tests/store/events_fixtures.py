"""Small, valid domain events for store tests."""

from __future__ import annotations

from pydantic import BaseModel

from scat_core.domain.events import CardDiscarded, CardDrawn, GameCreated, Knocked, PlayerSeat
from scat_core.domain.options import GameOptions


def game_created(game_id: str = "g1") -> GameCreated:
    """The first event of a two-player game."""
    return GameCreated(
        game_id=game_id,
        players=(PlayerSeat(name="ann"), PlayerSeat(name="bob", is_bot=True)),
        options=GameOptions(),
        dealer="ann",
        dealer_drawn=False,
        seed_commitment="c" * 64,
    )


def a_turn(player: str = "bob") -> list[BaseModel]:
    """A draw and a discard by `player`."""
    return [
        CardDrawn(player=player, source="stock", card="AS"),
        CardDiscarded(player=player, card="2C"),
    ]


def a_knock(player: str = "ann") -> Knocked:
    """A knock by `player`."""
    return Knocked(player=player)

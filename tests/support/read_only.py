"""A database a read-only medium holds: its stats projection behind its events."""

from __future__ import annotations

from pathlib import Path

from scat_cli.wiring import open_database
from scat_core.domain.commands import Discard, Draw
from scat_core.domain.events import PlayerSeat

YOU_AND_BOB = [PlayerSeat(name="you"), PlayerSeat(name="bob", is_bot=True)]


def stats_behind_their_events(path: Path) -> str:
    """A database whose stats projection has seen one game (its id returned), and whose log holds
    one of its moves and a finished game more."""
    service = open_database(f"sqlite:///{path}")
    game = service.playing.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    service.stats()  # the projection catches up: its rows and checkpoint are written
    drawn = service.playing.act(game, Draw("you", "stock")).state
    service.playing.act(game, Discard("you", drawn.hands[0][0]))  # and the bot replies: you draw next
    service.playing.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="Bob", is_bot=True)], seed=7)
    service.store.engine.dispose()
    return game

"""Service test helpers: games in play, the next move, a running game imported elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.service import GameService, playing
from scat_core.service.signatures import with_export_signature
from tests.support.databases import migrated

HUMAN_AND_BOT = [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)]


def a_game_in_play(service: GameService, moves: int = 12) -> str:
    """A game of three humans, `moves` commands in (not finished)."""
    outcome = service.playing.create_game([PlayerSeat(name=n) for n in ("ann", "bob", "cy")], seed=31)
    state = outcome.state
    for _ in range(moves):
        command = heuristic_move(state, state.turn) if state.turn is not None else None
        assert command is not None
        state = service.playing.act(outcome.game_id, command).state
    return outcome.game_id


def as_a_scat_before_signed_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on the service makes its games as scat did before GameCreated.signed: without it
    (their heads signed all the same, but nothing in the events says they must be)."""
    real = playing.CreateGame
    monkeypatch.setattr(playing, "CreateGame", lambda **fields: real(**{**fields, "signed": False}))


def protected_game(service: GameService) -> tuple[str, str]:
    """A protected game of ann (to act) against a bot: its id and ann's token."""
    played = service.new_game([PlayerSeat(name="ann"), PlayerSeat(name="bot", is_bot=True)], dealer="bot",
                              protect=True, viewer="ann")
    return played.game_id, (played.tokens or {})["ann"]


def next_move(service: GameService, game_id: str) -> None:
    """Play the heuristic bot's move for the player to play."""
    state = service.playing.look(game_id)
    assert state.turn is not None
    command = heuristic_move(state, state.turn)
    assert command is not None
    service.playing.act(game_id, command)


def import_running(db_url: str, tmp_path: Path, protect: bool) -> tuple[GameService, str]:
    """A running game (you to play) copied into a fresh database, as an import would, seed left behind."""
    target = open_database(migrated(f"sqlite:///{tmp_path / 'imported.db'}"))
    return copy_running(open_database(migrated(db_url)), target, protect)


def copy_running(source: GameService, target: GameService, protect: bool) -> tuple[GameService, str]:
    """A running game (you to play) made in `source` and imported into `target`, seed left behind."""
    created = source.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann", protect=protect,
                                 options=GameOptions(throw_down=True))
    with source.store.read() as tx:  # what an export of it held, its head's signature on the last record
        records = with_export_signature(tx.load_raw(created.game_id), tx.read_signature(created.game_id))
    assert target.import_records(records).ok
    return target, created.game_id

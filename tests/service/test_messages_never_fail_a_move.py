"""A message never makes a concurrent move fail. On PostgreSQL a command loads the game and
writes it with no transaction around the two (EventStore.command): a message written between
a move's load and its write makes that write meet another head; the move is then made again on
the log as it is now and stands, the message before it. (On SQLite a command's load and write
are one transaction, which a message cannot come between.)"""

from __future__ import annotations

from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.commands import Draw
from scat_core.domain.errors import ConcurrencyConflict
from scat_core.service import playing
from tests.support.databases import migrated

YOU_AND_KAY = [ev.PlayerSeat(name="you"), ev.PlayerSeat(name="kay")]


@pytest.mark.postgres
def test_a_message_written_between_a_moves_load_and_write_does_not_fail_the_move(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    mover, talker = open_database(migrated(postgres_url)), open_database(migrated(postgres_url))
    game = mover.new_game(YOU_AND_KAY, seed=5, dealer="kay").game_id  # you play first
    real = playing.append
    said: list[int] = []

    def append(tx: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        if not said:  # kay speaks after the move's load, before its write
            said.append(state.version)
            talker.say(game, "kay", "take your time")
        return real(tx, state, *args, **kwargs)

    monkeypatch.setattr(playing, "append", append)
    played = mover.move(game, Draw("you", "stock"))
    assert [seen.type for seen in played.events] == ["CardDrawn"]
    types = [stored.type for stored in mover.reading.history(game)]
    assert types[-2:] == ["MessageSaid", "CardDrawn"]
    assert mover.audit(game).ok
    for service in (mover, talker):
        service.store.engine.dispose()


@pytest.mark.postgres
def test_a_move_written_between_another_moves_load_and_write_still_fails_it(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only talk is waved through: a move that came first still wins (exit 5, nothing written)."""
    first, second = open_database(migrated(postgres_url)), open_database(migrated(postgres_url))
    game = first.new_game(YOU_AND_KAY, seed=5, dealer="kay").game_id
    real = playing.append
    moved: list[int] = []

    def append(tx: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        if not moved:
            moved.append(1)
            monkeypatch.setattr(playing, "append", real)
            first.move(game, Draw("you", "discard"))
        return real(tx, state, *args, **kwargs)

    monkeypatch.setattr(playing, "append", append)
    with pytest.raises(ConcurrencyConflict):
        second.move(game, Draw("you", "stock"))
    assert [stored.type for stored in first.reading.history(game)][-1] == "CardDrawn"
    for service in (first, second):
        service.store.engine.dispose()

"""One rematch a game: a second game written as the rematch of the same game (two players asking
at once) is refused whole by every store, the first one standing (game_rematches, 0017)."""

from __future__ import annotations

import pytest

from scat_core.domain.errors import ConcurrencyConflict
from scat_core.service import GameService
from tests.support.services import HUMAN_AND_BOT


def test_a_second_rematch_of_a_game_is_refused_and_nothing_of_it_written(any_service: GameService) -> None:
    first = any_service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann", rematch_of="g-over").game_id
    listed = {row.game_id for row in any_service.reading.list_games()}
    with pytest.raises(ConcurrencyConflict, match="^game g-over has its rematch already: look again$"):
        any_service.playing.create_game(HUMAN_AND_BOT, seed=4, dealer="ann", rematch_of="g-over")
    assert {row.game_id for row in any_service.reading.list_games()} == listed == {first}
    with any_service.store.read() as tx:
        assert tx.find_rematch("g-over") == first

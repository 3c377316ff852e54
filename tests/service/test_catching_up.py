"""A returning player's news (`scat show --as NAME`): read from the log's end, the same as from the whole game.

`news` reads only the events after the viewer's last action (and the few that change the
public table before them); this checks it against the news computed from the whole
history, for every player, all through games with knocks, eliminations (R25) and
resignations (R27), on both databases.
"""

from __future__ import annotations

import random

import pytest

from scat_core.domain.commands import Resign
from scat_core.domain.errors import ScatError
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import fold
from scat_core.domain.legal import play_moves
from scat_core.domain.options import GameOptions
from scat_core.domain.views import public_of
from scat_core.service import GameService
from scat_core.service.values import last_action_index

NAMES = ("ann", "Bob", "cy", "dee")


def whole_game_news(service: GameService, game_id: str, viewer: str) -> tuple[object, ...]:
    """The news as computed from the whole history: the reference."""
    state, shown = service.reading.look_at_history(game_id, viewer)
    true_events = [stored.event for stored, _ in shown]
    last = last_action_index(true_events, viewer)
    start = 1 if last is None else last + 1
    before = fold(true_events[:start])
    return state, public(before), [(stored.seq, event) for stored, event in shown[start:]]


def public(state: object) -> tuple[object, ...]:
    assert hasattr(state, "players")
    table = public_of(state)  # type: ignore[arg-type]
    return table, state.hand_number, state.dealer, [p.resigned for p in state.players]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", [1, 2])
def test_news_from_the_logs_end_is_the_news_from_the_whole_game_for_every_player(
    service: GameService, seed: int
) -> None:
    rng = random.Random(seed)
    created = service.playing.create_game([PlayerSeat(name=name) for name in NAMES], seed=seed,
                                  options=GameOptions(lives=1, throw_down=seed == 2))
    game_id, state, moves = created.game_id, created.state, 0
    while state.status != "finished" and moves < 400:
        moves += 1
        if moves % 5 == 0:
            for viewer in NAMES:
                news = service.reading.news(game_id, viewer.upper())
                assert (news.state, public(news.before), [(s.seq, e) for s, e in news.events]) == whole_game_news(
                    service, game_id, viewer.upper()
                )
        state = service.playing.look(game_id)
        assert state.turn is not None
        command = (Resign(state.players[state.turn].name) if rng.random() < 0.01
                   else rng.choice(play_moves(state, state.turn)))
        try:
            state = service.playing.act(game_id, command).state
        except ScatError:
            continue
    news = service.reading.news(game_id, "ann")  # a finished game: nothing is redacted any more
    assert (news.state, public(news.before), [(s.seq, e) for s, e in news.events]) == whole_game_news(
        service, game_id, "ann"
    )

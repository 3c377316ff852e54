"""A command is one unit: its events, the bots' replies and the game's head are written together
or not at all, and its answer is made before the write. A failure injected at each step of a move
(after the decision, in a bot's reply, after the append, while building the answer), and of a new
game, leaves the log and the games list exactly as they were, on SQLite and on PostgreSQL; the
move can then be made again, and the game audits clean."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.commands import Discard, Draw
from scat_core.service import games, playing
from scat_core.service.games import GameService
from tests.support.databases import migrated

YOU_AND_BOB = [ev.PlayerSeat(name="you"), ev.PlayerSeat(name="bob", is_bot=True)]


class Injected(Exception):
    """The failure injected into a step."""


def after_the_decision(patch: pytest.MonkeyPatch) -> None:
    real = playing.decide_and_evolve

    def decided(state: Any, command: Any, chance: Any) -> Any:
        made = real(state, command, chance)
        if isinstance(command, Discard):
            raise Injected("after the decision")
        return made

    patch.setattr(playing, "decide_and_evolve", decided)


def in_a_bots_reply(patch: pytest.MonkeyPatch) -> None:
    real = playing.next_bot_command

    def next_move(state: Any) -> Any:
        command = real(state)
        if command is not None:
            raise Injected("in a bot's reply")
        return command

    patch.setattr(playing, "next_bot_command", next_move)


def after_the_append(patch: pytest.MonkeyPatch) -> None:
    real = playing.append

    def appended(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        raise Injected("after the append")

    patch.setattr(playing, "append", appended)


def while_building_the_answer(patch: pytest.MonkeyPatch) -> None:
    def moves(*_args: Any, **_kwargs: Any) -> Any:
        raise Injected("while building the answer")

    patch.setattr(games, "moves_of", moves)


STEPS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "after the decision": after_the_decision,
    "in a bot's reply": in_a_bots_reply,
    "after the append": after_the_append,
    "while building the answer": while_building_the_answer,
}


@pytest.fixture
def service(db_url: str) -> Iterator[GameService[Any]]:
    opened = open_database(migrated(db_url))
    yield opened
    opened.store.engine.dispose()


def the_record(service: GameService[Any], game_id: str) -> tuple[Any, ...]:
    """What must not change: every stored event with its hash, and the game's row in the games list."""
    row = service.reading.list_games()[0]
    events = [(stored.seq, stored.type, stored.hash) for stored in service.reading.history(game_id)]
    return tuple(events), (row.head_seq, row.turn, row.status)


@pytest.mark.parametrize("step", STEPS)
def test_a_move_that_fails_at_any_step_leaves_the_game_exactly_as_before(
    service: GameService[Any], step: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = service.new_game(YOU_AND_BOB, seed=5, dealer="bob").game_id  # you first, bob replies
    drawn = service.move(game, Draw("you", "stock"))
    card = drawn.state.hands[0][-1]
    before = the_record(service, game)
    with monkeypatch.context() as patch:
        STEPS[step](patch)
        with pytest.raises(Injected, match=step):
            service.move(game, Discard("you", card))
    assert the_record(service, game) == before
    done = service.move(game, Discard("you", card))  # and it can be made again, whole
    assert [seen.type for seen in done.events][:1] == ["CardDiscarded"] and len(done.events) > 1  # bob replied
    assert service.audit(game).ok


@pytest.mark.parametrize("step", ["in a bot's reply", "while building the answer"])
def test_a_new_game_that_fails_at_any_step_is_not_there_at_all(
    service: GameService[Any], step: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with monkeypatch.context() as patch:
        STEPS[step](patch)
        with pytest.raises(Injected):
            service.new_game(YOU_AND_BOB, seed=5, dealer="you")  # bob plays first
    assert service.reading.list_games() == [] and service.store.read_stats().overall.games_in_progress == 0

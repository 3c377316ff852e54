"""#9 point 5: evolve handles every event type of the `Event` union, checked, not assumed."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from scat_core.domain import events as ev
from scat_core.domain import evolve
from scat_core.domain.state import GameState


def test_the_dispatch_table_has_exactly_the_classes_of_the_event_union() -> None:
    classes = evolve.event_classes()
    assert len(classes) == 21
    assert classes == set(ev.EVENT_TYPES.values())
    assert frozenset(evolve.HANDLERS) == classes


def test_an_event_outside_the_union_is_refused_not_ignored() -> None:
    class Stranger(BaseModel):
        type: str = "Stranger"

    with pytest.raises(KeyError):
        evolve.evolve(GameState(), Stranger())  # type: ignore[arg-type]


def test_evolve_copies_and_fold_starts_from_a_copy() -> None:
    start = GameState()
    created = ev.GameCreated(game_id="g", players=(ev.PlayerSeat(name="A"), ev.PlayerSeat(name="B")),
                             options=ev.GameOptions(), dealer="A", dealer_drawn=False, seed_commitment="c")
    after = evolve.evolve(start, created)
    assert start == GameState() and after.version == 1 and after.game_id == "g"
    assert evolve.fold([created], start) == after and start == GameState()

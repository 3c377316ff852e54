"""The service's values and the server's wire models are built on first use (defer_build), and then
validate and serialise as built at import: a command pays only for the models it uses (#26 item 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel

from scat_cli.wire import answers, bodies
from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.service import GameService, values
from scat_core.store.memory import MemoryStore


def _models(module: Any) -> list[type[BaseModel]]:
    """The pydantic models a module defines."""
    return [thing for thing in vars(module).values() if isinstance(thing, type) and issubclass(thing, BaseModel)
            and thing is not BaseModel and thing.__module__ == module.__name__]


LAZY = [*_models(values), *_models(bodies), *_models(answers)]


def test_importing_the_values_and_the_wire_builds_none_of_their_models() -> None:
    probe = ("import json; from pydantic import BaseModel; from scat_core.service import values; "
             "from scat_cli.wire import answers, bodies; "
             "print(json.dumps(sorted(name for module in (values, bodies, answers) "
             "for name, thing in vars(module).items() if isinstance(thing, type) and issubclass(thing, BaseModel) "
             "and thing.__module__ == module.__name__ and thing.__pydantic_complete__)))")
    built = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                      check=True).stdout)
    assert built == []


@pytest.mark.parametrize("model", LAZY, ids=lambda model: model.__name__)
def test_every_deferred_model_builds_when_first_used(model: type[BaseModel]) -> None:
    model.model_rebuild(force=True)  # every annotation resolves (none only under TYPE_CHECKING)
    assert model.__pydantic_complete__
    assert model.model_json_schema()["title"] == model.__name__


def test_a_games_values_survive_a_json_round_trip_as_before() -> None:
    games = GameService(MemoryStore())
    played = games.new_game([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob", is_bot=True)], dealer="bob",
                            seed=7, viewer="ann")
    moved = games.move(played.game_id, cmd.Draw("ann", "stock"))
    made = [played, moved, games.show(played.game_id, "ann"), games.log(played.game_id, "ann"),
            *games.game_list(), games.export(played.game_id, running=True),
            values.Audits(reports=[games.audit(played.game_id)])]
    for value in made:
        again = type(value).model_validate_json(value.model_dump_json())
        assert again == value
        assert again.model_dump(mode="json") == value.model_dump(mode="json")
    assert [seen.event for seen in moved.events] == [ev.from_record(seen.type, seen.schema_version, seen.data)
                                                     for seen in moved.events]

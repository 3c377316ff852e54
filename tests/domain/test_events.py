"""Events: versioned, parsed from JSON by type, old versions upcast when read back."""

from __future__ import annotations

import json
import random
from typing import get_args

import pytest
from pydantic import TypeAdapter, ValidationError

from scat_core.domain import events as ev
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions
from tests.support.domain import COMMITMENT, heuristic, play_out, seats, uniform

ANY_EVENT: TypeAdapter[ev.Event] = TypeAdapter(ev.Event)  # type: ignore[arg-type]


def test_every_event_type_has_a_schema_version() -> None:
    assert len(ev.EVENT_TYPES) == 21
    for name, cls in ev.EVENT_TYPES.items():
        assert cls.model_fields["type"].default == name
        assert isinstance(cls.model_fields["schema_version"].default, int)
    assert ev.current_version("GameCreated") == 6


def test_every_event_class_is_in_the_event_union_that_event_types_derive_from() -> None:
    """A class left out of `AnyEvent` would be neither readable from storage nor checked by mypy's dispatch."""
    assert set(ev.EVENT_TYPES.values()) == set(ev.EventBase.__subclasses__())
    assert tuple(ev.EVENT_TYPES.values()) == get_args(ev.AnyEvent)


def test_a_whole_game_survives_the_round_trip_through_records_and_json() -> None:
    events, state = play_out(("A", "B", "C"), [heuristic, uniform(random.Random(1)), heuristic], "7",
                             options=GameOptions(throw_down=True, lives=2))
    assert {event.type for event in events} >= {"GameCreated", "HandDealt", "CardDrawn", "CardDiscarded",
                                                  "ShowdownHeld", "PennyPaid", "PlayerEliminated", "GameWon"}
    back = []
    for event in events:
        event_type, version, data = ev.to_record(event)
        data = json.loads(json.dumps(data))
        back.append(ev.from_record(event_type, version, data))
        assert ANY_EVENT.validate_json(event.model_dump_json()) == event
    assert back == events
    assert fold(back) == state


def v1_game_created() -> dict[str, object]:
    return {
        "game_id": "old",
        "players": [{"name": "Ann", "is_bot": False}, {"name": "Bob", "is_bot": True}],
        "options": {"lives": 3, "three_of_a_kind": False, "straight_flush": False, "min_knock": None,
                    "no_first_round_knock": False, "throw_down": False, "no_dole": False},
        "dealer": "Ann",
        "dealer_drawn": False,
        "seed_commitment": COMMITMENT,
    }


def test_a_game_created_v1_is_upcast_to_the_current_version_when_read_back_and_plays_rules_version_1() -> None:
    stored = v1_game_created()
    event = ev.from_record("GameCreated", 1, stored)
    assert event == ev.GameCreated(
        game_id="old", players=seats("Ann", "Bob", bots=["Bob"]), options=GameOptions(), dealer="Ann",
        dealer_drawn=False, seed_commitment=COMMITMENT, shuffle="scat-shuffle-v1", protected=False,
        rules_version=1, seed_chosen=None,
    )
    assert event.schema_version == 6 and event.signed_moves is False
    assert stored == v1_game_created()  # the stored data is never rewritten


def test_a_game_created_v2_predates_rules_versions_and_reads_as_rules_version_1() -> None:
    stored = {**v1_game_created(), "shuffle": "scat-shuffle-v1", "protected": True, "first_deck_stacked": False}
    before = dict(stored)
    event = ev.from_record("GameCreated", 2, stored)
    assert isinstance(event, ev.GameCreated)
    assert (event.schema_version, event.rules_version, event.protected) == (6, 1, True)
    assert fold([event]).rules_version == 1
    assert stored == before


def test_a_game_created_now_records_rules_version_3() -> None:
    event = ev.GameCreated(game_id="new", players=seats("Ann", "Bob"), options=GameOptions(), dealer="Ann",
                           dealer_drawn=False, seed_commitment=COMMITMENT)
    assert ev.to_record(event)[1:] == (6, {**ev.to_record(event)[2], "rules_version": 3})
    with pytest.raises(ValidationError):  # a rules version this program does not know
        ev.from_record("GameCreated", 6, {**ev.to_record(event)[2], "rules_version": 4})


def test_a_showdown_names_its_caller_as_before_or_none_for_a_dead_hand_nobody_knocked_in() -> None:
    data = {"caller": "Ann", "hands": {"Ann": ["AS", "2D", "3C"]}, "values": {"Ann": 11}, "lives_lost": {}}
    old = ev.from_record("ShowdownHeld", 1, data)
    assert isinstance(old, ev.ShowdownHeld) and old.caller == "Ann"
    assert ev.to_record(old) == ("ShowdownHeld", 1, data)  # an older game's showdown records as it did
    dead = ev.from_record("ShowdownHeld", 1, {**data, "caller": None})  # R17b: nobody knocked
    assert isinstance(dead, ev.ShowdownHeld) and dead.caller is None


def test_a_game_created_v3_is_upcast_with_seed_chosen_unknown() -> None:
    """V3 did not record whether the creator chose the seed."""
    stored = {**v1_game_created(), "shuffle": "scat-shuffle-v1", "protected": False, "first_deck_stacked": False,
              "rules_version": 2}
    event = ev.from_record("GameCreated", 3, stored)
    assert isinstance(event, ev.GameCreated) and event.seed_chosen is None and event.schema_version == 6


def test_a_game_created_v4_predates_accounts_and_reads_as_unsigned_moves() -> None:
    stored = {**v1_game_created(), "shuffle": "scat-shuffle-v1", "protected": True, "first_deck_stacked": False,
              "rules_version": 2, "seed_chosen": False}
    before = dict(stored)
    event = ev.from_record("GameCreated", 4, stored)
    assert isinstance(event, ev.GameCreated) and event.signed_moves is False and event.schema_version == 6
    assert fold([event]).signed_moves is False
    assert stored == before  # the stored data is never rewritten


def test_a_v1_record_does_not_parse_as_v2_without_its_upcaster() -> None:
    with pytest.raises(ValidationError):
        ANY_EVENT.validate_python({**v1_game_created(), "type": "GameCreated", "schema_version": 1})


def test_events_of_an_unknown_type_or_a_future_version_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown event type"):
        ev.from_record("CardsBurned", 1, {})
    with pytest.raises(ValueError, match="newer than this program"):
        ev.from_record("Knocked", 2, {"player": "Ann"})


def test_events_are_immutable_and_refuse_unknown_fields() -> None:
    knocked = ev.Knocked(player="Ann")
    with pytest.raises(ValidationError):
        knocked.player = "Bob"
    with pytest.raises(ValidationError):
        ev.Knocked(player="Ann", loudly=True)  # type: ignore[call-arg]

"""#13: decide builds its events without validation (scat_core/domain/speed_tricks.py); every one of
them must be exactly the model that validation makes of the same data, field types included,
and the same after the round trip through a record."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from pydantic import BaseModel

from scat_core.domain import events as ev
from scat_core.domain import speed_tricks
from scat_core.domain.evolve import event_classes
from scat_core.domain.options import GameOptions
from tests.support.random_games import NAMES, Setup, play_states, setups


def shape(value: Any) -> Any:
    """`value` with the exact type of everything in it spelled out (a tuple is not a list)."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [shape(item) for item in value])
    if isinstance(value, dict):
        return ("dict", [(shape(key), shape(item)) for key, item in value.items()])
    if isinstance(value, BaseModel):
        return (type(value).__name__, shape(value.__dict__))
    return (type(value).__name__, value)


def assert_as_validated(event: BaseModel) -> None:
    """`event` is what validation makes of its own data, and survives its record unchanged."""
    validated = type(event).model_validate(event.model_dump())
    assert validated == event
    assert shape(validated.__dict__) == shape(event.__dict__)  # same fields, order and types
    if type(event) in speed_tricks.MADE and not getattr(event, "stacked", False):
        # (GameCreated and a deck given at creation are validated: their fields set are those decide gave)
        assert event.model_fields_set == validated.model_fields_set == set(type(event).model_fields)
    assert (event.__pydantic_extra__, event.__pydantic_private__) == (None, None)
    back = ev.from_record(*ev.to_record(event))
    assert back == event and shape(back.__dict__) == shape(event.__dict__)
    assert event.model_dump_json() == validated.model_dump_json()
    assert type(event).model_validate_json(event.model_dump_json()) == event


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_every_event_decide_emits_is_exactly_the_validated_model(setup: Setup) -> None:
    try:
        events, _ = play_states(setup)
    except ValueError as error:
        # Some setups (rules v1, no-dole, one life, resignations) end a showdown with nobody left,
        # and decide fails ("no active player"), on main before this file too: a rules bug left
        # for #13's note. test_properties covers the rules; this test, the events' construction.
        if "no active player" not in str(error):
            raise
        reject()
    for event in events:
        assert_as_validated(event)


def test_a_long_game_with_reshuffles_has_only_events_equal_to_their_validated_models() -> None:
    setup = Setup(NAMES[:4], (False,) * 4, GameOptions(lives=1), "3", None, None, 3, 0.01, 2, 0.003)
    events, _ = play_states(setup)
    assert any(isinstance(event, ev.StockReshuffled) for event in events)
    for event in events:
        assert_as_validated(event)


SAMPLES: dict[type[BaseModel], dict[str, Any]] = {
    ev.HandDealt: {"hand_number": 2, "dealer": "Ann", "deck": tuple(f"{r}S" for r in "23456789")},
    ev.HandViewed: {"player": "Ann"},
    ev.StockReshuffled: {"stock": ("AS", "KD")},
    ev.CardDrawn: {"player": "Ann", "source": "discard", "card": "10H"},
    ev.CardDiscarded: {"player": "Ann", "card": "QC"},
    ev.Knocked: {"player": "Ann"},
    ev.ThirtyOneDeclared: {"player": "Ann", "hand": ("AS", "KS", "QS")},
    ev.ThrowDownCalled: {"player": "Ann"},
    ev.StockRanOut: {},
    ev.ShowdownHeld: {"caller": "Ann", "hands": {"Ann": ("AS", "2D", "3C"), "bob": ("4H", "5H", "6H")},
                      "values": {"Ann": 11, "bob": 15}, "lives_lost": {"Ann": 2}},
    ev.Resigned: {"player": "Ann"},
    ev.PennyPaid: {"player": "Ann"},
    ev.PlayerEliminated: {"player": "Ann"},
    ev.GameWon: {"winner": "Ann", "kitty": 3, "seed": "42", "seed_salt": "ab"},
    ev.GameAbandoned: {"by": None, "seed": "42", "seed_salt": "ab"},
    ev.MessageSaid: {"player": "Ann", "text": "well played"},
    ev.SeatAccepted: {"player": "Ann"},
    ev.SeatTaken: {"player": "Zed"},
    ev.GameCancelled: {"by": "Ann", "reason": "declined", "seed": "42", "seed_salt": "ab"},
}


def test_each_maker_builds_what_the_validating_constructor_builds() -> None:
    from_outside = {ev.GameCreated, ev.MoveSigned}  # the creator's and a player's input: validated
    assert set(speed_tricks.MADE) == set(SAMPLES) == event_classes() - from_outside
    for cls, data in SAMPLES.items():
        built = speed_tricks.MADE[cls](**data)
        assert type(built) is cls
        assert built == cls(**data)
        assert shape(built.__dict__) == shape(cls(**data).__dict__)
        assert_as_validated(built)
        assert json.loads(built.model_dump_json())["type"] == cls.__name__


def test_model_construct_the_public_fallback_of_the_slot_writes_builds_the_same_events() -> None:
    """speed_tricks.SLOT_WRITES off (SCAT_PUBLIC_API_ONLY=slots): pydantic's own constructor, same events."""
    for cls, data in SAMPLES.items():
        in_slots = speed_tricks.made_in_slots(cls, dict(speed_tricks.MADE[cls](**data).__dict__))
        constructed = speed_tricks.made_constructed(cls, dict(in_slots.__dict__))
        assert constructed == in_slots == cls(**data)
        assert constructed.model_fields_set == in_slots.model_fields_set == set(cls.model_fields)
        assert shape(constructed.__dict__) == shape(in_slots.__dict__)
        assert_as_validated(constructed)
        assert constructed.model_dump_json() == in_slots.model_dump_json()


def test_a_made_event_copies_like_a_validated_one_and_stays_frozen() -> None:
    drawn = speed_tricks.card_drawn("Ann", "stock", "AS")
    hidden = drawn.model_copy(update={"card": "??"})  # as views.redact does
    assert (hidden.card, drawn.card) == ("??", "AS")
    assert drawn.model_fields_set == set(ev.CardDrawn.model_fields)  # the copy's update did not leak back
    try:
        drawn.card = "KS"  # type: ignore[misc]
    except Exception as error:  # pydantic's ValidationError for a frozen model
        assert "frozen" in str(error)
    else:
        raise AssertionError("a made event must be frozen")
    assert hash(drawn) == hash(ev.CardDrawn(player="Ann", source="stock", card="AS"))

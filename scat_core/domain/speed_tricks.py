"""The two places the rules' hot path reaches past a library's public API, each behind one switch,
and what they build.

- **pydantic slots**: decide builds its events without validation (`made`, below) by writing
  BaseModel's four instance slots, skipping validation and `model_construct`'s bookkeeping.
  Validation is for data from outside (stored rows, imports: `events.from_record`); decide's
  events come from a valid state and inputs it has checked, so validating them again is pure
  cost (it was a fifth of a draw). Each builder returns exactly the model validation would
  (every field in order and counted as set, no extras, no private attributes).
- **frozen dataclass writes** (`evolve.py`, `GameState.evolved`, `stats.changed`,
  `snapshot.decode`): a new, not yet shared state is filled by writing its instance
  `__dict__`, and evolve applies an event to that dict in place.

Each is taken only while the condition it was written for holds (checked once, at import)
and `SCAT_PUBLIC_API_ONLY` does not name it (`slots`, `dict`, or `1` for both); otherwise
the public API does the same work, slower: `model_construct`, `copy.copy`,
`object.__setattr__` (the dataclasses documentation's own way to set a frozen field) and
`dataclasses.replace`. tests/domain/test_speed_tricks.py and test_unvalidated_events.py hold
both paths to the same results, pinned to the library versions the tricks were written for;
tests/benchmarks/bench_domain.py prints what each trick earns.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Iterator, MutableMapping
from typing import Any, Literal, TypeVar

import pydantic
from pydantic import BaseModel

from . import events as ev

T = TypeVar("T")

#: The tricks turned off by SCAT_PUBLIC_API_ONLY: "slots", "dict", or "1" for both (to compare speeds).
TURNED_OFF = {part.strip() for part in os.environ.get("SCAT_PUBLIC_API_ONLY", "").split(",")} - {"", "0"}
#: The pydantic releases the slot writes were written and tested for (pyproject's range).
PYDANTIC_TESTED = (2,)
_PYDANTIC_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


def pydantic_slots_hold() -> bool:
    """Whether BaseModel still keeps an instance's state in the four slots the builders below write."""
    major = int(pydantic.VERSION.split(".")[0])
    slots = pydantic.BaseModel.__dict__
    return major in PYDANTIC_TESTED and all(hasattr(slots.get(name), "__set__") for name in _PYDANTIC_SLOTS)


@dataclasses.dataclass(frozen=True)
class _Probe:
    """A frozen dataclass like GameState, to test the instance-dict writes on."""

    value: int = 0


def dict_writes_hold() -> bool:
    """Whether a frozen dataclass's fields live in its instance dict, read back by attribute access."""
    probe = object.__new__(_Probe)
    setter = getattr(type(probe).__dict__.get("__dict__"), "__set__", None)
    if setter is None or hasattr(_Probe, "__slots__"):
        return False
    setter(probe, {"value": 1})
    probe.__dict__["value"] = 2
    return probe.value == 2 and probe == _Probe(2)


#: Whether the builders below write pydantic's slots (else `model_construct`).
SLOT_WRITES = not TURNED_OFF & {"1", "slots"} and pydantic_slots_hold()
#: Whether new states are filled through their instance dict (else the public dataclass API).
DICT_WRITES = not TURNED_OFF & {"1", "dict"} and dict_writes_hold()


class _Fields(MutableMapping[str, Any]):
    """A frozen dataclass's fields as a dict whose writes go through `object.__setattr__`."""

    __slots__ = ("_of",)

    def __init__(self, of: object) -> None:
        self._of = of

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self._of, name)
        except AttributeError:
            raise KeyError(name) from None

    def __setitem__(self, name: str, value: Any) -> None:
        object.__setattr__(self._of, name, value)

    def __delitem__(self, name: str) -> None:
        raise TypeError("a state's field cannot be removed")

    def __iter__(self) -> Iterator[str]:
        return iter(field.name for field in dataclasses.fields(self._of))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(dataclasses.fields(self._of))  # type: ignore[arg-type]


_new = object.__new__
_DICT_SETTERS: dict[type, Any] = {}


def _set_dict(value: object, fields: dict[str, Any]) -> None:
    """Replace the instance dict of a fresh `value` (past its frozen `__setattr__`)."""
    setter = _DICT_SETTERS.get(type(value))
    if setter is None:
        owner = next(cls for cls in type(value).__mro__ if "__dict__" in cls.__dict__)
        setter = _DICT_SETTERS[type(value)] = owner.__dict__["__dict__"].__set__
    setter(value, fields)


def _fresh_copy_fast(value: T) -> T:
    new = _new(type(value))
    _set_dict(new, value.__dict__.copy())
    return new


def _replaced_fast(value: T, changes: dict[str, Any]) -> T:
    new = _new(type(value))
    fields = value.__dict__.copy()
    fields.update(changes)
    _set_dict(new, fields)
    return new


def _built_fast(cls: type[T], values: dict[str, Any]) -> T:
    new = _new(cls)
    _set_dict(new, values)
    return new


def fresh_copy(value: T) -> T:
    """A new frozen dataclass equal to `value`, for `writable_fields` to change before anyone holds it."""
    return _fresh_copy_fast(value) if DICT_WRITES else copy.copy(value)


def writable_fields(value: object) -> MutableMapping[str, Any]:
    """The fields of a fresh copy as a dict: a write is seen at once by attribute reads."""
    return value.__dict__ if DICT_WRITES else _Fields(value)


def replaced(value: T, changes: dict[str, Any]) -> T:
    """A copy of the frozen dataclass `value` with `changes` (a fast `dataclasses.replace`)."""
    return _replaced_fast(value, changes) if DICT_WRITES else dataclasses.replace(value, **changes)  # type: ignore[type-var]


def built(cls: type[T], values: dict[str, Any]) -> T:
    """An instance of the frozen dataclass `cls` holding exactly `values` (every field, checked before)."""
    return _built_fast(cls, values) if DICT_WRITES else cls(**values)


E = TypeVar("E", bound=BaseModel)

# BaseModel's four slots, set through their descriptors (a third cheaper than object.__setattr__);
# looked up only where speed_tricks found them.
_SLOTS: dict[str, Any] = dict(BaseModel.__dict__) if SLOT_WRITES else {}


#: Each event class's field names: the fields set of every event made here (all of them, as for
#: an event read back from its record). One set per class, shared by its events: pydantic never
#: changes a frozen model's set in place (`model_copy` copies it before adding the updated names).
_ALL_SET: dict[type[BaseModel], set[str]] = {}


def made_in_slots(cls: type[E], fields: dict[str, Any]) -> E:
    event = _new(cls)
    _set_model_dict(event, fields)
    _set_fields_set(event, _ALL_SET[cls])
    _set_extra(event, None)
    _set_private(event, None)
    return event


if SLOT_WRITES:
    _set_model_dict = _SLOTS["__dict__"].__set__
    _set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
    _set_extra = _SLOTS["__pydantic_extra__"].__set__
    _set_private = _SLOTS["__pydantic_private__"].__set__


def made_constructed(cls: type[E], fields: dict[str, Any]) -> E:
    return cls.model_construct(_fields_set=_ALL_SET[cls], **fields)


#: How decide's events are built: BaseModel's slots written, or pydantic's public `model_construct`.
_made = made_in_slots if SLOT_WRITES else made_constructed


def hand_dealt(hand_number: int, dealer: str, deck: tuple[str, ...], stacked: bool = False) -> ev.HandDealt:
    """HandDealt, unvalidated (decide's own deal)."""
    return _made(ev.HandDealt, {"type": "HandDealt", "schema_version": 1, "hand_number": hand_number,
                                "dealer": dealer, "deck": deck, "stacked": stacked})


def hand_viewed(player: str) -> ev.HandViewed:
    """HandViewed, unvalidated."""
    return _made(ev.HandViewed, {"type": "HandViewed", "schema_version": 1, "player": player})


def stock_reshuffled(stock: tuple[str, ...]) -> ev.StockReshuffled:
    """StockReshuffled, unvalidated."""
    return _made(ev.StockReshuffled, {"type": "StockReshuffled", "schema_version": 1, "stock": stock})


def card_drawn(player: str, source: Literal["stock", "discard"], card: str) -> ev.CardDrawn:
    """CardDrawn, unvalidated."""
    return _made(ev.CardDrawn, {"type": "CardDrawn", "schema_version": 1, "player": player, "source": source,
                                "card": card})


def card_discarded(player: str, card: str) -> ev.CardDiscarded:
    """CardDiscarded, unvalidated."""
    return _made(ev.CardDiscarded, {"type": "CardDiscarded", "schema_version": 1, "player": player, "card": card})


def knocked(player: str) -> ev.Knocked:
    """Knocked, unvalidated."""
    return _made(ev.Knocked, {"type": "Knocked", "schema_version": 1, "player": player})


def thirty_one_declared(player: str, hand: tuple[str, ...]) -> ev.ThirtyOneDeclared:
    """ThirtyOneDeclared, unvalidated."""
    return _made(ev.ThirtyOneDeclared, {"type": "ThirtyOneDeclared", "schema_version": 1, "player": player,
                                        "hand": hand})


def throw_down_called(player: str) -> ev.ThrowDownCalled:
    """ThrowDownCalled, unvalidated."""
    return _made(ev.ThrowDownCalled, {"type": "ThrowDownCalled", "schema_version": 1, "player": player})


def stock_ran_out() -> ev.StockRanOut:
    """StockRanOut, unvalidated (R17b)."""
    return _made(ev.StockRanOut, {"type": "StockRanOut", "schema_version": 1})


def showdown_held(caller: str | None, hands: dict[str, tuple[str, ...]], values: dict[str, int],
                  lives_lost: dict[str, int]) -> ev.ShowdownHeld:
    """ShowdownHeld, unvalidated."""
    return _made(ev.ShowdownHeld, {"type": "ShowdownHeld", "schema_version": 1, "caller": caller, "hands": hands,
                                   "values": values, "lives_lost": lives_lost})


def resigned(player: str) -> ev.Resigned:
    """Resigned, unvalidated."""
    return _made(ev.Resigned, {"type": "Resigned", "schema_version": 1, "player": player, "cause": None,
                               "claimed_by": None})


def timed_out(player: str, claimed_by: str | None) -> ev.Resigned:
    """Resigned for being out of time (R28), unvalidated."""
    return _made(ev.Resigned, {"type": "Resigned", "schema_version": 1, "player": player, "cause": "move time",
                               "claimed_by": claimed_by})


def penny_paid(player: str) -> ev.PennyPaid:
    """PennyPaid, unvalidated."""
    return _made(ev.PennyPaid, {"type": "PennyPaid", "schema_version": 1, "player": player})


def player_eliminated(player: str) -> ev.PlayerEliminated:
    """PlayerEliminated, unvalidated."""
    return _made(ev.PlayerEliminated, {"type": "PlayerEliminated", "schema_version": 1, "player": player})


def game_won(winner: str, kitty: int, seed: str, seed_salt: str) -> ev.GameWon:
    """GameWon, unvalidated."""
    return _made(ev.GameWon, {"type": "GameWon", "schema_version": 1, "winner": winner, "kitty": kitty,
                              "seed": seed, "seed_salt": seed_salt})


def game_abandoned(by: str | None, seed: str, seed_salt: str) -> ev.GameAbandoned:
    """GameAbandoned, unvalidated."""
    return _made(ev.GameAbandoned, {"type": "GameAbandoned", "schema_version": 1, "by": by, "seed": seed,
                                    "seed_salt": seed_salt})


def message_said(player: str, text: str) -> ev.MessageSaid:
    """MessageSaid, unvalidated."""
    return _made(ev.MessageSaid, {"type": "MessageSaid", "schema_version": 1, "player": player, "text": text})


def seat_accepted(player: str) -> ev.SeatAccepted:
    """SeatAccepted, unvalidated."""
    return _made(ev.SeatAccepted, {"type": "SeatAccepted", "schema_version": 1, "player": player})


def seat_taken(player: str) -> ev.SeatTaken:
    """SeatTaken, unvalidated."""
    return _made(ev.SeatTaken, {"type": "SeatTaken", "schema_version": 1, "player": player})


def game_cancelled(by: str | None, reason: Literal["declined", "withdrawn", "expired"], seed: str,
                   seed_salt: str) -> ev.GameCancelled:
    """GameCancelled, unvalidated."""
    return _made(ev.GameCancelled, {"type": "GameCancelled", "schema_version": 1, "by": by, "reason": reason,
                                    "seed": seed, "seed_salt": seed_salt})


#: The event types decide makes here; GameCreated (and a deck given at creation) carry the
#: creator's input and are validated, as MoveSigned (a player's signature, made by the shell) is.
MADE: dict[type[BaseModel], Any] = {
    ev.HandDealt: hand_dealt,
    ev.HandViewed: hand_viewed,
    ev.StockReshuffled: stock_reshuffled,
    ev.CardDrawn: card_drawn,
    ev.CardDiscarded: card_discarded,
    ev.Knocked: knocked,
    ev.ThirtyOneDeclared: thirty_one_declared,
    ev.ThrowDownCalled: throw_down_called,
    ev.StockRanOut: stock_ran_out,
    ev.ShowdownHeld: showdown_held,
    ev.Resigned: resigned,
    ev.PennyPaid: penny_paid,
    ev.PlayerEliminated: player_eliminated,
    ev.GameWon: game_won,
    ev.GameAbandoned: game_abandoned,
    ev.MessageSaid: message_said,
    ev.SeatAccepted: seat_accepted,
    ev.SeatTaken: seat_taken,
    ev.GameCancelled: game_cancelled,
}

_ALL_SET.update((cls, set(cls.model_fields)) for cls in MADE)

"""Events as decide makes them: the same pydantic models, built without validation.

Validation is for data from outside (stored rows, imports: `events.from_record`). The
events here are built by decide from a state that is valid and from inputs it has checked,
so validating them again is pure cost on the rules' hot path (it was a fifth of a draw).
Each function returns exactly the model that validation would: every field in order, every
field counted as set (as for an event read back from its record), no extras, no private
attributes. tests/domain/test_unvalidated_events.py checks every event of random games against
`model_validate` of its own dump, and each function here against the validating constructor.
Writing BaseModel's slots is a speed trick behind one switch (`speed_tricks.SLOT_WRITES`):
where it does not hold, `model_construct` builds the same event.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from . import events as ev
from .speed_tricks import SLOT_WRITES

E = TypeVar("E", bound=BaseModel)

_new = object.__new__
# BaseModel's four slots, set through their descriptors (a third cheaper than object.__setattr__);
# looked up only where speed_tricks found them.
_SLOTS: dict[str, Any] = dict(BaseModel.__dict__) if SLOT_WRITES else {}


#: Each event class's field names: the fields set of every event made here (all of them, as for
#: an event read back from its record). One set per class, shared by its events: pydantic never
#: changes a frozen model's set in place (`model_copy` copies it before adding the updated names).
_ALL_SET: dict[type[BaseModel], set[str]] = {}


def _made_in_slots(cls: type[E], fields: dict[str, Any]) -> E:
    event = _new(cls)
    _set_dict(event, fields)
    _set_fields_set(event, _ALL_SET[cls])
    _set_extra(event, None)
    _set_private(event, None)
    return event


if SLOT_WRITES:
    _set_dict = _SLOTS["__dict__"].__set__
    _set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
    _set_extra = _SLOTS["__pydantic_extra__"].__set__
    _set_private = _SLOTS["__pydantic_private__"].__set__


def _made_constructed(cls: type[E], fields: dict[str, Any]) -> E:
    return cls.model_construct(_fields_set=_ALL_SET[cls], **fields)


#: How decide's events are built: BaseModel's slots written, or pydantic's public `model_construct`.
_made = _made_in_slots if SLOT_WRITES else _made_constructed


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

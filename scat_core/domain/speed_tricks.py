"""The two places the rules' hot path reaches past a library's public API, each behind one switch.

- **pydantic slots** (`unvalidated.py`): decide builds its events by writing BaseModel's four
  instance slots, skipping validation and `model_construct`'s bookkeeping.
- **frozen dataclass writes** (`evolve.py`, `GameState.evolved`, `stats.changed`,
  `snapshot.decode`): a new, not yet shared state is filled by writing its instance
  `__dict__`, and evolve applies an event to that dict in place.

Each is taken only while the condition it was written for holds (checked once, at import)
and `SCAT_PUBLIC_API_ONLY` does not name it (`slots`, `dict`, or `1` for both); otherwise
the public API does the same work, slower: `model_construct`, `copy.copy`,
`object.__setattr__` (the dataclasses documentation's own way to set a frozen field) and
`dataclasses.replace`. tests/domain/test_speed_tricks.py
holds both paths to the same results, pinned to the library versions the tricks were
written for; tests/benchmarks/bench_domain.py prints what each trick earns.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Iterator, MutableMapping
from typing import Any, TypeVar

import pydantic

T = TypeVar("T")

#: The tricks turned off by SCAT_PUBLIC_API_ONLY: "slots", "dict", or "1" for both (to compare speeds).
TURNED_OFF = {part.strip() for part in os.environ.get("SCAT_PUBLIC_API_ONLY", "").split(",")} - {"", "0"}
#: The pydantic releases the slot writes were written and tested for (pyproject's range).
PYDANTIC_TESTED = (2,)
_PYDANTIC_SLOTS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


def pydantic_slots_hold() -> bool:
    """Whether BaseModel still keeps an instance's state in the four slots `unvalidated.py` writes."""
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


#: Whether unvalidated.py writes pydantic's slots (else `model_construct`).
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

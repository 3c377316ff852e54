"""Snapshots: a game's folded state as exact JSON, tagged with what it was folded by.

A snapshot is only a cache of `fold(events)`. `encode` writes every field of GameState with
its exact type (a tuple, a frozenset, a dict, a Player, the options), so `decode(encode(s))
== s` by construction, and an unknown type is refused at `encode` rather than guessed. Every
JSON object in the encoding is a one-key tag ("t" tuple, "s" frozenset, "d" dict as pairs,
"p" Player, "o" options, "g" the state), so no player name can be mistaken for a tag.

`SNAPSHOT_TAG` is (STATE_SCHEMA_VERSION, RULES_VERSION): RULES_VERSION is a digest of the
source of this package (the rules, the events, the state and their upcasters), so a snapshot
written by any other code than the running one is never used; it is rebuilt from the events.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from pathlib import Path
from typing import Any

from .options import GameOptions
from .speed_tricks import built
from .state import GameState, Player

STATE_SCHEMA_VERSION = 1
_FIELDS = tuple(f.name for f in dataclasses.fields(GameState))
_player_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(Player)))


def rules_version_of(folder: Path = Path(__file__).parent) -> str:
    """A digest of every module of the domain package: any change to the rules changes it."""
    digest = hashlib.sha256()
    try:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:  # sources unreadable: a per-process value, so no snapshot is ever reused
        return "unreadable-" + hashlib.sha256(repr(id(digest)).encode()).hexdigest()[:40]
    return digest.hexdigest()


RULES_VERSION = rules_version_of()
SNAPSHOT_TAG = (STATE_SCHEMA_VERSION, RULES_VERSION)


_NATIVE = frozenset((str, int, bool, type(None)))
_OPTIONS: dict[GameOptions, Any] = {}  # options are few and frozen: each encoded once


def _enc(value: Any) -> Any:
    kind = type(value)
    if kind in _NATIVE:
        return value
    if kind is tuple:
        return {"t": [item if type(item) is str else _enc(item) for item in value]}
    if kind is frozenset:
        return {"s": [_enc(item) for item in sorted(value)]}
    if kind is dict:
        return {"d": [[_enc(k), _enc(v)] for k, v in value.items()]}
    if kind is Player:
        return {"p": [v if type(v) in _NATIVE else _enc(v) for v in _player_fields(value)]}
    if kind is GameOptions:
        encoded = _OPTIONS.get(value)
        if encoded is None:
            encoded = _OPTIONS[value] = {"o": [[k, _enc(v)] for k, v in value.model_dump().items()]}
        return encoded
    raise TypeError(f"a snapshot cannot hold a {kind.__name__}")


def encode(state: GameState) -> str:
    """The exact JSON of `state` (TypeError for a value of a type it does not know)."""
    return json.dumps({"g": [[name, _enc(state.__dict__[name])] for name in _FIELDS]}, separators=(",", ":"))


_DECODED_OPTIONS: dict[tuple[tuple[Any, ...], ...], GameOptions] = {}


def _hook(obj: dict[str, Any]) -> Any:
    if len(obj) != 1:
        raise ValueError("not a snapshot")
    (tag, body), = obj.items()
    if tag == "t":
        return tuple(body)
    if tag == "s":
        return frozenset(body)
    if tag == "d":
        return {k: v for k, v in body}
    if tag == "p":
        return Player(*body)
    if tag == "o":
        key = tuple(tuple(pair) for pair in body)
        options = _DECODED_OPTIONS.get(key)
        if options is None:
            options = _DECODED_OPTIONS[key] = GameOptions.model_validate(dict(body))
        return options
    if tag == "g":
        values = dict(body)
        if tuple(values) != _FIELDS:
            raise ValueError("a snapshot of other fields")
        return built(GameState, values)
    raise ValueError(f"unknown snapshot tag {tag!r}")


def decode(text: str) -> GameState:
    """The state `encode` wrote; ValueError (or TypeError) if `text` is not such a snapshot."""
    state = json.loads(text, object_hook=_hook)
    if type(state) is not GameState:
        raise ValueError("not a snapshot of a game")
    return state

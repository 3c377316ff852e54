"""#14: an import is a trust boundary. Forged histories with a recomputed chain are refused.

Each test crafts a history the way an attacker would: take a real game, change a field,
recompute every hash, and import it (on SQLite and PostgreSQL).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.errors import BadInput, RuleViolation
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from scat_core.service.exports import read_export, to_json, to_jsonl
from scat_core.service.games import GameService

SEATS = [ev.PlayerSeat(name="ann", is_bot=True), ev.PlayerSeat(name="bob", is_bot=True)]


def finished_records(service: GameService) -> list[dict[str, Any]]:
    """The records of a bots-only game, over as soon as it is created."""
    created = service.playing.create_game(SEATS, seed=11, options=GameOptions(lives=1))
    assert created.state.status == "finished"
    with service.store.read() as tx:
        return tx.load_raw(created.game_id)


def rechain(records: list[dict[str, Any]], edit: Callable[[dict[str, Any]], None]) -> list[dict[str, Any]]:
    """`records` with `edit` applied to each, every hash recomputed: a forgery the chain accepts."""
    forged, previous = [], GENESIS_HASH
    for record in records:
        copy = json.loads(json.dumps(record))
        edit(copy)
        copy["prev_hash"] = previous
        copy["hash"] = previous = chain_hash(previous, copy)
        forged.append(copy)
    return forged


def with_game_id(game_id: str) -> Callable[[dict[str, Any]], None]:
    def edit(record: dict[str, Any]) -> None:
        record["game_id"] = game_id
        if record["type"] == "GameCreated":
            record["data"]["game_id"] = game_id
    return edit


@pytest.mark.parametrize("game_id", ["../x", "/tmp/abs", "", "a\x00b", "x" * 5000, "..", "0123456789\x1b[2J"])
def test_import_refuses_a_game_id_scat_does_not_make(service: GameService, game_id: str) -> None:
    """Any id passed once the chain was recomputed; now only the form `new` makes."""
    forged = rechain(finished_records(service), with_game_id(game_id))
    target = service
    with pytest.raises(RuleViolation, match="not a game id scat makes"):
        target.import_records(forged)
    assert game_id not in target.archive.game_ids()


def forge_game(game_id: str, seed: str, salt: str) -> list[dict[str, Any]]:
    """A whole bots-only game played by the rules from any seed and salt, as a forger would."""
    chance = SeededChance(seed, salt)
    command = CreateGame(game_id=game_id, players=tuple(SEATS), options=GameOptions(lives=1))
    events, state = decide_and_evolve(GameState(), command, chance)
    while (move := next_bot_command(state)) is not None:
        more, state = decide_and_evolve(state, move, chance)
        events += more
    assert state.status == "finished"
    envelopes = [{"game_id": game_id, "seq": seq, "type": event.type, "schema_version": event.schema_version,
                  "recorded_at": "2026-01-01T00:00:00.000000Z", "data": ev.to_record(event)[2]}
                 for seq, event in enumerate(events, start=1)]
    return rechain(envelopes, lambda record: None)


def test_import_refuses_a_revealed_seed_holding_an_escape_sequence(service: GameService) -> None:
    """The revealed seed reached the terminal raw; now it must be a decimal integer."""
    forged = forge_game("abcdef0123", "\x1b]0;pwned\x07\x1b[2J", "0" * 32)
    target = service
    with pytest.raises(RuleViolation, match="not a decimal integer"):
        target.import_records(forged)
    assert "abcdef0123" not in target.archive.game_ids()
    assert target.import_records(forge_game("abcdef0123", "271828", "0" * 32)).ok  # the same, honest


def test_import_refuses_a_player_name_new_would_refuse(service: GameService) -> None:
    """#14 items 1, 2: a name with a newline forging a `scat:` line is refused as `new` refuses it."""
    def edit(record: dict[str, Any]) -> None:
        for key in ("players",):
            if key in record["data"]:
                record["data"][key][0]["name"] = "ann\nscat: error"
        for key in ("dealer", "player", "winner"):
            if record["data"].get(key) == "ann":
                record["data"][key] = "ann\nscat: error"

    forged = rechain(finished_records(service), edit)
    with pytest.raises(RuleViolation, match="not a usable player name"):
        service.import_records(forged)


def test_a_jsonl_import_stops_at_the_first_bad_event_without_reading_on(service: GameService) -> None:
    """A 276 MB file took 2.1 GB before being refused at event 1; now line by line."""
    records = finished_records(service)
    bad = dict(records[0], hash="0" * 64)

    class Endless(io.RawIOBase):
        """A first bad line, then a stream that fails the test if it is read much further."""

        def __init__(self) -> None:
            self.served = 0
            self.head = (json.dumps(bad) + "\n").encode()

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            chunk = self.head if self.served == 0 else b"{}\n" * 4096
            self.served += 1
            assert self.served < 10, "the import read on past the first bad event"
            buffer[: len(chunk)] = chunk
            return len(chunk)

    with pytest.raises(RuleViolation, match="at event 1"):
        read_export(io.BufferedReader(Endless(), buffer_size=1 << 16), "endless")


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_an_import_larger_than_the_limit_is_refused(service: GameService, fmt: str) -> None:
    """Imports are bounded in size."""
    records = finished_records(service)
    text = to_jsonl(records) if fmt == "jsonl" else to_json(records)
    assert read_export(io.BytesIO(text.encode()), "ok") == records
    with pytest.raises(BadInput, match="larger than"):
        read_export(io.BytesIO(text.encode() + b" " * 100), "big", limit=len(text) + 10)


def test_json_nested_100000_deep_is_bad_input_not_a_recursion_error() -> None:
    """`[[[...]]]` 100,000 deep raised RecursionError; now exit 2 (BadInput)."""
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(BadInput, match="deeper"):
        read_export(io.BytesIO(deep.encode()), "deep")
    line = '{"seq": 1, "hash": "x", "data": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    with pytest.raises(BadInput):
        read_export(io.BytesIO(line.encode()), "deep")

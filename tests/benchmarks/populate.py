"""Filling benchmark databases: real bot games cloned under new ids, through the store's bulk path.

A few games are played through the service and exported; each clone is the same history
under another game id (re-keyed, and its hash chain recomputed, so every clone audits),
appended with its games row, snapshot (or none) and signed head by `append_many`, many
games a transaction. Shared by bench_store, bench_hotpath and bench_stats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.records.games import GameSummary
from scat_core.records.stored_log import GENESIS_HASH, canonical_json
from scat_core.service import GameService
from scat_core.service.loading import snapshot_json, summarize

Record = dict[str, Any]
_PLACEHOLDER = "@@game@@"
_TIME = "@@time@@"


@dataclass(frozen=True)
class Template:
    """One played game, ready to be cloned: per record its envelope, its data as canonical JSON
    and its hashed body, the game id replaced by a placeholder (a clone is then a text
    replace and one SHA-256 per event); its summary and final state."""

    records: list[Record]
    prepared: list[tuple[Record, str, bytes]]
    summary: GameSummary
    state: GameState


def template(records: Sequence[Record], state: GameState) -> Template:
    """A game's exported records and final state, prepared for cloning."""
    prepared = []
    for record in records:
        data = record["data"]
        if record["type"] == "GameCreated":
            data = {**data, "game_id": _PLACEHOLDER}
        envelope = {"game_id": _PLACEHOLDER, "seq": record["seq"], "type": record["type"],
                    "schema_version": record["schema_version"], "recorded_at": _TIME, "data": data}
        prepared.append(({**envelope, "recorded_at": record["recorded_at"]}, canonical_json(data).decode("utf-8"),
                         canonical_json(envelope)))
    return Template(list(records), prepared, summarize(state, new=True), state)


def play_bot_games(service: GameService, count: int, bots: int = 3, lives: int = 3, seed: int = 0,
                   names: Sequence[str] | None = None) -> list[Template]:
    """`count` real bot games played through the service (seeds `seed`, `seed + 1`, ...), as templates."""
    seats = [PlayerSeat(name=name, is_bot=True) for name in (names or [f"bot{i}" for i in range(bots)])]
    played = []
    for number in range(count):
        outcome = service.playing.create_game(seats, options=GameOptions(lives=lives), seed=seed + number)
        played.append(template(service.archive.export_records(outcome.game_id), outcome.state))
    return played


def clone_id(number: int, space: int = 0) -> str:
    """The id of clone `number` in id space `space` (0-255): 10 lowercase hex digits, as scat makes them."""
    return f"{space:02x}{number:08x}"


def clone(game: Template, game_id: str, recorded_at: str | None = None) -> list[Record]:
    """The game's records under `game_id`, its hash chain recomputed (as `chain_hash`), data as
    its canonical JSON text (as stored; `append_many` takes it so); every event recorded at
    `recorded_at` when given (a game of its own time: the games list orders by it), else when
    the played game's was."""
    rows, previous, key = [], GENESIS_HASH, game_id.encode("ascii")
    for envelope, data, body in game.prepared:
        moment = recorded_at or str(envelope["recorded_at"])
        hashed = body.replace(_PLACEHOLDER.encode(), key).replace(_TIME.encode(), moment.encode("ascii"))
        digest = hashlib.sha256(previous.encode("ascii") + hashed).hexdigest()
        rows.append({"game_id": game_id, "seq": envelope["seq"], "type": envelope["type"],
                     "schema_version": envelope["schema_version"], "recorded_at": moment,
                     "data": data.replace(_PLACEHOLDER, game_id), "prev_hash": previous, "hash": digest})
        previous = digest
    return rows


def clones(games: Sequence[Template], ids: Iterable[str], snapshots: bool = False,
           times: Iterable[str] | None = None) -> Iterator[tuple[list[Record], GameSummary, str | None]]:
    """`append_many`'s entries: game `ids[i]` a clone of `games[i % len(games)]` (with its snapshot),
    recorded at `times[i]` when given."""
    moments = iter(times) if times is not None else None
    for index, game_id in enumerate(ids):
        game = games[index % len(games)]
        snapshot = snapshot_json(game.state.evolved({"game_id": game_id})) if snapshots else None
        yield clone(game, game_id, next(moments) if moments is not None else None), game.summary, snapshot


def bulk_append(service: GameService, entries: Iterable[tuple[list[Record], GameSummary, str | None]],
                per_transaction: int = 500) -> int:
    """Append `entries` through the store's bulk path, `per_transaction` games a transaction; the games added."""
    appended = 0
    batch: list[tuple[list[Record], GameSummary, str | None]] = []

    def flush() -> None:
        nonlocal appended
        with service.store.transaction() as tx:
            tx.append_many(batch)
        appended += len(batch)
        batch.clear()

    for entry in entries:
        batch.append(entry)
        if len(batch) >= per_transaction:
            flush()
    if batch:
        flush()
    return appended

"""The statistics of the in-memory store: the stats projection's fold over the events it has not seen."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence

from scat_core.domain.stats import HANDLED_TYPES, GameLine
from scat_core.records.stats import fold_line
from scat_core.records.stored_log import StoredEvent


def fold_into(lines: MutableMapping[str, GameLine], events: Mapping[str, Sequence[Sequence[object]]],
              unseen: Iterable[tuple[str, int]]) -> int:
    """Fold the `unseen` events (game_id, seq; in commit order) of the projection's types into `lines`."""
    folded = 0
    for game_id, seq in unseen:
        row = events[game_id][seq - 1]
        if row[2] not in HANDLED_TYPES:
            continue
        line = lines.get(game_id) or GameLine(game_id)
        if seq <= line.last_seq:
            continue  # folded in already: an event is never counted twice
        stored = StoredEvent.from_row(row)
        lines[game_id] = fold_line(line, stored.event, seq, stored.recorded_at)
        folded += 1
    return folded

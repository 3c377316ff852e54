"""Whole-database consistency checks shared by the reliability tests.

`structural_problems` looks at every table with plain SQL (cheap, all games at once);
`audit_problems` replays and verifies chosen games through `GameService.audit`.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Engine, text

from scat_core.records.chain import verify_chain
from scat_core.service import GameService

#: Event types that only a player's command produces, one per command (a draw may be
#: preceded by a StockReshuffled, a discard or a declaration followed by consequences).
COMMAND_EVENT_TYPES = frozenset(
    {"CardDrawn", "CardDiscarded", "Knocked", "ThirtyOneDeclared", "ThrowDownCalled",
     "HandViewed"}
)


def structural_problems(engine: Engine, seeds: bool = True) -> list[str]:
    """Gaps, duplicates, read-model heads that disagree with the log, orphan rows.

    With `seeds`, every game is one the service created: a running game keeps its seed, a
    finished one has forgotten it (store-level tests append bare events and pass False).
    All is read in one snapshot: a killed client's last statement may still commit on the
    server meanwhile, and the log and the games row must not be read on either side of it.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        spans = {
            str(row[0]): (int(row[1]), int(row[2]), int(row[3]))
            for row in conn.execute(
                text("SELECT game_id, count(*), min(seq), max(seq) FROM events GROUP BY game_id")
            )
        }
        games = {
            str(row[0]): (int(row[1]), str(row[2]), str(row[3]))
            for row in conn.execute(text("SELECT game_id, head_seq, head_hash, status FROM games"))
        }
        head_hashes = {
            str(row[0]): str(row[1])
            for row in conn.execute(
                text(
                    "SELECT g.game_id, e.hash FROM games g JOIN events e "
                    "ON e.game_id = g.game_id AND e.seq = g.head_seq"
                )
            )
        }
        kept_seeds = {str(r[0]) for r in conn.execute(text("SELECT game_id FROM game_secrets"))}
        token_games = {str(r[0]) for r in conn.execute(text("SELECT game_id FROM player_tokens"))}
        conn.rollback()

    problems: list[str] = []
    problems += [f"game {g} has events but no read-model row" for g in spans.keys() - games.keys()]
    problems += [f"game {g} has a read-model row but no events" for g in games.keys() - spans.keys()]
    for game_id, (count, first, last) in sorted(spans.items()):
        if (first, last) != (1, count):
            problems.append(f"game {game_id}: {count} events numbered {first}..{last}")
        if game_id not in games:
            continue
        head_seq, head_hash, status = games[game_id]
        if head_seq != last:
            problems.append(f"game {game_id}: read model head {head_seq}, log head {last}")
        elif head_hashes.get(game_id) != head_hash:
            problems.append(f"game {game_id}: read model head hash differs from event {last}")
        if seeds and status == "active" and game_id not in kept_seeds:
            problems.append(f"game {game_id} is running but its seed is gone")
        if seeds and status == "finished" and game_id in kept_seeds:
            problems.append(f"game {game_id} is finished but its seed is still kept")
    problems += [f"a seed is kept for unknown game {g}" for g in kept_seeds - games.keys()]
    problems += [f"tokens are kept for unknown game {g}" for g in token_games - games.keys()]
    return problems


def audit_problems(service: GameService, game_ids: Iterable[str] | None = None) -> list[str]:
    """The problems `GameService.audit` (and the bare hash chain) finds in the given games."""
    problems: list[str] = []
    for game_id in service.archive.game_ids() if game_ids is None else game_ids:
        bad_seq, reason = verify_chain(service.archive.export_records(game_id, running=True))
        if bad_seq is not None:
            problems.append(f"game {game_id}: hash chain broken at {bad_seq}: {reason}")
        report = service.audit(game_id)
        if not report.ok:
            problems.append(f"game {game_id}: audit fails at {report.first_bad_seq}: "
                            + "; ".join(report.problems))
    return problems


def commands_in_log(service: GameService, game_id: str) -> int:
    """How many player commands the game's log records (see COMMAND_EVENT_TYPES)."""
    return sum(1 for e in service.reading.history(game_id) if e.type in COMMAND_EVENT_TYPES)

"""A games list is planned for the values that shape it (#42): PostgreSQL plans a statement the
driver prepared once for every execution only when that plan looks no dearer than one made for
the values given. So the list's LIMIT and status are written into the statement (a LIMIT sent
as a parameter made every public page over 200,000 games planned anew, 1.3x its cost at 1,000;
one plan for every status would serve 'pending', a handful of rows, as it serves 'finished'),
while a player's own games keep their LIMIT a parameter, so each is planned for the name given
(one plan for every name walked the whole list for a name with few games: 350 ms). The rows
listed are the same either way."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event

from scat_core.store.sql.event_store import EventStore
from tests.support.store import SUMMARY, game_created


def _statements(engine: Engine, read: Any) -> tuple[Any, list[str]]:
    ran: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        ran.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        return read(), [statement for statement in ran if "FROM games" in statement]
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def test_a_list_is_written_with_its_limit_and_status_and_a_players_own_games_keep_a_parameter(
    store: EventStore, engine: Engine,
) -> None:
    for index in range(5):
        with store.transaction() as tx:
            tx.append(f"g{index}", 0, [game_created(f"g{index}")], SUMMARY, None)
    with store.read() as tx:
        listed, (statement,) = _statements(engine, lambda: tx.list_games(status="active", limit=3))
        assert [row.game_id for row in listed] == ["g4", "g3", "g2"]
        assert "status = 'active'" in statement and "LIMIT 3" in statement, statement
        counted, (statement,) = _statements(engine, lambda: tx.count_listed(status="active", at_most=4))
        assert counted == 4 and "status = 'active'" in statement and "LIMIT 4" in statement, statement
        mine, statements = _statements(engine, lambda: tx.list_games(limit=3, first_for="ANN"))
        assert [row.game_id for row in mine] == ["g4", "g3", "g2"]  # ann sits in every one
        assert statements and not any("LIMIT 3" in statement for statement in statements), statements

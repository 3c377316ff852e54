"""The games read model for correspondence play, on every store adapter: a page of the newest
games and how many there are, the games waiting for a name (any case), and the turns out of
move time (R28), each found without reading the whole table or any event log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.games import GameSummary
from scat_core.service.ports import Store
from scat_core.store.memory import MemoryStore
from scat_core.store.sql.database import ensure_schema, make_engine
from scat_core.store.sql.event_store import EventStore


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Each adapter, empty (the databases migrated by the real Alembic scripts)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    engine = make_engine(str(request.getfixturevalue(f"{request.param}_url")))
    ensure_schema(engine)
    yield EventStore(engine)
    engine.dispose()


def at(minute: int) -> str:
    """A recorded time, `minute` minutes into a day."""
    return f"2026-12-02T{minute // 60:02d}:{minute % 60:02d}:00.000000Z"


def add(store: Store, number: int, turn: str, *, status: str = "active", deadline: str | None = None) -> str:
    """A game stored at minute `number` whose read-model row says `turn` is to act; its id."""
    game_id = f"{number:010x}"
    command = CreateGame(game_id=game_id, players=(ev.PlayerSeat(name="x", is_bot=True),
                                                   ev.PlayerSeat(name="y", is_bot=True)))
    events, _ = decide_and_evolve(GameState(), command, SeededChance(str(number), "0" * 32))
    summary = GameSummary(status=status, players=(turn, "bob"), turn=turn, move_deadline=deadline)
    with store.transaction() as tx:
        tx.append(game_id, 0, events, summary, None, None, at(number))
    return game_id


def test_a_page_is_the_newest_activity_first_and_the_count_is_of_every_game(store: Store) -> None:
    ids = [add(store, number, "ann") for number in range(1, 8)]
    with store.read() as tx:
        page = tx.list_games(limit=3)
        assert [row.game_id for row in page] == ids[::-1][:3]
        assert tx.count_listed() == 7
        assert len(tx.list_games()) == 7


def test_waiting_for_matches_the_player_to_act_casefolded_and_pages_too(store: Store) -> None:
    mine = [add(store, 1, "Straße"), add(store, 3, "straße")]
    add(store, 2, "bob")
    add(store, 4, "Straße", status="finished")
    with store.read() as tx:
        assert [row.game_id for row in tx.list_games("active", "STRASSE")] == mine[::-1]  # ß casefolds to ss
        assert [row.game_id for row in tx.list_games("active", "strasse", limit=1)] == [mine[1]]
        assert tx.count_listed("active", "STRASSE") == 2
        assert tx.count_listed(waiting_for="bob") == 1


def test_r28_the_turns_out_of_time_are_the_running_games_whose_deadline_passed_longest_first(store: Store) -> None:
    later = add(store, 1, "ann", deadline=at(30))
    sooner = add(store, 2, "bob", deadline=at(20))
    add(store, 3, "cy", deadline=at(50))  # not yet
    add(store, 4, "dan")  # no move time
    add(store, 5, "eve", status="finished", deadline=at(10))
    with store.read() as tx:
        assert tx.expired_games(at(40)) == [sooner, later]
        assert tx.expired_games(at(40), limit=1) == [sooner]
        assert tx.expired_games(at(30)) == [sooner, later]  # out of time at the deadline itself
        assert tx.expired_games(at(5)) == []


def test_games_added_whole_are_found_waiting_for_their_player_to_act(store: Store) -> None:
    game_id = add(store, 1, "Straße")
    with store.read() as tx:
        records = tx.load_raw(game_id)
    moved = [{**record, "game_id": "b000000001"} for record in records]
    with store.transaction() as tx:
        tx.append_many([(moved, GameSummary(status="active", players=("Straße", "bob"), turn="Straße"), None)])
    with store.read() as tx:
        assert {row.game_id for row in tx.list_games(waiting_for="STRASSE")} == {game_id, "b000000001"}

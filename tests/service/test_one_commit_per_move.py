"""A player's move and the bots' replies it triggers are one transaction: one commit, or nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, text

from scat_cli.wiring import open_database
from scat_core.domain.commands import Discard, Draw
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service import GameService, playing
from scat_core.service.loading import load_for_command
from tests.support.databases import migrated

#: You play first (the dealer is bob, R11); each of your discards is answered by ann, then bob.
YOU_ANN_BOB = (PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True))


def appends_per_committed_unit(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of appends of each unit of work the store committed from now on (a port-level count)."""
    committed: list[int] = []
    store: Any = service.store

    def counted(opened: Any) -> Any:
        @contextmanager
        def unit(*args: Any, **kwargs: Any) -> Iterator[Any]:
            with opened(*args, **kwargs) as tx:
                if getattr(tx, "_appends", None) is not None:  # the SQL store's command() opens transaction()
                    yield tx
                    return
                tx._appends = []
                real = tx.append
                tx.append = lambda *a, **k: tx._appends.append(1) or real(*a, **k)
                yield tx
            committed.append(len(tx._appends))
        return unit

    for name in ("command", "transaction"):
        monkeypatch.setattr(store, name, counted(getattr(store, name)))
    return committed


def discard_answered_by_both_bots(service: GameService) -> tuple[str, Any]:
    """A game where you have drawn: your discard is answered by ann's move and bob's."""
    game = service.playing.create_game(YOU_ANN_BOB, seed=11, dealer="bob").game_id
    drawn = service.playing.act(game, Draw("you", "stock")).state
    return game, drawn


def test_a_move_answered_by_two_bots_is_one_unit_of_work_with_one_append(
    any_service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, drawn = discard_answered_by_both_bots(any_service)
    units = appends_per_committed_unit(any_service, monkeypatch)

    done = any_service.playing.act(game, Discard("you", drawn.hands[0][0]))

    movers = [stored.event.player for stored in done.events if hasattr(stored.event, "player")]
    assert movers[0] == "you" and {"ann", "bob"} <= set(movers)  # both bots answered ...
    assert units == [1]  # ... in the move's one unit of work, one append
    assert [s.seq for s in done.events] == list(range(drawn.version + 1, done.state.version + 1))
    assert done.state.turn == 0 and any_service.audit(game).ok


def test_on_sqlite_a_move_answered_by_two_bots_commits_once(sqlite_url: str) -> None:
    service = open_database(migrated(sqlite_url))
    game, drawn = discard_answered_by_both_bots(service)
    commits: list[int] = []
    event.listen(service.store.engine, "commit", lambda _conn: commits.append(1))

    done = service.playing.act(game, Discard("you", drawn.hands[0][0]))

    assert len(done.events) >= 5 and commits == [1]  # your discard, ann's and bob's draw and discard
    service.store.engine.dispose()


@pytest.mark.postgres
def test_on_postgresql_a_move_and_its_bots_replies_are_written_by_one_transaction(postgres_url: str) -> None:
    service = open_database(migrated(postgres_url))
    game, drawn = discard_answered_by_both_bots(service)

    done = service.playing.act(game, Discard("you", drawn.hands[0][0]))

    with service.store.engine.connect() as conn:
        writers = conn.execute(text("SELECT DISTINCT xmin::text FROM events WHERE game_id = :g AND seq > :v"),
                               {"g": game, "v": drawn.version}).scalars().all()
    assert len(done.events) >= 5 and len(writers) == 1  # every new row inserted by the same transaction
    service.store.engine.dispose()


def test_a_conflict_in_the_moves_transaction_writes_neither_the_move_nor_the_bots_replies(
    any_service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone else moved the game between this call's load and its append: nothing of it is written."""
    game, drawn = discard_answered_by_both_bots(any_service)
    with any_service.store.read() as tx:
        stale = load_for_command(tx, game)
    any_service.playing.act(game, Discard("you", drawn.hands[0][0]))  # the other call, which won
    before = [(s.seq, s.hash) for s in any_service.reading.history(game)]
    monkeypatch.setattr(playing, "load_for_command", lambda _tx, _game: stale)

    with pytest.raises(ConcurrencyConflict):
        any_service.playing.act(game, Discard("you", drawn.hands[0][0]))  # decided on the stale state, bots included

    monkeypatch.undo()
    assert [(s.seq, s.hash) for s in any_service.reading.history(game)] == before
    assert any_service.audit(game).ok

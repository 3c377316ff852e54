"""A server's commands commit together (#42 part 1, commit_groups.py), on SQLite and PostgreSQL: a
command that arrives while another runs joins its group and runs after it in the same transaction
(in a SAVEPOINT of its own); one COMMIT makes both durable, and neither returns before it; a refused
member's writes alone are undone; a failed COMMIT, or a transaction the database ended, fails every
member and leaves nothing written."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.engine import Connection

from scat_core.records.errors import ConcurrencyConflict, StoreUnavailable
from scat_core.store.sql.commit_groups import CommitGroups
from scat_core.store.sql.event_store import EventStore, StoreTransaction
from tests.support.store import SUMMARY, a_turn, new_game

WAIT = 30.0  # seconds a thread of the test is waited for before the test fails (never reached when right)


@pytest.fixture
def grouped(engine: Engine) -> EventStore:
    """A store whose commands commit together, as `scat serve`'s, with games g1 and g2."""
    store = EventStore(engine, commit_together=True)
    new_game(store, "g1")
    new_game(store, "g2")
    return store


def _move(tx: StoreTransaction, game_id: str) -> None:
    """A lean append of one turn at the game's head, as a command makes it."""
    head = tx.head(game_id)
    assert head is not None
    tx.append(game_id, head[0], a_turn(), SUMMARY, None, head[1])


def _committed_events(engine: Engine, game_id: str) -> int:
    """The events of `game_id` another connection sees (committed ones only)."""
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": game_id}).scalar_one())


def _until(found: Callable[[], bool]) -> None:
    """Wait until `found()` (a thread of the test reached its point); fail after WAIT seconds without."""
    give_up = time.monotonic() + WAIT
    while not found() and time.monotonic() < give_up:
        time.sleep(0.01)
    assert found()


class _Thread(threading.Thread):
    """A thread that keeps what its target raised, to be asserted on after `join`."""

    def __init__(self, target: Callable[[], None]) -> None:
        super().__init__(target=self._run, daemon=True)
        self._target_call, self.returned = target, threading.Event()
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self._target_call()
        except BaseException as error:
            self.error = error
        self.returned.set()


def _leader_holding(store: EventStore, game_id: str, release: threading.Event, inside: threading.Event,
                    fail: bool = False) -> _Thread:
    """A command on `game_id` that, once it has moved, holds its turn until `release`."""
    def command() -> None:
        with store.command() as tx:
            _move(tx, game_id)
            inside.set()
            assert release.wait(WAIT)
            if fail:
                raise RuntimeError("the leader's command is refused")
    thread = _Thread(command)
    thread.start()
    return thread


def _joining(groups: CommitGroups | None, command: Callable[[], None], members: int) -> _Thread:
    """`command` in a thread of its own, once it has joined the open group (`members` in it then)."""
    assert groups is not None
    thread = _Thread(command)
    thread.start()
    _until(lambda: groups.open_members() == members)
    return thread


def test_a_command_arriving_meanwhile_joins_and_one_commit_makes_both_durable(grouped: EventStore) -> None:
    release, inside = threading.Event(), threading.Event()
    leader = _leader_holding(grouped, "g1", release, inside)
    assert inside.wait(WAIT)
    assert grouped.groups is not None and grouped.groups.open_members() == 1
    seen_in_member: list[tuple[int, int, bool]] = []

    def member_command() -> None:
        with grouped.command() as tx:
            _move(tx, "g2")
            head = tx.head("g1")
            assert head is not None
            # its own transaction holds the leader's move; nobody else sees it yet, nor has the leader returned
            seen_in_member.append((head[0], _committed_events(grouped.engine, "g1"), leader.returned.is_set()))

    member = _joining(grouped.groups, member_command, 2)
    assert not member.returned.is_set()
    release.set()
    leader.join(WAIT)
    member.join(WAIT)
    assert leader.error is None and member.error is None
    assert seen_in_member == [(3, 1, False)]
    assert (_committed_events(grouped.engine, "g1"), _committed_events(grouped.engine, "g2")) == (3, 3)
    assert grouped.groups.open_members() == 0


@pytest.mark.parametrize("refusal", ["raised", "conflict"])
def test_a_refused_member_undoes_only_its_own_writes(grouped: EventStore, refusal: str) -> None:
    release, inside = threading.Event(), threading.Event()
    leader = _leader_holding(grouped, "g1", release, inside)
    assert inside.wait(WAIT)

    def refused_command() -> None:
        with grouped.command() as tx:
            _move(tx, "g2")
            if refusal == "raised":
                raise RuntimeError("refused by the rules")
            head = tx.head("g2")
            assert head is not None
            tx.append("g2", head[0] - 2, a_turn(), SUMMARY, None, head[1])  # a head that moved: the database refuses

    member = _joining(grouped.groups, refused_command, 2)
    release.set()
    leader.join(WAIT)
    member.join(WAIT)
    assert leader.error is None
    assert isinstance(member.error, RuntimeError if refusal == "raised" else ConcurrencyConflict)
    assert (_committed_events(grouped.engine, "g1"), _committed_events(grouped.engine, "g2")) == (3, 1)
    with grouped.command() as tx:  # the group's connection is sound: the next command commits
        _move(tx, "g2")
    assert _committed_events(grouped.engine, "g2") == 3


def test_a_refused_leader_still_commits_the_members_that_joined_it(grouped: EventStore) -> None:
    release, inside = threading.Event(), threading.Event()
    leader = _leader_holding(grouped, "g1", release, inside, fail=True)
    assert inside.wait(WAIT)

    def member_command() -> None:
        with grouped.command() as tx:
            _move(tx, "g2")

    member = _joining(grouped.groups, member_command, 2)
    release.set()
    leader.join(WAIT)
    member.join(WAIT)
    assert isinstance(leader.error, RuntimeError) and member.error is None
    assert (_committed_events(grouped.engine, "g1"), _committed_events(grouped.engine, "g2")) == (1, 3)


def test_a_member_whose_failure_ends_the_transaction_fails_the_group_and_no_one_after_it_runs(
        grouped: EventStore) -> None:
    """As SQLite answers an IO error (disk full): the whole transaction rolled back, not the statement."""
    new_game(grouped, "g3")
    release, inside = threading.Event(), threading.Event()
    leader = _leader_holding(grouped, "g1", release, inside)
    assert inside.wait(WAIT)
    ran: list[str] = []

    def ending() -> None:
        with grouped.command() as tx:
            _move(tx, "g2")
            ran.append("g2")
            tx.connection.exec_driver_sql("ROLLBACK")
            raise OSError("disk full")

    def after() -> None:
        with grouped.command() as tx:
            ran.append("g3")
            _move(tx, "g3")

    member = _joining(grouped.groups, ending, 2)
    last = _joining(grouped.groups, after, 3)
    release.set()
    for thread in (leader, member, last):
        thread.join(WAIT)
    assert isinstance(member.error, OSError)
    assert isinstance(leader.error, StoreUnavailable) and isinstance(last.error, StoreUnavailable)
    assert ran == ["g2"]  # the one after it never ran on the broken transaction
    assert [_committed_events(grouped.engine, game) for game in ("g1", "g2", "g3")] == [1, 1, 1]
    with grouped.command() as tx:  # the broken connection is not handed out again: the next command commits
        _move(tx, "g1")
    assert _committed_events(grouped.engine, "g1") == 3


def test_a_command_whose_transaction_the_database_ended_meanwhile_is_not_told_done(grouped: EventStore) -> None:
    """Its writes are gone with the transaction: the COMMIT is not tried (on SQLite it would do nothing,
    on PostgreSQL roll back without a word), the command fails, the next one commits."""
    with pytest.raises(StoreUnavailable), grouped.command() as tx:
        _move(tx, "g1")
        tx.connection.exec_driver_sql("ROLLBACK")
    assert _committed_events(grouped.engine, "g1") == 1
    with grouped.command() as tx:
        _move(tx, "g1")
    assert _committed_events(grouped.engine, "g1") == 3


def test_a_failed_commit_fails_every_member_and_writes_nothing(engine: Engine) -> None:
    groups = CommitGroups()
    release, inside = threading.Event(), threading.Event()

    def lose(*_: Any) -> None:
        raise StoreUnavailable("the database was lost at the COMMIT")

    @contextmanager
    def lost_at_commit(_moved: dict[str, int]) -> Iterator[Connection]:
        with engine.connect() as conn:
            event.listen(conn, "commit", lose)
            yield conn

    def write(nonce: str, hold: bool) -> Callable[[], None]:
        def command() -> None:
            with groups.member(lost_at_commit) as (conn, _):
                conn.execute(text("INSERT INTO request_nonces (key_id, nonce, expires_at) VALUES ('k', :n, 1)"),
                             {"n": nonce})
                if hold:
                    inside.set()
                    assert release.wait(WAIT)
        return command

    leader = _Thread(write("first", hold=True))
    leader.start()
    assert inside.wait(WAIT)
    member = _joining(groups, write("second", hold=False), 2)
    release.set()
    leader.join(WAIT)
    member.join(WAIT)
    errors: list[Any] = [leader.error, member.error]
    assert all(isinstance(error, StoreUnavailable) for error in errors), errors
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM request_nonces")).scalar_one() == 0


def test_a_full_group_takes_no_newcomer_who_then_leads_his_own(engine: Engine) -> None:
    groups = CommitGroups(limit=2)
    release, inside = threading.Event(), threading.Event()

    @contextmanager
    def begun(_moved: dict[str, int]) -> Iterator[Connection]:
        with engine.connect() as conn:
            yield conn

    def hold() -> None:
        with groups.member(begun) as (conn, _):
            conn.execute(text("SELECT 1"))  # a command's statements (a turn with none is taken for one whose
            inside.set()  # transaction PostgreSQL ended: commit_groups._in_transaction)
            assert release.wait(WAIT)

    def run() -> None:
        with groups.member(begun) as (conn, _):
            conn.execute(text("SELECT 1"))

    leader = _Thread(hold)
    leader.start()
    assert inside.wait(WAIT)
    member = _joining(groups, run, 2)
    third = _Thread(run)  # had it joined, it would wait for the leader's turn; it leads the next group
    third.start()
    third.join(WAIT)
    assert third.returned.is_set() and third.error is None
    assert not leader.returned.is_set() and not member.returned.is_set()
    release.set()
    leader.join(WAIT)
    member.join(WAIT)
    assert leader.error is None and member.error is None and groups.open_members() == 0

"""Commands committed together: a server's commands that arrive together share one transaction.

`scat serve` makes each command durable before it answers. Alone, every command pays its own
COMMIT: a flush of the log to disk (SQLite's WAL under `synchronous = FULL`, PostgreSQL's WAL),
and on SQLite the write lock held through it. With `EventStore(engine, commit_together=True)`
a command that finds a group open joins it: the members run one at a time on the group's
connection, and the group's first member, its leader, commits them all with one COMMIT once
no member is left waiting. Each member after the first runs in a SAVEPOINT of its own, so a
refusal or a lost race undoes only that member's writes; the leader runs first, so its own
refusal rolls the transaction back whole and begins it again for those who wait (no
SAVEPOINT: a lone command costs the statements it cost alone). No member's command returns
before the COMMIT: nobody hears "done" of a move the database could still lose; if the COMMIT
fails, every member whose writes it held fails with that error.

The batching window is not a timer. A group takes whoever waits for it when its leader opens
it and whoever comes while its members run, up to `GROUP_LIMIT` members, and commits as soon
as nobody waits: a lone command commits at once, as before, and under load a group is as
large as the commands that queued during the one before (a flush per group, not per move).
A timer would add its wait to every lone move, the common case of a correspondence game.
A group is open to newcomers from the moment its leader comes, so the commands that arrive
while the group before it commits (SQLite: while its leader waits for the write lock) join it.
Members of one game in one group see each other's writes (one transaction), as if one had
committed before the other ran. Groups of one engine run one after another on SQLite (one
writer at a time anyway), side by side on PostgreSQL (each on its own connection).

A group whose transaction is no longer sound (a statement's failure that SQLite answers by
rolling the whole transaction back, a savepoint that cannot be rolled back to, a BEGIN that
failed) is broken: no member after that runs, the COMMIT is not tried, the connection is never
handed out again, and every member fails with the store's "unavailable" error.
"""

from __future__ import annotations

import copy
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import Connection, RootTransaction

from scat_core.records.errors import StoreUnavailable
from scat_core.store.sql.driver_sql import execute

#: The most commands one group commits: bounds the wait of its first member for its last.
GROUP_LIMIT = 16
#: A member's savepoint, on the driver's own cursor (driver_sql.py) as the member's statements are:
#: SQLAlchemy's begin_nested compiled and tracked each one, a tenth of a member's work in the store.
#: The group's root transaction, which SQLAlchemy tracks, ends whatever is left of it.
_SAVEPOINT = "SAVEPOINT scat_member"
_ROLLBACK_TO = "ROLLBACK TO SAVEPOINT scat_member"
_RELEASE = "RELEASE SAVEPOINT scat_member"


@dataclass
class _Group:
    """One transaction and the commands in it: its connection and transaction (once its leader has
    them), how many joined, those that wait for their turn (each woken alone, in the order they
    joined), whether one runs now, whether it still takes newcomers, what broke it (if anything),
    the leader's wait for the last turn to end, and (once its COMMIT was tried) the failure its
    members share."""

    moved: dict[str, int]
    conn: Connection | None = None
    root: RootTransaction | None = None
    members: int = 1
    waiting: deque[threading.Event] = field(default_factory=deque)
    running: bool = True  # a member's turn (the leader's first) runs, or was handed to the next in line
    fresh: bool = True  # no member's turn done since its transaction began (PostgreSQL: maybe none begun)
    closed: bool = False
    idle: threading.Event | None = None  # set when no turn runs and none waits (the closing leader waits)
    broken: BaseException | None = None
    failure: BaseException | None = None
    committed: threading.Event = field(default_factory=threading.Event)


class CommitGroups:
    """The groups of one store: at most one open to newcomers at a time.

    `member(open_connection)` is the unit of a command: it yields the connection to run the
    command on, in the group's transaction, and returns once the group's COMMIT holds the
    command's writes (raising the command's own error, or the group's). `open_connection(moved)`
    is called by a leader only: a connection for the group's transaction (which the group begins
    and commits), whose context, left cleanly, announces `moved` (the games its members moved).
    """

    def __init__(self, limit: int = GROUP_LIMIT) -> None:
        self._limit = limit
        #: Guards the groups' state. Each waiting member has an Event of its own, set when the turn
        #: is handed to it: a turn's end wakes one thread, not every member of every group (a
        #: shared Condition's notify_all woke them all to look: 8% of a server's GIL time at 8 signed movers).
        self._lock = threading.Lock()
        self._open: _Group | None = None
        self._in_turn = threading.local()  # a command within a member's turn leads its own group

    @contextmanager
    def member(self, open_connection: Callable[[dict[str, int]], AbstractContextManager[Connection]],
               ) -> Iterator[tuple[Connection, dict[str, int]]]:
        """Run the command (the block) in a group: joined if one is open with room, else led.
        Yields the connection and the dict the command records the games it moved in (game ->
        new head), announced with every member's once committed."""
        group = self._join()
        if group is not None:
            yield from self._as_member(group)
            return
        led = _Group({})
        own: BaseException | None = None
        with self._lock:
            if not self._depth():  # a nested command's group takes nobody
                self._open = led  # open from now: who comes while it waits for its connection joins it
        try:
            with open_connection(led.moved) as conn:
                led.conn = conn
                try:
                    led.root = conn.begin()
                except BaseException as error:
                    led.broken = error
                    raise
                try:
                    yield from self._turn(led, first=True)
                except BaseException as error:  # the leader's command failed: the others' still commit
                    own = error
                self._close(led)
                if own is not None and led.members == 1:
                    if led.root.is_active:
                        led.root.rollback()
                    raise own  # alone and refused: nothing was written, as without groups
                self._commit(led, conn)
        except BaseException as error:
            self._close(led, error, release=led.root is None)  # failed before its turn: the turn released
            if error is not own and led.members > 1:
                led.failure = error  # no member's writes hold
            led.committed.set()
            own = None  # no cycle (error -> traceback -> this frame -> error) keeps a failed statement's
            del led  # cursor alive, and with it SQLite's write lock, until the garbage collector runs
            raise
        led.committed.set()
        if own is not None:
            try:
                raise own
            finally:
                own = None
                del led

    def open_members(self) -> int:
        """How many commands the group open to newcomers holds (0: none is open)."""
        with self._lock:
            return self._open.members if self._open is not None and not self._open.closed else 0

    def _join(self) -> _Group | None:
        """The open group this command joined (its turn begun), or None: it leads a group of its own."""
        with self._lock:
            group = self._open
            if group is None or group.closed or group.members >= self._limit or self._depth():
                return None
            group.members += 1
            if not group.running and not group.waiting:
                group.running = True
                return group
            turn = threading.Event()
            group.waiting.append(turn)
        turn.wait()  # handed the turn by the member before (`_hand_on`): `running` is this one's
        return group

    def _depth(self) -> int:
        """How many members' turns this thread is within (a command within a command: 1 or more)."""
        depth: int = getattr(self._in_turn, "depth", 0)
        return depth

    def _close(self, group: _Group, broken: BaseException | None = None, release: bool = False) -> None:
        """Take no newcomer into `group` any more and wait until its members have had their turns
        (with `broken`, what broke it: those still waiting fail without running; `release`: the
        leader's turn, which never ran, given up)."""
        with self._lock:
            if broken is not None and group.broken is None:
                group.broken = broken
            self._stop_taking(group)
            if release:
                self._hand_on(group)
            if not group.waiting and not group.running:
                return
            idle = group.idle = threading.Event()
        idle.wait()

    @staticmethod
    def _hand_on(group: _Group) -> None:
        """The turn that ran ends: the next member in line is woken to run its own, else the group is
        idle (its closing leader woken). Called holding `_lock`."""
        if group.waiting:
            group.waiting.popleft().set()  # `running` stays True: the next member's turn
            return
        group.running = False
        if group.idle is not None:
            group.idle.set()

    def _stop_taking(self, group: _Group) -> None:
        """`group` takes no newcomer any more (called holding `_lock`)."""
        group.closed = True
        if self._open is group:
            self._open = None

    def _commit(self, group: _Group, conn: Connection) -> None:
        """The group's COMMIT, tried only on a sound transaction; a connection whose COMMIT failed (its
        transaction may be open still) or whose transaction broke is never handed out again."""
        assert group.root is not None
        try:
            if group.broken is not None:
                raise group.broken
            if not group.root.is_active or not _in_transaction(conn, group.fresh):
                raise StoreUnavailable("the database ended the transaction of these moves before their "
                                       "commit: nothing of them was written")
            group.root.commit()  # every member's writes at once
        except BaseException:
            conn.invalidate()
            raise

    def _as_member(self, group: _Group) -> Iterator[tuple[Connection, dict[str, int]]]:
        """A joined member's turn, then its wait for the group's COMMIT (whose failure is its own)."""
        try:
            yield from self._turn(group)
            group.committed.wait()
            if group.failure is not None:
                raise _own_copy(group.failure) from group.failure
        finally:
            del group  # see `member`: no cycle through this frame

    def _turn(self, group: _Group, first: bool = False) -> Iterator[tuple[Connection, dict[str, int]]]:
        """One member's command on the group's connection, then the next member's turn: its writes
        kept, or undone by its error (the first's, the leader's, by rolling the transaction back
        whole and beginning it again; a later one's, to its SAVEPOINT). A group found broken, or
        broken by this turn, runs no more commands."""
        moved: dict[str, int] = {}
        depth = self._depth()
        self._in_turn.depth = depth + 1
        try:
            conn = group.conn
            if group.broken is not None or conn is None:
                raise _own_copy(group.broken or StoreUnavailable("the moves' transaction could not begin"))
            if not first and not _in_transaction(conn, group.fresh):
                group.broken = StoreUnavailable("the database ended the transaction of these moves: nothing "
                                                "of them was written")
                raise _own_copy(group.broken)
            if first:
                try:
                    yield conn, moved
                except BaseException:
                    self._begin_again(group, conn)
                    raise
            else:
                execute(conn, _SAVEPOINT, ())
                try:
                    yield conn, moved
                except BaseException:
                    try:
                        execute(conn, _ROLLBACK_TO, ())
                        execute(conn, _RELEASE, ())
                    except BaseException as lost:  # the transaction itself is gone (SQLite's IO errors)
                        group.broken = lost
                    raise
                execute(conn, _RELEASE, ())
            group.moved.update(moved)
            group.fresh = False
        except BaseException as error:
            if group.broken is None and not _in_transaction(group.conn, group.fresh):
                group.broken = error
            raise
        finally:
            self._in_turn.depth = depth
            with self._lock:
                self._hand_on(group)
            del group, moved  # see `member`: no cycle through this frame

    def _begin_again(self, group: _Group, conn: Connection) -> None:
        """After the leader's refusal: its writes rolled back whole, and the transaction begun again
        for those who wait (none: the group is closed, its transaction ended)."""
        assert group.root is not None
        try:
            group.root.rollback()
            with self._lock:
                if not group.waiting:
                    self._stop_taking(group)
            if not group.closed:
                group.root, group.fresh = conn.begin(), True
        except BaseException as lost:
            group.broken = lost


def _in_transaction(conn: Connection | None, fresh: bool) -> bool:
    """Whether the driver's connection holds a sound transaction: on SQLite one still open (an IO
    error may end it whole); on PostgreSQL one not failed (whose COMMIT would roll back without a
    word), and one begun unless the group's transaction is `fresh` (psycopg begins it at the
    first statement)."""
    if conn is None or conn.invalidated or conn.closed:
        return False
    driver: Any = conn.connection.driver_connection
    if conn.dialect.name == "postgresql":
        from psycopg.pq import TransactionStatus  # only on PostgreSQL: SQLite installs need no psycopg

        sound = (TransactionStatus.INTRANS, TransactionStatus.IDLE) if fresh else (TransactionStatus.INTRANS,)
        return bool(driver.info.transaction_status in sound)
    return bool(driver.in_transaction)


def _own_copy(failure: BaseException) -> BaseException:
    """The group's failure, as one member's own exception (each member raises it in its thread)."""
    try:
        return copy.copy(failure)
    except Exception:  # an exception that cannot be copied: the one object, raised in each thread
        return failure

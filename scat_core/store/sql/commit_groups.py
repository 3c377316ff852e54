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
Members of one game in one group see each other's writes (one transaction), as if one had
committed before the other ran. Groups of one engine run one after another on SQLite (one
writer at a time anyway), side by side on PostgreSQL (each on its own connection).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection, RootTransaction

#: The most commands one group commits: bounds the wait of its first member for its last.
GROUP_LIMIT = 16


@dataclass
class _Group:
    """One open transaction and the commands in it: how many joined, how many still wait for
    their turn, whether one runs now, and (once its COMMIT was tried) what came of it."""

    conn: Connection
    root: RootTransaction
    moved: dict[str, int]
    members: int = 1
    waiting: int = 0
    running: bool = True
    closed: bool = False
    failure: BaseException | None = None
    committed: threading.Event = field(default_factory=threading.Event)


class CommitGroups:
    """The groups of one store: at most one open to newcomers at a time.

    `member(open_connection)` is the unit of a command: it yields the connection to run the
    command on, in the group's transaction, and returns once the group's COMMIT holds the
    command's writes (raising the command's own error, or the COMMIT's). `open_connection(moved)`
    is called by a leader only: a connection for the group's transaction (which the group begins
    and commits), whose context, left cleanly, announces `moved` (the games its members moved).
    """

    def __init__(self, limit: int = GROUP_LIMIT) -> None:
        self._limit = limit
        self._turns = threading.Condition()
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
        own: BaseException | None = None
        led: _Group | None = None
        try:
            moved: dict[str, int] = {}
            with open_connection(moved) as conn:
                led = _Group(conn, conn.begin(), moved)
                with self._turns:
                    if self._open is None:
                        self._open = led
                try:
                    yield from self._turn(led, first=True)
                except BaseException as error:  # the leader's command failed: the others' still commit
                    own = error
                with self._turns:
                    while led.waiting or led.running:
                        self._turns.wait()
                    led.closed = True
                    if self._open is led:
                        self._open = None
                if own is not None and led.members == 1:
                    if led.root.is_active:
                        led.root.rollback()
                    raise own  # alone and refused: nothing was written, as without groups
                try:
                    led.root.commit()  # every member's writes at once
                except BaseException:
                    conn.invalidate()  # its transaction may be open still: the connection is never handed out again
                    raise
        except BaseException as error:
            if led is not None:
                if error is not own and led.members > 1:
                    led.failure = error  # the COMMIT failed: no member's writes hold
                led.committed.set()
            own = led = None  # no cycle (error -> traceback -> this frame -> error) keeps a failed statement's
            raise  # cursor alive, and with it SQLite's write lock, until the garbage collector runs
        led.committed.set()
        if own is not None:
            try:
                raise own
            finally:
                own = led = None

    def open_members(self) -> int:
        """How many commands the group open to newcomers holds (0: none is open)."""
        with self._turns:
            return self._open.members if self._open is not None and not self._open.closed else 0

    def _join(self) -> _Group | None:
        """The open group this command joined (its turn begun), or None: it leads a group of its own."""
        with self._turns:
            group = self._open
            if (group is None or group.closed or group.members >= self._limit
                    or getattr(self._in_turn, "active", False)):
                return None
            group.members += 1
            group.waiting += 1
            while group.running:
                self._turns.wait()
            group.waiting -= 1
            group.running = True
            return group

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
        whole and beginning it again; a later one's, to its SAVEPOINT)."""
        moved: dict[str, int] = {}
        self._in_turn.active = True
        try:
            if first:
                try:
                    yield group.conn, moved
                except BaseException:
                    group.root.rollback()
                    with self._turns:
                        if not group.waiting:  # alone: closed, its transaction ended
                            group.closed = True
                            if self._open is group:
                                self._open = None
                    if not group.closed:
                        group.root = group.conn.begin()  # for those who wait
                    raise
            else:
                with group.conn.begin_nested():
                    yield group.conn, moved
            group.moved.update(moved)
        finally:
            self._in_turn.active = False
            with self._turns:
                group.running = False
                self._turns.notify_all()
            del group, moved  # see `member`: no cycle through this frame


def _own_copy(failure: BaseException) -> BaseException:
    """The group's COMMIT failure, as one member's own exception (each member raises it in its thread)."""
    try:
        return copy.copy(failure)
    except Exception:  # an exception that cannot be copied: the one object, raised in each thread
        return failure

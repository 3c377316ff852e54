"""A game put back to an older, validly signed head is noticed by its players' scat (#23).

Whoever holds the database can restore an older copy of a game (a backup, or its tail cut and
the head signature it had then put back): every signature in it is valid, so the store and the
server's audit find nothing. The scat that was shown the game further along remembers it
(scat_cli/remembered.py) and refuses the older history as damaged.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import one_line_error
from tests.support.live_server import free_port, server_process

SCAT = str(Path(sys.executable).parent / "scat")


def copy_database(source: Path, target: Path) -> None:
    """`target` made a copy of the SQLite database `source` (its WAL too), replacing whatever was there."""
    for stale in (target, target.with_name(target.name + "-wal"), target.with_name(target.name + "-shm")):
        stale.unlink(missing_ok=True)
    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    reading.close()
    writing.close()


def run(env: dict[str, str | None], *args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"SCAT_TOKEN": "", **env}, catch_exceptions=False)


@contextmanager
def served(db: str, port: int) -> Iterator[dict[str, str | None]]:
    """`scat serve` over `db` on `port` (always the same URL: the players' scat knows it by its URL)."""
    with server_process(db, "--testing", port=port) as (url, _):
        yield {"SCAT_SERVER": url, "SCAT_DB_URL": None}


def a_game_played_on(env: dict[str, str | None]) -> tuple[str, int]:
    """A game of you against bob, and its last seq once you knocked and the hand was settled."""
    created = run(env, "new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--seed", "3", "--json")
    assert created.exit_code == 0, created.output
    return json.loads(created.stdout)["game_id"], json.loads(created.stdout)["last_seq"]


@pytest.mark.parametrize("where", ["local", "server"])
def test_a_game_restored_to_an_older_signed_head_is_refused_as_damaged_history(
    where: str, cli_db: str, tmp_path: Path
) -> None:
    path = Path(make_url(cli_db).database or "")
    backup = tmp_path / "backup.db"
    port = free_port()

    @contextmanager
    def place() -> Iterator[dict[str, str | None]]:
        if where == "local":
            yield {"SCAT_DB_URL": cli_db, "SCAT_SERVER": None}
        else:
            with served(cli_db, port) as env:
                yield env

    with place() as env:
        game, created_at = a_game_played_on(env)
        copy_database(path, backup)  # the operator's copy of the game as it was then: validly signed
        knocked = run(env, "knock", game, "--as", "you", "--json")
        assert knocked.exit_code == 0, knocked.output
        seen = json.loads(knocked.stdout)["last_seq"]
        assert seen > created_at
        assert run(env, "audit", game).exit_code == 0
    copy_database(backup, path)  # ... put back: the knock and what followed are gone
    with place() as env:
        shown = run(env, "show", game, "--as", "you")
        assert shown.exit_code == 1, shown.output
        place_name = "the database" if where == "local" else "the server"
        assert one_line_error(shown) == (
            f"scat: error: history damaged: game {game}: {place_name} shows it at event {created_at}, but event "
            f"{seen} was seen here before: its history was cut back to an older head (rolled back); nothing was "
            f"played: run `scat audit {game}`")
        audited = run(env, "audit", game, "--json")  # the head's signature is valid: only this scat can tell
        assert audited.exit_code == 1
        report = json.loads(audited.stdout)
        assert report["ok"] is False and report["signature"] == "valid"
        assert f"but event {seen} was seen here before" in report["problems"][-1]
        every = run(env, "audit", "--all")
        assert every.exit_code == 1 and f"game {game}: FAILED" in every.stdout
        moved = run(env, "draw", game, "--as", "you", "stock")  # a move on it is recorded, and said to be
        assert moved.exit_code == 1
        assert "rolled back); your move was recorded on it: run `scat audit" in one_line_error(moved)


def test_positions_seen_are_kept_highest_first_and_a_rewritten_one_is_damage(tmp_path: Path) -> None:
    from scat_cli.errors import HistoryRolledBack, exit_code, wording
    from scat_cli.remembered import SeenHeads

    path = tmp_path / "heads.json"
    first = SeenHeads("http://s", "the server", path)
    other = SeenHeads("http://s", "the server", path)  # another command at the same time, which saw less
    other.saw("g1", 6, None)
    first.saw("g1", 5, "aaa")
    first.saw("g1", 7, "bbb")
    first.save()
    other.saw("g2", 3, None)
    other.save()  # merged with what the first kept: the highest position stays
    kept = json.loads(path.read_text())
    assert {key: (value["seq"], value["tag_seq"], value["tag"]) for key, value in kept.items()} == {
        "http://s\tg1": (7, 7, "bbb"), "http://s\tg2": (3, None, None)}
    assert path.stat().st_mode & 0o777 == 0o600

    later = SeenHeads("http://s", "the server", path)
    later.saw("g1", 7, "bbb")  # the same position again: fine
    later.saw("g1", 7, None)  # an answer without a tag: fine
    with pytest.raises(HistoryRolledBack) as rewritten:
        later.saw("g1", 7, "ccc")
    assert exit_code(rewritten.value) == 1
    assert wording(rewritten.value) == (
        "history damaged: game g1: the server shows another event 7 than the one seen here before: its history "
        "was rewritten; nothing was played: run `scat audit g1`")
    later.saw("g1", 9, None)  # further along without a tag: the tag of event 7 is kept
    assert {name: later.kept("g1")[name] for name in ("seq", "tag_seq", "tag")} == {  # type: ignore[index]
        "seq": 9, "tag_seq": 7, "tag": "bbb"}
    later.saw("g1", 9, "ddd")
    assert later.kept("g1")["tag_seq"] == 9  # type: ignore[index]
    with pytest.raises(HistoryRolledBack):
        later.saw("g1", 8, None)
    assert SeenHeads("http://elsewhere", "the server", path).problem("g1", 1) is None  # kept per place


def test_a_finished_game_whose_event_at_a_position_seen_here_is_another_fails_its_audit(cli_db: str) -> None:
    """A fork however long: once the seed is revealed, the tag kept at a seq is recomputed from the history."""
    from scat_cli.remembered import heads_path
    from scat_core.records.signing import position_tag
    from scat_core.store.sql.database import resolve_url

    env: dict[str, str | None] = {"SCAT_DB_URL": cli_db, "SCAT_SERVER": None}
    created = run(env, "new", "--bot", "ann", "--bot", "bob", "--seed", "11", "--lives", "1", "--json")
    game = json.loads(created.stdout)["game_id"]
    exported = run(env, "export", game, "--format", "json")
    events = json.loads(exported.stdout)["events"]
    won = events[-1]["data"]
    tag = position_tag(won["seed"], won["seed_salt"], events[2]["hash"])
    key = f"{resolve_url(cli_db)}\t{game}"

    def audit_with_kept(kept_tag: str) -> Any:
        heads_path().write_text(json.dumps({key: {"seq": 3, "tag_seq": 3, "tag": kept_tag, "at": 0}}))
        return run(env, "audit", game)

    assert audit_with_kept(tag).exit_code == 0  # the position seen here is in the history
    forked = audit_with_kept("0" * 64)  # another event 3 was seen here: the history was rewritten from there
    assert forked.exit_code == 1
    assert forked.stdout.strip() == (f"game {game}: FAILED: the database's event 3 is not the one seen here "
                                     "before: its history was rewritten from there on (a fork)")


def test_a_signed_move_answered_at_the_same_seq_with_another_tag_is_refused_as_rewritten(
    cli_db: str, tmp_path: Path
) -> None:
    """An account's moves are signed at position tags, which the answers carry: the same move played
    again on a restored copy reaches the same seq (same seed, same moves) with other hashes, so
    another tag: a rewritten history, though its seq alone looks fine."""
    path = Path(make_url(cli_db).database or "")
    backup = tmp_path / "backup.db"
    port = free_port()
    key = {"SCAT_KEY_FILE": str(tmp_path / "ann.pem")}
    with served(cli_db, port) as env:
        env = {**env, **key}
        assert run(env, "account", "register", "ann").exit_code == 0
        created = run(env, "new", "--player", "ann", "--bot", "bob", "--dealer", "bob", "--seed", "3", "--json")
        assert created.exit_code == 0, created.output
        game = json.loads(created.stdout)["game_id"]
        copy_database(path, backup)
        knocked = run(env, "knock", game, "--as", "ann", "--json")
        assert knocked.exit_code == 0, knocked.output
        seen = json.loads(knocked.stdout)["last_seq"]
    copy_database(backup, path)
    with served(cli_db, port) as env:
        again = run({**env, **key}, "knock", game, "--as", "ann")
        assert again.exit_code == 1, again.output
        assert one_line_error(again) == (
            f"scat: error: history damaged: game {game}: the server shows another event {seen} than the one seen "
            f"here before: its history was rewritten; your move was recorded on it: run `scat audit {game}`")


def watched_until(env: dict[str, str | None], game: str, seq: int) -> subprocess.Popen[str]:
    """`scat watch GAME --json` in the background (the real executable), once it has printed event `seq`."""
    full = {**os.environ, "SCAT_TOKEN": "", **env}
    watching = subprocess.Popen([SCAT, "watch", game, "--json"], env={k: v for k, v in full.items() if v is not None},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert watching.stdout is not None
    for line in watching.stdout:
        if json.loads(line)["seq"] == seq:
            return watching
    raise AssertionError(f"the watch ended before event {seq}: {watching.communicate()[1]}")


def restore_in_place(source: Path, target: Path) -> None:
    """The SQLite database `target` put back to the copy `source` while others have it open (as an operator's
    restore of a backup under a running scat): through SQLite's backup, which they see at their next read."""
    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    reading.close()
    writing.close()


@pytest.mark.parametrize("where", ["local", "server"])
def test_watch_keeps_the_positions_it_shows_and_stops_at_once_on_a_game_rolled_back_since(
    where: str, cli_db: str, tmp_path: Path
) -> None:
    """Only the watcher's scat saw the game's last events (he watched; he made no move): his next `show` and
    `watch` of the game rolled back since are refused, naming it, as `wait` refuses it."""
    path = Path(make_url(cli_db).database or "")
    backup = tmp_path / "backup.db"
    port = free_port()
    watcher = {"XDG_CONFIG_HOME": str(tmp_path / "watcher")}  # another user's scat, his positions his own

    @contextmanager
    def place() -> Iterator[dict[str, str | None]]:
        if where == "local":
            yield {"SCAT_DB_URL": cli_db, "SCAT_SERVER": None}
        else:
            with served(cli_db, port) as env:
                yield env

    with place() as env:
        game, created_at = a_game_played_on(env)
        copy_database(path, backup)
        knocked = run(env, "knock", game, "--as", "you", "--json")
        assert knocked.exit_code == 0, knocked.output
        seen = json.loads(knocked.stdout)["last_seq"]
        watching = watched_until({**env, **watcher}, game, seen)
        watching.send_signal(signal.SIGINT)  # Ctrl-C: the way to stop watching
        assert watching.wait(30) == 0, watching.communicate()[1]
    copy_database(backup, path)
    with place() as env:
        place_name = "the database" if where == "local" else "the server"
        shown = run({**env, **watcher}, "show", game)
        assert shown.exit_code == 1 and one_line_error(shown) == (
            f"scat: error: history damaged: game {game}: {place_name} shows it at event {created_at}, but event "
            f"{seen} was seen here before: its history was cut back to an older head (rolled back); nothing was "
            f"played: run `scat audit {game}`")
        watched = run({**env, **watcher}, "watch", game)
        assert watched.exit_code == 1 and watched.stdout == "", watched.output
        assert "(rolled back)" in one_line_error(watched)


@pytest.mark.parametrize("where", ["local", "server"])
def test_a_watch_stops_naming_it_when_the_game_is_rolled_back_and_played_on_under_it(
    where: str, cli_db: str, tmp_path: Path
) -> None:
    """The history cut back while watched and a move made on the older one: the watch does not splice the new
    events onto the ones it printed, it stops (exit 1) naming the rollback."""
    path = Path(make_url(cli_db).database or "")
    backup = tmp_path / "backup.db"
    port = free_port()

    @contextmanager
    def place() -> Iterator[dict[str, str | None]]:
        if where == "local":
            yield {"SCAT_DB_URL": cli_db, "SCAT_SERVER": None}
        else:
            with served(cli_db, port) as env:
                yield env

    with place() as env:
        game, _ = a_game_played_on(env)
        copy_database(path, backup)
        knocked = run(env, "knock", game, "--as", "you", "--json")
        seen = json.loads(knocked.stdout)["last_seq"]
        watching = watched_until({**env, "XDG_CONFIG_HOME": str(tmp_path / "watcher")}, game, seen)
        restore_in_place(backup, path)
        # someone whose scat never saw the later events plays on the older history (locally: it is not protected)
        other = {**env, "XDG_CONFIG_HOME": str(tmp_path / "other"),  # the database's key, without its positions
                 "SCAT_KEY_FILE": str(tmp_path / "xdg-config" / "scat" / "installation-key.pem")}
        if where == "local":
            drew = run(other, "draw", game, "--as", "you", "stock")
            assert drew.exit_code == 0, drew.output
        out, err = watching.communicate(timeout=60)
    assert watching.returncode == 1, (out, err)
    assert err.count("\n") == 1 and "history damaged" in err and "rolled back" in err, err
    printed = [json.loads(line)["seq"] for line in out.splitlines()]
    assert printed == [], printed  # nothing after the events it had printed before the rollback

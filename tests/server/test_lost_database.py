"""A database lost under a running server: 503 with Retry-After and no URL, then the next request works again."""

from __future__ import annotations

import json
import logging
import shutil
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from scat_cli.app import app as cli
from tests.support.databases import migrated
from tests.support.live_server import app_in_thread
from tests.support.signing import Signer

UNAVAILABLE = "the server's database is unavailable: try again later"


def a_game(api: httpx.Client) -> str:
    created = api.post("/games", json={"players": [{"name": "you"}, {"name": "bob", "is_bot": True}]})
    assert created.status_code == 201, created.text
    return str(created.json()["game_id"])


def assert_unavailable(response: httpx.Response, *secrets: str) -> None:
    """A 503 that says only what a client needs: try again, when; nothing of the database's whereabouts."""
    assert response.status_code == 503, response.text
    assert int(response.headers["retry-after"]) >= 1
    body = response.json()
    assert body["type"] == "StoreUnavailable" and body["error"] == UNAVAILABLE and body["exit_code"] == 2
    for secret in secrets:
        assert secret not in response.text


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records if record.name == "scat.server")


@pytest.fixture
def sqlite_served(sqlite_url: str) -> Iterator[tuple[str, Any, Path]]:
    with app_in_thread(migrated(sqlite_url)) as (url, app):
        yield url, app, Path(make_url(sqlite_url).database or "")


def test_a_lost_sqlite_database_is_503_with_retry_after_then_the_next_request_works(
    sqlite_served: tuple[str, Any, Path], caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    url, app, path = sqlite_served
    caplog.set_level(logging.INFO, logger="scat.server")
    with httpx.Client(base_url=url, timeout=30) as api:
        game = a_game(api)
        kept = tmp_path / "kept.db"
        shutil.move(path, kept)  # the database goes away (a restart, a lost disk) ...
        path.mkdir()  # ... and what is there now cannot be opened
        app.state.server.games.store.engine.dispose()  # its connections are gone with it
        assert_unavailable(api.get(f"/games/{game}"), str(tmp_path), "sqlite", "scat.db")
        assert_unavailable(api.get("/health"), str(tmp_path))
        assert str(tmp_path) not in logged(caplog) and "database unavailable on GET" in logged(caplog)
        path.rmdir()
        shutil.move(kept, path)  # back: the very next request works
        assert api.get(f"/games/{game}").status_code == 200
        assert api.get("/health").status_code == 200


def test_the_client_tells_a_lost_server_database_as_the_same_error_with_its_exit_code(
    sqlite_served: tuple[str, Any, Path], tmp_path: Path
) -> None:
    url, app, path = sqlite_served
    env = {"SCAT_SERVER": url, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    runner = CliRunner()
    created = runner.invoke(cli, ["new", "-q", "--player", "you", "--bot", "bob"], env=env, catch_exceptions=False)
    assert created.exit_code == 0, created.output
    game = created.stdout.split()[0]
    path.rename(tmp_path / "kept.db")
    path.mkdir()
    app.state.server.games.store.engine.dispose()
    shown = runner.invoke(cli, ["show", game, "--as", "you"], env=env, catch_exceptions=False)
    assert shown.exit_code == 2 and shown.stderr == f"scat: error: {UNAVAILABLE}\n"  # Unavailable: exit 2, as locally


@pytest.mark.postgres
def test_postgres_backends_terminated_under_the_server_fail_no_request(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scat.server")
    name = f"scat_lost_{uuid.uuid4().hex[:10]}"  # only this server's connections are cut, not another test's
    db = make_url(migrated(postgres_url)).update_query_dict({"application_name": name})
    with app_in_thread(db.render_as_string(hide_password=False)) as (url, _), \
            httpx.Client(base_url=url, timeout=30) as api:
        game = a_game(api)
        for _ in range(3):  # several pooled connections, all of them used
            assert api.get(f"/games/{game}").status_code == 200
        admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            cut = conn.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                    "WHERE application_name = :name AND pid <> pg_backend_pid()"), {"name": name})
            assert cut.scalar_one() >= 1
        admin.dispose()
        # The pool tests each connection before use (pre-ping): a connection cut meanwhile is replaced, and not
        # one request fails for it (without the pre-ping, the first would be a 503, see the SQLite test).
        assert api.get(f"/games/{game}").status_code == 200
        assert api.get(f"/games/{game}").status_code == 200
        assert api.get("/health").status_code == 200
        assert str(db.password or "no password") not in logged(caplog)


def lose_the_connection_of_the_next_statement(engine: Any, admin_url: str | None = None, skipped: int = 0) -> list[str]:
    """Arm `engine` so that the connection of the next statement it runs (after `skipped` more) is lost
    just before the statement (on PostgreSQL its backend terminated by `admin_url`'s, as a restart would;
    on SQLite the connection closed under it); returns the statements lost (filled once it happens)."""
    from sqlalchemy import event

    lost: list[str] = []
    passed = [0]

    def cut(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if lost:
            return
        if passed[0] < skipped:
            passed[0] += 1
            return
        lost.append(statement)
        raw = conn.connection.dbapi_connection
        if admin_url is None:
            raw.close()
            return
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": raw.info.backend_pid})
        admin.dispose()

    event.listen(engine, "before_cursor_execute", cut)
    lost_cut.append(cut)
    return lost


#: The listener of the last `lose_the_connection_of_the_next_statement`, for `connection_lost_at` to remove.
lost_cut: list[Any] = []


@contextmanager
def connection_lost_at(engine: Any, admin_url: str | None, skipped: int) -> Iterator[list[str]]:
    """`lose_the_connection_of_the_next_statement(engine, admin_url, skipped)` while in the block only."""
    from sqlalchemy import event

    lost = lose_the_connection_of_the_next_statement(engine, admin_url, skipped)
    try:
        yield lost
    finally:
        event.remove(engine, "before_cursor_execute", lost_cut.pop())


@pytest.fixture
def lost_midway(db_url: str, request: pytest.FixtureRequest,
                caplog: pytest.LogCaptureFixture) -> Iterator[tuple[httpx.Client, Any, str, str, str | None]]:
    """A served game (SQLite or PostgreSQL): (client, app, game id, you's token, the admin URL that cuts
    connections: None on SQLite)."""
    admin = request.getfixturevalue("postgres_url") if db_url.startswith("postgresql") else None
    caplog.set_level(logging.INFO, logger="scat.server")
    with app_in_thread(migrated(db_url)) as (url, app), httpx.Client(base_url=url, timeout=30) as api:
        created = api.post("/games", json={"players": [{"name": "you"}, {"name": "bob", "is_bot": True}]})
        assert created.status_code == 201, created.text
        yield api, app, created.json()["game_id"], created.json()["tokens"]["you"], admin


def test_a_read_whose_connection_is_lost_midway_is_answered_from_a_fresh_connection(
    lost_midway: tuple[httpx.Client, Any, str, str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    """The pre-ping cannot help a connection lost after it: the GET is asked again, once, before any 503."""
    api, app, game, _, admin = lost_midway
    before = api.get(f"/games/{game}")
    assert before.status_code == 200
    lost = lose_the_connection_of_the_next_statement(app.state.server.games.store.engine, admin)
    answer = api.get(f"/games/{game}")
    assert lost, "no statement ran"
    assert answer.status_code == 200, answer.text
    assert answer.json()["state"] == before.json()["state"]
    assert f"database connection lost on GET /games/{game}: asked again on a fresh connection" in logged(caplog)
    assert api.get("/health").status_code == 200


def test_a_move_whose_connection_is_lost_is_503_and_not_played_by_the_server_again(
    lost_midway: tuple[httpx.Client, Any, str, str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    """A write is not tried again by the server (it cannot know whether a lost commit committed): the
    client is told 503, nothing was played, and the same move sent again is played once."""
    api, app, game, token, admin = lost_midway
    seq = api.get(f"/games/{game}").json()["state"]["version"]
    lost = lose_the_connection_of_the_next_statement(app.state.server.games.store.engine, admin)
    draw = {"player": "you", "source": "stock"}
    moved = api.post(f"/games/{game}/draw", json=draw, headers={"authorization": f"Bearer {token}"})
    assert lost and moved.status_code == 503, moved.text
    assert "asked again" not in logged(caplog)
    assert api.get(f"/games/{game}").json()["state"]["version"] == seq
    again = api.post(f"/games/{game}/draw", json=draw, headers={"authorization": f"Bearer {token}"})
    assert again.status_code == 200, again.text
    assert again.json()["state"]["version"] == seq + 1


@pytest.fixture
def signed_and_lost(db_url: str, request: pytest.FixtureRequest,
                    caplog: pytest.LogCaptureFixture) -> Iterator[tuple[Signer, Any, str, str | None]]:
    """A server of accounts only and a game of ann's there: (ann, the app, the game, the admin URL that cuts
    connections: None on SQLite)."""
    admin = request.getfixturevalue("postgres_url") if db_url.startswith("postgresql") else None
    caplog.set_level(logging.INFO, logger="scat.server")
    with app_in_thread(migrated(db_url), tokens=False) as (url, app), httpx.Client(base_url=url, timeout=30) as api:
        ann = Signer(api, "ann")
        body = json.dumps({"players": [{"name": "ann"}, {"name": "bob", "is_bot": True}]}).encode()
        created = ann.post("/games", body)
        assert created.status_code == 201, created.text
        yield ann, app, created.json()["game_id"], admin


def test_a_signed_read_is_answered_whichever_of_its_statements_loses_its_connection(
    signed_and_lost: tuple[Signer, Any, str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    """The second try is the request as received: its body (which the signature covers) given again, and its
    nonce, spent by the first try or not, its own: never a hang until the client gives up, never a replay."""
    ann, app, game, admin = signed_and_lost
    before = ann.get(f"/games/{game}")
    engine = app.state.server.games.store.engine
    for skipped in range(40):
        target = f"/games/{game}"
        with connection_lost_at(engine, admin, skipped) as lost:
            answer = ann.api.get(target, headers=ann.headers("GET", target))
        assert answer.status_code == 200, (skipped, lost, answer.text)
        assert answer.json()["state"] == before["state"]
        if not lost:  # the read ran fewer statements than skipped: each of them was lost once
            break
    else:
        raise AssertionError("a read of more than 40 statements")
    assert skipped >= 2, "the read's statements were not all lost in turn"
    assert f"database connection lost on GET /games/{game}: asked again" in logged(caplog)
    replayed = ann.api.get(f"/games/{game}", headers=ann.headers("GET", f"/games/{game}"))
    assert replayed.status_code == 200  # a fresh nonce: fine; the same headers sent again are a replay:
    again = ann.api.get(f"/games/{game}", headers=replayed.request.headers)
    assert again.status_code == 401 and "replay" in again.text, again.text


def test_a_signed_move_whichever_of_its_statements_loses_its_connection_is_503_or_played_once(
    signed_and_lost: tuple[Signer, Any, str, str | None], caplog: pytest.LogCaptureFixture
) -> None:
    """A write is never tried again by the server: each statement of a move lost in turn is a 503 with
    nothing recorded, and the same move signed again is played once."""
    from scat_core.domain import commands as cmd

    ann, app, _, admin = signed_and_lost
    engine = app.state.server.games.store.engine
    body = json.dumps({"players": [{"name": "ann"}, {"name": "bob", "is_bot": True}]}).encode()
    for skipped in range(60):
        created = ann.post("/games", body)
        assert created.status_code == 201, created.text
        game = created.json()["game_id"]
        head = ann.get(f"/games/{game}/head")["seq"]
        move = ann.move_body(game, cmd.Draw(player="ann", source="stock"))
        with connection_lost_at(engine, admin, skipped) as lost:
            moved = ann.post(f"/games/{game}/moves", move)
        if not lost:
            assert moved.status_code == 200, moved.text
            break
        assert moved.status_code == 503, (skipped, lost, moved.text)
        assert ann.get(f"/games/{game}/head")["seq"] == head, f"statement {skipped} lost, yet the move was recorded"
        again = ann.move(game, cmd.Draw(player="ann", source="stock"))["state"]
        assert again["version"] == head + 2 and again["phase"] == "discard"  # its MoveSigned and its draw, once
    else:
        raise AssertionError("a move of more than 60 statements")
    assert skipped >= 2 and "asked again" not in logged(caplog)


@pytest.mark.postgres
def test_every_backend_terminated_under_signed_reads_and_moves_loses_no_read_and_no_acknowledged_move(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """pg_terminate_backend on every connection of the server while readers and a mover are at work: each
    read is answered (a lost one asked again as received), each move is played or told 503, and every move
    acknowledged is in the log. A server asks a lost read again once: the next cut waits until every reader
    has had an answer since the last one (else a loaded machine could cut a read's second try too)."""
    import threading

    from scat_core.domain import commands as cmd

    caplog.set_level(logging.INFO, logger="scat.server")
    name = f"scat_cut_{uuid.uuid4().hex[:10]}"
    db = make_url(migrated(postgres_url)).update_query_dict({"application_name": name})
    with app_in_thread(db.render_as_string(hide_password=False), tokens=False) as (url, _), \
            httpx.Client(base_url=url, timeout=30) as api:
        ann = Signer(api, "ann")
        body = json.dumps({"players": [{"name": "ann"}, {"name": "bob", "is_bot": True}]}).encode()
        game = ann.post("/games", body).json()["game_id"]
        reads: list[int | str] = []
        answered = [0, 0, 0]  # reads answered, per reader
        moves: list[tuple[int | str, int]] = []  # (status or what went wrong, the version it answered)
        done = threading.Event()

        def read(reader: int) -> None:
            with httpx.Client(base_url=url, timeout=30) as own:
                while not done.is_set():
                    target = f"/games/{game}"
                    try:
                        reads.append(own.get(target, headers=ann.headers("GET", target)).status_code)
                    except httpx.HTTPError as error:
                        reads.append(repr(error))
                    answered[reader] += 1

        def move() -> None:
            try:
                moving()
            except (httpx.HTTPError, AssertionError) as error:
                moves.append((repr(error), 0))

        def moving() -> None:
            for _ in range(12):
                state = ann.get(f"/games/{game}?as=ann")["state"]
                if state["status"] != "active":
                    return
                command: cmd.PlayerCommand = (cmd.Draw(player="ann", source="stock") if state["phase"] == "draw" else
                                              cmd.Discard(player="ann", card=state["hands"][0][0]))
                moved = ann.post(f"/games/{game}/moves", ann.move_body(game, command))
                moves.append((moved.status_code, moved.json()["state"]["version"] if moved.status_code == 200 else 0))

        readers = [threading.Thread(target=read, args=(reader,)) for reader in range(len(answered))]
        for reader in readers:
            reader.start()
        mover = threading.Thread(target=move)
        mover.start()
        admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
        cut = 0
        for step in range(5):  # between the moves, while the readers read
            while mover.is_alive() and len(moves) < 2 * step:
                time.sleep(0.001)
            since = list(answered)
            while any(now <= then for now, then in zip(answered, since, strict=True)) and mover.is_alive():
                time.sleep(0.001)  # every read in flight at the last cut is answered
            with admin.connect() as conn:
                cut += conn.execute(text("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                         "WHERE application_name = :name AND pid <> pg_backend_pid()"),
                                    {"name": name}).scalar_one()
        mover.join()
        done.set()
        for reader in readers:
            reader.join()
        admin.dispose()
        assert cut >= 5 and reads and len(moves) == 12, moves
        assert set(reads) == {200}, sorted(set(reads), key=str)
        assert {status for status, _ in moves} <= {200, 503}, moves
        log = ann.get(f"/games/{game}/log")
        recorded = {event["seq"] for event in log["events"]}
        assert all(version in recorded for status, version in moves if status == 200)

"""Usage and database errors: one plain line on stderr, the contract's exit code, no traceback."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from scat_core.store.sql.database import HEAD_REVISION, make_engine
from tests.support.cli import Scat, new_game, one_line_error

LEAKED_WORDING = ("Value error", "Input should", "Choose from", "\t")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("draw", "GAME", "--as", "you"), "missing the draw source: write stock or discard (see `scat draw --help`)"),
        (("draw", "GAME", "--as", "you", "top"),
         "'top' is not a draw source: write stock or discard (see `scat draw --help`)"),
        (("new", "--player", "a", "--player", "b", "--lives", "0"), "--lives must be from 1 to 9, not 0"),
        (("new", "--player", "a", "--player", "b", "--lives", "12"), "--lives must be from 1 to 9, not 12"),
        (("new", "--player", "a", "--player", "b", "--lives", "x"), "--lives needs a whole number, not 'x'"),
        (("new", "--player", "a", "--player", "b", "--min-knock", "40"), "--min-knock must be from 1 to 30, not 40"),
        (("games", "--status"), "Option '--status' requires an argument (see `scat games --help`)"),
        (("games", "--status", "open"), "'open' is not a game status: write pending, active, finished or cancelled"),
        (("export", "GAME", "--format", "pdf"), "'pdf' is not an export format: write jsonl, json or text"),
        (("show", "GAME", "--as"), "(see `scat show --help`)"),
        (("replay", "GAME", "--to", "last"), "--to needs a whole number, not 'last'"),
        (("--bogus",), "No such option: --bogus (see `scat --help`)"),
    ],
)
def test_every_usage_error_is_one_plain_line_pointing_at_the_commands_help(
    scat: Scat, scat_json: Scat, args: tuple[str, ...], message: str
) -> None:
    game = new_game(scat_json)
    result = scat(*(game if arg == "GAME" else arg for arg in args))
    assert result.exit_code == 2, result.output
    line = one_line_error(result)
    assert line.startswith("scat: error: ") and message in line
    assert not any(leak in line for leak in LEAKED_WORDING), line


@pytest.mark.parametrize("command", ["discard", "draw", "show", "replay"])
def test_usage_lines_name_the_arguments_plainly(scat: Scat, command: str) -> None:
    usage = scat(command, "--help").stdout.splitlines()[0]
    assert usage.startswith(f"Usage: scat {command} [OPTIONS] GAME") and "{" not in usage


def test_an_empty_db_url_is_refused_not_taken_for_the_default(scat: Scat) -> None:
    for args in (("games",), ("rules", "R1")):
        result = scat("--db", "", *args)
        assert result.exit_code == 2
        assert one_line_error(result).startswith("scat: error: --db needs a URL")


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///:memory:"])
def test_an_in_memory_sqlite_database_is_refused_with_exit_2(scat: Scat, url: str) -> None:
    for env in ({}, {"SCAT_DB_URL": url}):
        result = scat(*(("--db", url) if not env else ()), "new", "--player", "you", "--bot", "ann", env=env)
        assert result.exit_code == 2, result.output
        line = one_line_error(result)
        assert "in-memory database: its games would vanish" in line and "give a file path" in line


def test_a_database_of_a_newer_scat_is_refused_with_exit_2_and_left_alone(scat: Scat, cli_db: str) -> None:
    engine = make_engine(cli_db)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    engine.dispose()
    for args in (("games",), ("db", "upgrade")):
        result = scat(*args)
        assert result.exit_code == 2
        assert one_line_error(result) == (
            f"scat: error: the database at {cli_db} has schema revision 0099, newer than this scat knows "
            f"({HEAD_REVISION}): upgrade scat"
        )


def test_a_password_in_the_url_is_never_printed(scat: Scat) -> None:
    for url in ("nope://bob:s3cret@host/db", "postgresql+psycopg://bob:s3cret@127.0.0.1:1/scat"):
        result = scat("--db", url, "games")
        assert result.exit_code == 2
        line = one_line_error(result)
        assert "s3cret" not in line and "bob:***@" in line


def raising(error: Exception) -> object:
    def fail(*_: object, **__: object) -> None:
        raise error

    return fail


def test_a_lost_database_connection_is_one_line_with_exit_2(
    scat: Scat, cli_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy.exc import OperationalError

    from scat_core.store.sql import games_list

    lost = OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly\nmore"))
    monkeypatch.setattr(games_list, "list_games", raising(lost))  # inside the store, which says what it means
    result = scat("games")
    assert result.exit_code == 2
    assert one_line_error(result) == (
        f"scat: error: cannot use database {cli_db}: server closed the connection unexpectedly"
    )


def test_any_other_database_error_is_one_line_with_exit_1(scat: Scat, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.exc import ProgrammingError

    from scat_core.store.sql import games_list

    broken = ProgrammingError("SELECT", {}, Exception('relation "games" does not exist'))
    monkeypatch.setattr(games_list, "list_games", raising(broken))
    result = scat("games")
    assert result.exit_code == 1
    line = one_line_error(result)
    assert 'refused the request: relation "games" does not exist' in line and "scat db upgrade" in line


def test_a_defect_of_scats_is_one_line_saying_nothing_was_written_never_a_traceback(
    scat: Scat, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scat_core.service.games import GameService

    monkeypatch.setattr(GameService, "games_page", raising(ZeroDivisionError("a bug")))
    result = scat("games")
    assert result.exit_code == 1
    assert one_line_error(result) == ("scat: error: scat failed unexpectedly (ZeroDivisionError: a bug); nothing "
                                      "was written. This is a fault of scat's: SCAT_DEBUG=1 shows the details to "
                                      "report")


def test_scat_debug_shows_the_traceback_of_a_defect_for_its_report(
    scat: Scat, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scat_core.service.games import GameService

    monkeypatch.setattr(GameService, "games_page", raising(ZeroDivisionError("a bug")))
    monkeypatch.setenv("SCAT_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        scat("games")


def test_db_check_of_a_newer_scats_database_says_to_upgrade_scat_not_the_database(scat: Scat, cli_db: str) -> None:
    # `db upgrade` refuses such a database (above): check must not send the user there.
    engine = make_engine(cli_db)
    for revision, advice in (("0099", "the database is newer than this scat: upgrade scat"),
                             ("0001", f"run `scat --db {cli_db} db upgrade`")):  # hints name --db as given
        with engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = :revision"), {"revision": revision})
        checked = scat("--db", cli_db, "db", "check")
        assert checked.exit_code == 1 and checked.stdout.splitlines()[-1] == f"NOT OK: {advice}", checked.output
    engine.dispose()


def test_an_empty_file_name_is_no_file_given_not_the_current_folder(scat: Scat, scat_json: Scat) -> None:
    result = scat("import", "")
    assert result.exit_code == 2 and "no file given" in one_line_error(result)
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    exported = scat("export", game, "-o", "")
    assert exported.exit_code == 2 and "no file given: --output is empty" in one_line_error(exported)


def test_a_read_only_database_is_named_by_the_url_given(
    scat: Scat, scat_json: Scat, cli_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(scat_json)
    from scat_core.store.sql import database

    real_access = os.access
    monkeypatch.setattr(database.os, "access", lambda path, mode: mode != os.W_OK and real_access(path, mode))
    refused = scat("draw", game, "--as", "you", "stock")
    line = one_line_error(refused)
    assert refused.exit_code != 0 and "read-only" in line
    assert cli_db in line and "mode=ro" not in line and "file%3A" not in line

"""#14 item 7 (and the audit --all part of item 8): damaged data and hostile environments give one
line and the contract's exit code, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import CorruptHistory
from scat_core.store.sql.database import make_engine
from tests.support.cli import Scat, finished_game, new_game, one_line_error, real_scat
from tests.support.databases import migrated
from tests.support.store import tamper


def running_game(url: str) -> str:
    return open_database(migrated(url)).playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="bob",
                                                                                         is_bot=True)]).game_id


def break_games_row(url: str, game_id: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE games SET players = '[broken' WHERE game_id = :g"), {"g": game_id})
    engine.dispose()


def test_a_games_row_with_broken_json_is_one_error_and_the_audit_blames_the_row(db_url: str) -> None:
    """JSONDecodeError from `games`, `show`, `export --all`; the audit blamed the history."""
    service = open_database(migrated(db_url))
    game = running_game(db_url)
    break_games_row(db_url, game)
    with pytest.raises(CorruptHistory, match="games list entry of game .* is damaged"):
        service.reading.list_games()
    report = service.audit(game)
    assert not report.ok and "games list entry" in report.problems[0]
    assert [r.ok for r in service.audit_all()] == [False]


def test_the_cli_says_one_line_for_a_broken_games_row(scat: Scat, scat_json: Scat, cli_db: str,
                                                            tmp_path: Path) -> None:
    game = new_game(scat_json)
    break_games_row(cli_db, game)
    for args in (("games",), ("show", game), ("export", "--all", "-o", str(tmp_path / "out"), "--running")):
        result = scat(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "games list entry" in one_line_error(result)
    audit = scat("audit", game)
    assert audit.exit_code == 1 and "games list entry" in audit.stdout and "replayed" not in audit.stdout


def test_a_non_integer_seq_is_one_error_and_a_failed_audit(scat: Scat, scat_json: Scat, cli_db: str) -> None:
    """A seq of 'x' (SQLite keeps text in an INTEGER column) gave an IndexError."""
    game = finished_game(scat_json)
    tamper(cli_db, "UPDATE events SET seq = 'x' WHERE game_id = :g AND seq = 2", g=game)
    for args in (("show", game), ("log", game), ("replay", game), ("export", game)):
        result = scat(*args)
        assert result.exit_code == 1 and "damaged" in one_line_error(result), args
    audit = scat("audit", game)
    assert audit.exit_code == 1 and "FAILED at event 2" in audit.stdout


def test_an_event_nested_3000_deep_is_a_failed_audit(scat: Scat, scat_json: Scat, cli_db: str) -> None:
    """RecursionError in `audit` (and `export`) of an event nested 3,000 deep."""
    game = finished_game(scat_json)
    deep = '{"player": ' + "[" * 3000 + "]" * 3000 + "}"
    tamper(cli_db, "UPDATE events SET data = :d WHERE game_id = :g AND seq = 2", d=deep, g=game)
    audit = scat("audit", game)
    assert audit.exit_code == 1 and "FAILED at event 2" in audit.stdout
    assert "Traceback" not in scat("export", game).output
    assert "Traceback" not in scat("show", game).output  # a snapshot may serve it: the audit names the event


def test_one_unreadable_row_fails_its_game_and_audit_all_goes_on(scat: Scat, scat_json: Scat,
                                                                      cli_db: str) -> None:
    """A row SQLite cannot decode stopped `audit --all` with exit 2."""
    broken, sound = finished_game(scat_json), finished_game(scat_json)
    tamper(cli_db, "UPDATE events SET data = CAST(x'7bff7d' AS TEXT) WHERE game_id = :g AND seq = 2", g=broken)
    result = scat("audit", "--all", "--json")
    assert result.exit_code == 1, result.output
    reports = {r["game_id"]: r for r in json.loads(result.stdout)["games"]}
    assert reports[sound]["ok"] and not reports[broken]["ok"]
    assert "cannot be read" in reports[broken]["problems"][0]
    single = scat("log", broken)  # show may be served by the snapshot; log reads every row
    assert single.exit_code == 1 and "cannot be read" in one_line_error(single)


def test_xdg_data_home_pointing_at_a_file_is_one_line(tmp_path: Path) -> None:
    """NotADirectoryError when the default data folder cannot be made."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = real_scat("games", XDG_DATA_HOME=str(blocker))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "--db URL" in result.stderr


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_json_and_exports_to_a_full_stdout_are_one_line(tmp_path: Path) -> None:
    """`--json` or `export` to `> /dev/full` gave an OSError traceback."""
    url = f"sqlite:///{tmp_path / 'full.db'}"
    game = finished_game_via_service(url)
    for args in (("show", game, "--json"), ("export", game), ("games",), ("log", game)):
        with open("/dev/full", "w") as full:
            result = real_scat("--db", url, *args, stdout=full)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr == "scat: error: cannot write the output: No space left on device\n"


def finished_game_via_service(url: str) -> str:
    bots = [PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)]
    from scat_core.domain.options import GameOptions

    return open_database(migrated(url)).playing.create_game(bots, options=GameOptions(lives=1)).game_id


def test_an_import_nested_100000_deep_is_exit_2(scat: Scat, tmp_path: Path) -> None:
    """`import` of `[[[...]]]` 100,000 deep raised RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = scat("import", str(path))
    assert result.exit_code == 2 and "deeper" in one_line_error(result)

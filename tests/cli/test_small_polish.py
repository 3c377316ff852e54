"""Small things a new user trips on: --version, empty file names, --db after the command, a BOM."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import Scat, one_line_error


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"scat {version('scat')}"


def test_an_empty_file_name_is_no_file_given_not_the_current_folder(scat: Scat, scat_json: Scat) -> None:
    result = scat("import", "")
    assert result.exit_code == 2 and "no file given" in one_line_error(result)
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    exported = scat("export", game, "-o", "")
    assert exported.exit_code == 2 and "no file given: --output is empty" in one_line_error(exported)


def test_db_after_the_command_says_it_goes_before(scat: Scat) -> None:
    result = scat("stats", "--db", "sqlite:///x.db")
    assert result.exit_code == 2
    assert "--db is a global option: give it before the command (`scat --db URL stats ...`)" in one_line_error(result)


def test_an_export_saved_with_a_utf8_bom_is_imported(scat: Scat, scat_json: Scat, tmp_path: Path,
                                                      migrated_sqlite: Path) -> None:
    import shutil

    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    for suffix in ("jsonl", "json"):
        path = tmp_path / f"g.{suffix}"
        assert scat("export", game, "-o", str(path)).exit_code == 0
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        other = tmp_path / f"other-{suffix}.db"
        shutil.copy(migrated_sqlite, other)
        result = scat("import", str(path), env={"SCAT_DB_URL": f"sqlite:///{other}"})
        assert result.exit_code == 0, result.output


def test_a_group_without_a_command_prints_its_help_the_same_way() -> None:
    bare, db = CliRunner().invoke(app, []), CliRunner().invoke(app, ["db"])
    assert bare.exit_code == db.exit_code == 2
    assert "Usage: scat [OPTIONS] COMMAND" in bare.stderr and "Usage: scat db [OPTIONS] COMMAND" in db.stderr
    assert bare.stdout == db.stdout == ""

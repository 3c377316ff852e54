"""The global options given before the command: `--version`, and `--db` given after it."""

from __future__ import annotations

from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import Scat, one_line_error


def test_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"scat {version('scat')}"


def test_db_after_the_command_says_it_goes_before(scat: Scat) -> None:
    result = scat("stats", "--db", "sqlite:///x.db")
    assert result.exit_code == 2
    assert "--db is a global option: give it before the command (`scat --db URL stats ...`)" in one_line_error(result)

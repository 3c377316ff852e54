"""The global options given before the command: `--version`, and `--db` given after it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
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


def test_version_json_names_scat_the_rules_versions_and_the_schema_revision_without_opening_a_database() -> None:
    from importlib.metadata import version

    from scat_core.store.sql.database import HEAD_REVISION

    result = CliRunner().invoke(app, ["--db", "sqlite:////no/such/folder/scat.db", "version", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"scat": version("scat"), "rules_versions": [1, 2, 3],
                                         "rules_version_of_new_games": 3, "schema_revision": HEAD_REVISION}
    human = CliRunner().invoke(app, ["version"]).stdout.splitlines()
    assert human == [f"scat {version('scat')}", "rules versions 1, 2, 3 (new games: 3)",
                     f"schema revision {HEAD_REVISION}"]


def test_version_imports_no_sqlalchemy() -> None:
    code = ("import sys; sys.argv = ['scat', 'version']\nfrom scat_cli.app import main\ntry:\n    main()\n"
            "except SystemExit:\n    pass\nprint('sqlalchemy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "False"


@pytest.mark.parametrize(("given", "env", "said"), [
    (("--db", "postgres://me@db.example.org/scat"), {},
     "--db: write postgresql+psycopg:// instead of postgres:// (e.g. postgresql+psycopg://me@db.example.org/scat)"),
    ((), {"SCAT_DB_URL": "postgres://me:secret@db.example.org/scat"},
     "SCAT_DB_URL: write postgresql+psycopg:// instead of postgres:// (e.g. postgresql+psycopg://me:***@db.example.org/scat)"),
    (("--db", "sqlite:///no-such-folder/x.db"), {},
     "cannot open database sqlite:///no-such-folder/x.db: there is no folder no-such-folder in the current folder "
     "(no-such-folder/x.db is relative to the current folder: for the absolute path /no-such-folder/x.db write "
     "four slashes, sqlite:////no-such-folder/x.db)"),
    (("--server", "127.0.0.1:8731"), {},
     "--server needs a URL starting with http:// or https://, e.g. http://127.0.0.1:8731"),
    (("--server", "ftp://scat.example.org"), {},  # another scheme is not written after http://
     "--server needs a URL starting with http:// or https://, e.g. http://127.0.0.1:8031"),
])
def test_a_mistyped_database_or_server_url_is_one_friendly_line(scat: Scat, given: tuple[str, ...],
                                                                 env: dict[str, str], said: str) -> None:
    result = scat(*given, "games", env={"SCAT_DB_URL": None, **env})
    assert result.exit_code == 2 and one_line_error(result) == f"scat: error: {said}"

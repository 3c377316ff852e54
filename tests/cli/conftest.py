"""CLI test helpers: a migrated SQLite file per test (copied, fast), `scat` in-process, decks.

`scat(*args)` runs the command line in-process with typer's CliRunner against this test's
database and returns the result; `scat_json(*args)` adds --json and parses stdout.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import Scat
from tests.support.databases import migrated
from tests.support.live_server import server_process


@pytest.fixture
def cli_db(tmp_path: Path) -> str:
    """A fresh, migrated SQLite database for this test."""
    return migrated(f"sqlite:///{tmp_path / 'cli.db'}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run a test once in each mode its `cli_modes` marker names (a module's `pytestmark`, or the test's).

    One mode needs no parameter (the test id stays bare); a test that parametrizes `cli_mode` itself wins.
    """
    marker = metafunc.definition.get_closest_marker("cli_modes")
    if marker is None or len(marker.args) < 2 or "cli_mode" not in metafunc.fixturenames:
        return
    if any("cli_mode" in parametrized_names(mark) for mark in metafunc.definition.iter_markers("parametrize")):
        return
    metafunc.parametrize("cli_mode", marker.args, indirect=True)


def parametrized_names(mark: pytest.Mark) -> list[str]:
    """The argument names a `parametrize` mark gives values to."""
    names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
    return [name.strip() for name in names.split(",")] if isinstance(names, str) else list(names)


@pytest.fixture
def cli_mode(request: pytest.FixtureRequest) -> str:
    """How `scat` reaches the games: "local" (a database), or "server"/"server-postgres" (--server).

    "local" unless the module (or test) is marked with the modes it runs in: `pytestmark = EVERY_MODE`
    (or LOCAL_AND_SERVER, SERVER_ONLY from tests.support.cli).
    """
    if hasattr(request, "param"):
        return str(request.param)
    marker = request.node.get_closest_marker("cli_modes")
    return str(marker.args[0]) if marker is not None else "local"


@pytest.fixture
def games_db(cli_mode: str, cli_db: str, request: pytest.FixtureRequest) -> str:
    """The database this test's games are kept in (the server's, in a --server mode)."""
    return migrated(str(request.getfixturevalue("postgres_url"))) if cli_mode == "server-postgres" else cli_db


@pytest.fixture
def scat_env(cli_mode: str, games_db: str, request: pytest.FixtureRequest) -> Iterator[dict[str, str | None]]:
    """The environment of `scat` in this mode: SCAT_DB_URL, or SCAT_SERVER of a live server."""
    if cli_mode == "local":
        yield {"SCAT_DB_URL": games_db, "SCAT_SERVER": None}
        return
    local_only = request.node.get_closest_marker("local_only")
    if local_only is not None:
        pytest.skip(f"local only: {local_only.args[0] if local_only.args else 'about the database itself'}")
    from tests.support.live_server import server_in_thread

    with server_in_thread(games_db) as url:
        yield {"SCAT_SERVER": url, "SCAT_DB_URL": None}


@pytest.fixture
def scat(scat_env: dict[str, str | None]) -> Iterator[Scat]:
    """Run `scat ARGS...` in-process on this test's db (SCAT_DB_URL) or server; returns the click Result."""
    runner = CliRunner()

    def run(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> Any:
        environment = {**scat_env, "SCAT_TOKEN": "", **(env or {})}
        return runner.invoke(app, list(args), env=environment, input=input, catch_exceptions=False)

    yield run


@pytest.fixture
def scat_json(scat: Scat) -> Scat:
    """Run a command with --json, assert it succeeded, and return the parsed document."""

    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        result = scat(*args, "--json", env=env)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    return run


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres),
                        "server-sqlite", pytest.param("server-postgres", marks=pytest.mark.postgres)])
def places(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    """The environments of the waiting process and of the moving one (two servers on PostgreSQL)."""
    kind = str(request.param)
    db = f"sqlite:///{tmp_path / 'games.db'}" if kind.endswith("sqlite") else str(
        request.getfixturevalue("postgres_url"))
    migrated(db)
    base = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_TOKEN": ""}
    if not kind.startswith("server"):
        env = {**base, "SCAT_DB_URL": db, "SCAT_SERVER": ""}
        yield env, env
        return
    with ExitStack() as stack:
        first, _ = stack.enter_context(server_process(db, "--testing"))
        second = first
        if kind == "server-postgres":
            second, _ = stack.enter_context(server_process(db, "--testing"))
        yield {**base, "SCAT_SERVER": first}, {**base, "SCAT_SERVER": second}

"""The `--server` client loads only what a client needs: nothing of the database side, no HTTP server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.databases import migrated
from tests.support.live_server import server_in_thread
from tests.support.loaded_modules import loaded, not_a_clients

#: What a player's `show` or move through a server has no use for either: the rules, the audit, the
#: maintenance commands, the accounts' decider and service (their pydantic adapters are built at
#: import; the CLI's exit codes need only their errors, in scat_core.domain.errors): the
#: server decides (#26 item 2). Nor the request bodies the server validates (wire/bodies.py; the client
#: reads answers.py).
NOT_A_PLAYERS = ("scat_core.domain.decide", "scat_core.domain.audit", "scat_cli.db_commands", "scat_cli.key_commands",
                 "scat_core.domain.accounts", "scat_core.service.accounts", "scat_cli.wire.bodies")
#: What a `show` through a server has no use for besides: nothing more since the moves it offers are
#: the domain's legal moves, each holding its command (scat_core.domain.commands, about 7 ms to load).
NOT_A_LOOKERS: tuple[str, ...] = ()


@pytest.fixture
def served(sqlite_url: str) -> Iterator[str]:
    """The base URL of a live `scat serve` over a migrated SQLite database."""
    with server_in_thread(migrated(sqlite_url)) as url:
        yield url


def test_show_and_a_move_through_a_server_load_nothing_of_the_database_or_the_server(
    served: str, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_DB_URL": "", "SCAT_SERVER": ""}
    env.pop("SCAT_TOKEN", None)
    scat = Path(sys.executable).parent / "scat"
    game = subprocess.run([scat, "--server", served, "new", "-q", "--player", "ann", "--bot", "bob", "--dealer", "bob"],
                          env=env, capture_output=True, text=True, check=True).stdout.split()[0]
    for command in (["show", game, "--as", "ann"], ["draw", game, "stock", "--as", "ann"]):
        code, modules, errors = loaded(["--server", served, *command], env)
        assert code == 0, errors
        assert "scat_cli.remote.client" in modules  # it did go through the server
        assert not_a_clients(modules) == [], command
        assert not_a_clients(modules, NOT_A_PLAYERS) == [], command
        assert command[0] != "show" or not_a_clients(modules, NOT_A_LOOKERS) == []


def test_an_accounts_show_and_signed_move_load_no_more(served: str, tmp_path: Path) -> None:
    """Signed by the user's key (his requests and his moves), a client still loads no accounts'
    models (the key id is a hash, scat_core.records.signing) nor anything of the database."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_DB_URL": "", "SCAT_SERVER": "",
           "SCAT_KEY_FILE": str(tmp_path / "keys" / "ann.pem")}
    env.pop("SCAT_TOKEN", None)
    env.pop("SCAT_AS", None)
    scat = Path(sys.executable).parent / "scat"
    subprocess.run([scat, "--server", served, "account", "register", "ann"], env=env, capture_output=True,
                   check=True)
    game = subprocess.run([scat, "--server", served, "new", "-q", "--player", "ann", "--bot", "bob", "--dealer", "bob"],
                          env=env, capture_output=True, text=True, check=True).stdout.split()[0]
    for command in (["show", game], ["draw", game, "stock"]):
        code, modules, errors = loaded(["--server", served, *command], env)
        assert code == 0, errors
        assert "scat_cli.remote.identity" in modules  # it did sign as the account
        assert not_a_clients(modules) == [], command
        assert not_a_clients(modules, NOT_A_PLAYERS) == [], command

"""The keys of servers: `GET /key`, `scat --server URL key show`, `scat key trust --server URL`, and how
imports and audits name them."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from scat_core.records.signing import key_id_of
from tests.support.cli import SERVER_ONLY, Scat, finished_game
from tests.support.databases import migrated

pytestmark = SERVER_ONLY  # A live server (`scat serve` in a thread) keeps the games.


@pytest.fixture
def server(scat_env: dict[str, str | None]) -> str:
    return str(scat_env["SCAT_SERVER"])


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[dict[str, str | None]]:
    """Another installation: its own key and database, no server in its environment."""
    yield {"SCAT_SERVER": None, "SCAT_DB_URL": migrated(f"sqlite:///{tmp_path / 'mine.db'}"),
           "SCAT_KEY_FILE": str(tmp_path / "mine" / "key.pem")}


def test_get_key_and_key_show_with_server_give_the_key_that_signs_the_servers_games(
        scat: Scat, scat_json: Scat, server: str, elsewhere: dict[str, str | None]) -> None:
    import urllib.request

    with urllib.request.urlopen(f"{server}/key") as response:
        sent = json.load(response)
    assert set(sent) == {"algorithm", "key_id", "public_key"} and sent["key_id"] == key_id_of(sent["public_key"])
    game = finished_game(scat_json)
    exported = json.loads(scat("export", game).stdout.splitlines()[-1])["head_signature"]
    assert exported["public_key"] == sent["public_key"]
    shown = json.loads(scat("--server", server, "key", "show", "--json", env=elsewhere).stdout)
    assert shown == {**sent, "server": server}
    mine = json.loads(scat("key", "show", "--json", env=elsewhere).stdout)
    assert mine["public_key"] != sent["public_key"]  # without --server: this installation's own
    human = scat("--server", server, "key", "show", env=elsewhere).stdout
    assert f"public key  {sent['public_key']}" in human and f"`scat key trust --server {server}` trusts it" in human


def test_key_trust_server_trusts_the_servers_key_so_its_exports_verify_here(
        scat: Scat, scat_json: Scat, server: str, elsewhere: dict[str, str | None], tmp_path: Path) -> None:
    game = finished_game(scat_json)
    path = tmp_path / "game.jsonl"
    assert scat("export", game, "-o", str(path)).exit_code == 0
    trusted = scat("key", "trust", "--server", server, "--json", env=elsewhere)
    assert trusted.exit_code == 0, trusted.output
    document = json.loads(trusted.stdout)
    assert (document["added"], document["server"]) == (True, server)
    imported = scat("import", str(path), "--strict", env=elsewhere)
    assert imported.exit_code == 0 and "export signed by a trusted key" in imported.stdout
    assert "trusted already" in scat("key", "trust", "--server", server, env=elsewhere).stdout
    neither = scat("key", "trust", env=elsewhere)
    assert neither.exit_code == 2 and "give a KEY|FILE or --server URL" in neither.stderr


def test_an_import_signed_by_an_unknown_key_prints_a_key_trust_command_that_works_when_pasted(
        scat: Scat, scat_json: Scat, elsewhere: dict[str, str | None], tmp_path: Path) -> None:
    game = finished_game(scat_json)
    path = tmp_path / "game.jsonl"
    assert scat("export", game, "-o", str(path)).exit_code == 0
    imported = scat("import", str(path), env=elsewhere)
    assert imported.exit_code == 0 and "which is not known here: NOT verified" in imported.stdout
    pasted = re.search(r"run `(scat key trust [^`]+)`", imported.stdout)
    assert pasted is not None, imported.stdout
    words = shlex.split(pasted.group(1))
    assert scat(*words[1:], env=elsewhere).exit_code == 0
    assert json.loads(scat("audit", game, "--json", env=elsewhere).stdout)["origin_signature"] == "valid"


def test_audit_through_a_server_names_the_servers_key_as_the_servers(scat: Scat, scat_json: Scat,
                                                                       server: str) -> None:
    game = finished_game(scat_json)
    key_id = scat_json("--server", server, "key", "show")["key_id"]
    result = scat("--server", server, "audit", game)
    assert result.exit_code == 0
    assert result.stdout.rstrip().endswith(f"head signed by the server's key (the key of {server}) {key_id}")
    assert "this installation" not in result.stdout

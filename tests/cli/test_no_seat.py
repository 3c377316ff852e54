"""A NAME with no seat in the game gets one answer everywhere (scat_cli/seats.py): typed with `--as`,
exit 4 naming the players, locally and through a server; a default NAME (SCAT_AS, config.toml's
`as`, a server's account) falls back to the public view where anyone may look, and `wait` for
someone with no seat is refused at once, never a timeout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import EVERY_MODE, Scat, one_line_error
from tests.support.live_server import server_in_thread

pytestmark = EVERY_MODE


def a_game(scat_json: Scat) -> str:
    return str(scat_json("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--seed", "7")["game_id"])


def test_a_typed_name_with_no_seat_is_exit_4_naming_the_players_for_every_command(scat: Scat, scat_json: Scat) -> None:
    game = a_game(scat_json)
    for command in (["show", game], ["log", game], ["replay", game], ["watch", game],
                    ["wait", game, "--timeout", "60"]):
        refused = scat(*command, "--as", "nobody")
        assert refused.exit_code == 4, (command, refused.output)
        assert one_line_error(refused) == f"scat: error: no player 'nobody' in game {game} (players: you, bob)"


def test_a_default_name_with_no_seat_sees_the_public_view_and_its_wait_is_refused_at_once(
        scat: Scat, scat_json: Scat) -> None:
    game = a_game(scat_json)
    as_nobody = {"SCAT_AS": "nobody"}
    shown = scat("show", game, "--json", env=as_nobody)
    assert shown.exit_code == 0, shown.output
    assert "hand" not in json.loads(shown.stdout) and json.loads(shown.stdout)["game_id"] == game
    assert scat("log", game, env=as_nobody).exit_code == 0
    assert scat("replay", game, "--json", env=as_nobody).exit_code == 0
    waited = scat("wait", game, "--timeout", "60", env=as_nobody)
    assert waited.exit_code == 4 and "no player 'nobody'" in one_line_error(waited)
    assert scat("resign", game, "--as", "you").exit_code == 0  # over: a watch prints it all and ends
    watched = scat("watch", game, env=as_nobody)
    assert watched.exit_code == 0 and "GameWon" in watched.stdout


def account(server: str, keys: Path, name: str) -> Any:
    """`scat --server SERVER ARGS`, as the account `name` (his own key file; no --as unless given)."""

    def run(*args: str) -> Any:
        env = {"SCAT_SERVER": server, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "SCAT_AS": None,
               "SCAT_KEY_FILE": str(keys / f"{name}.pem")}
        return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)

    assert run("account", "register", name).exit_code == 0
    return run


@pytest.mark.local_only("its own server of accounts")
def test_an_account_with_no_seat_sees_the_public_view_by_default_and_is_refused_when_typed_or_waiting(
        cli_db: str, tmp_path: Path) -> None:
    with server_in_thread(cli_db, tokens=False) as server:
        ann, cy = account(server, tmp_path, "ann"), account(server, tmp_path, "cy")
        game = json.loads(ann("new", "--player", "ann", "--bot", "bob", "--json").stdout)["game_id"]
        public = cy("show", game, "--json")
        assert public.exit_code == 0 and "hand" not in json.loads(public.stdout), public.output
        typed = cy("show", game, "--as", "cy")
        assert typed.exit_code == 4, typed.output
        assert one_line_error(typed) == f"scat: error: no player 'cy' in game {game} (players: ann, bob)"
        waited = cy("wait", game, "--timeout", "60")  # his account, no seat: at once, not after 60 s
        assert waited.exit_code == 4 and "no player 'cy'" in one_line_error(waited), waited.output

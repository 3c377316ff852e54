"""Shell completion (Typer's own): command names, options, game ids from this database or server, card names."""

from __future__ import annotations

import os
import subprocess

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_core.domain.cards import DECK
from tests.support.cli import LOCAL_AND_SERVER, SCAT, Scat

pytestmark = LOCAL_AND_SERVER  # Game ids come from the database, or from the server.


def completed(scat_env: dict[str, str | None], line: str, shell: str = "bash") -> list[str]:
    """What `scat` offers for the last word of `line` (a line ending in a space: a new word), as `shell` asks."""
    words = line.split()
    current = len(words) if line.endswith(" ") else len(words) - 1
    env = {**scat_env, "_SCAT_COMPLETE": f"complete_{shell}", "COMP_WORDS": line, "COMP_CWORD": str(current),
           "_TYPER_COMPLETE_ARGS": line}
    result = CliRunner().invoke(app, [], env=env, prog_name="scat")
    assert result.exit_code == 0 and result.stderr == "", result.output
    return result.stdout.splitlines()


def test_a_partial_game_id_completes_to_the_games_here_that_start_with_it(
        scat: Scat, scat_env: dict[str, str | None]) -> None:
    ids = [scat("new", "-q", "--player", "you", "--bot", "ann").stdout.split()[0] for _ in range(6)]  # then tokens
    start = ids[0][:1]
    assert sorted(completed(scat_env, f"scat show {start}")) == sorted(g for g in ids if g.startswith(start))
    assert completed(scat_env, f"scat draw {ids[1][:4]}") == [ids[1]]
    described = completed(scat_env, f"scat log {ids[2][:6]}", shell="zsh")
    assert any(ids[2] in line and "you, ann (active)" in line for line in described), described


def test_command_names_and_options_complete(scat_env: dict[str, str | None]) -> None:
    assert completed(scat_env, "scat sh") == ["show"]
    assert {"--as", "--token", "--json"} <= set(completed(scat_env, "scat show --"))
    assert completed(scat_env, "scat config ") == ["show", "set", "unset"]
    assert completed(scat_env, "scat draw 0123456789 --as you ") == ["stock", "discard"]


def test_a_card_completes_to_the_cards_the_player_may_discard_now_or_else_to_the_deck(
        scat: Scat, scat_json: Scat, scat_env: dict[str, str | None]) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--dealer", "ann", "--seed", "5")["game_id"]
    assert completed(scat_env, f"scat discard {game} --as you ") in ([], [""])  # he must draw first (R12)
    taken = scat_json("show", game)["discard_top"]
    drew = scat_json("draw", game, "--as", "you", "discard")
    hand = scat_json("show", game, "--as", "you")["hand"]
    offered = completed(scat_env, f"scat discard {game} --as you ")
    assert taken in hand and sorted(offered) == sorted(card for card in hand if card != taken), drew  # R13
    assert completed(scat_env, "scat discard 0123456789 1") == [card for card in DECK if card.startswith("1")]


def test_completing_a_card_in_a_throw_down_game_records_no_look(scat: Scat, scat_json: Scat,
                                                                 scat_env: dict[str, str | None]) -> None:
    """A look would spend the player's throw down (R23): completion sees the game as `play` does."""
    game = scat_json("new", "--player", "you", "--bot", "ann", "--dealer", "ann", "--throw-down",
                     "--seed", "7")["game_id"]
    completed(scat_env, f"scat discard {game} --as you ")
    log = scat("log", game).stdout
    assert "ann looked at the hand dealt to ann" in log and "you looked" not in log  # still his to call


def test_completion_offers_nothing_when_the_games_cannot_be_reached(scat_env: dict[str, str | None]) -> None:
    assert completed({**scat_env, "SCAT_DB_URL": None}, "scat --server http://127.0.0.1:9 show 1") in ([], [""])


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_script_of_each_shell(shell: str) -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}  # Typer's: the shell is named
    result = subprocess.run([SCAT, "--show-completion", shell], capture_output=True, text=True, check=False, env=env)
    assert result.returncode == 0 and "_SCAT_COMPLETE" in result.stdout and f"complete_{shell}" in result.stdout

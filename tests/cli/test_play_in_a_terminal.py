"""The real `scat play` executable: full-screen in a pseudo-terminal, refused (exit 2) without one."""

from __future__ import annotations

import os
from pathlib import Path

import pexpect

from tests.support.cli import SCAT, Scat, one_line_error

#: How long the test waits at most for the screen (a generous guard against a hang).
GUARD_SECONDS = 60


def test_scat_play_in_a_terminal_shows_the_table_of_the_one_human_and_quits_on_q(
    scat_json: Scat, cli_db: str, tmp_path: Path,
) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--bot", "bob", "--seed", "7", "--dealer", "bob")
    env = {**os.environ, "SCAT_DB_URL": cli_db, "SCAT_SERVER": "", "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "TERM": "xterm-256color"}
    child = pexpect.spawn(SCAT, ["play", game["game_id"][:6]], env=env, dimensions=(24, 80),
                          encoding="utf-8", timeout=GUARD_SECONDS)
    try:
        child.expect("Discard pile")
        child.expect("draw from the stock")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before


def test_scat_play_in_a_terminal_throws_down_an_unseen_hand_on_t(scat_json: Scat, cli_db: str) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--bot", "bob", "--seed", "7", "--dealer", "bob",
                     "--throw-down", "--lives", "5")["game_id"]
    env = {**os.environ, "SCAT_DB_URL": cli_db, "SCAT_SERVER": "", "TERM": "xterm-256color"}  # the key that signed
    child = pexpect.spawn(SCAT, ["play", game, "--as", "you"], env=env, dimensions=(24, 80),
                          encoding="utf-8", timeout=GUARD_SECONDS)
    try:
        child.expect("face down")
        child.expect("throw down, unseen")
        child.send("t")
        child.expect("showdown called by you")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before
    assert "ThrowDownCalled" in [event["type"] for event in scat_json("log", game)["events"]]


def test_scat_play_without_a_terminal_is_refused_naming_the_plain_commands(scat_json: Scat, scat: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--seed", "7")["game_id"]
    result = scat("play", game, "--as", "you")
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "needs a terminal" in line
    assert f"`scat show {game} --as you`" in line and f"`scat draw {game} --as you stock|discard`" in line
    assert result.stdout == ""

"""A token need not be written on the command line, where `ps` shows it."""

from __future__ import annotations

from tests.support.cli import Scat


def test_token_dash_reads_the_token_from_stdin_not_the_command_line(scat: Scat, scat_json: Scat) -> None:
    """`--token -` asks for the token (a line of stdin when it is not a terminal)."""
    created = scat_json("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--protect", "--seed", "7")
    game, token = created["game_id"], created["tokens"]["you"]
    wrong = scat("draw", game, "--as", "you", "stock", "--token", "-", input="not-the-token\n")
    assert wrong.exit_code == 3
    result = scat("draw", game, "--as", "you", "stock", "--token", "-", input=token + "\n")
    assert result.exit_code == 0, result.output
    assert token not in result.stdout


def test_the_help_says_why_to_prefer_the_environment_or_a_prompt(scat: Scat) -> None:
    text = " ".join(scat("draw", "--help").stdout.split())
    assert "SCAT_TOKEN" in text and "--token -" in text and "ps" in text

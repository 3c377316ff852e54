"""Bad input: one clear line on stderr, the contract's exit code, nothing written, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from scat_core.records.errors import ConcurrencyConflict
from tests.support.cli import EVERY_MODE, Scat, new_game, one_line_error

pytestmark = EVERY_MODE


@pytest.fixture
def game(scat_json: Scat) -> str:
    """A fresh game of you against bob, you to draw."""
    return new_game(scat_json)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("show", "nosuchgame"), 4, "no game 'nosuchgame'"),
        (("draw", "GAME", "--as", "zoe", "stock"), 4, "no player 'zoe'"),
        (("show", "GAME", "--as", "zoe"), 4, "no player 'zoe'"),
        (("log", "GAME", "--as", "zoe"), 4, "no player 'zoe'"),
        (("discard", "GAME", "--as", "you", "ZZ"), 2, "'ZZ' is not a card"),
        (("discard", "GAME", "--as", "you", "2C"), 1, "draw a card first"),
        (("draw", "GAME", "--as", "bob", "stock"), 1, "bob is a bot"),
        (("declare", "GAME", "--as", "you"), 1, "not 31"),
        (("throw-down", "GAME", "--as", "you"), 1, "without the throw-down option"),
        (("draw", "GAME", "--as", "you", "pile"), 2, "'pile' is not a draw source: write stock or discard"),
        (("draw", "GAME", "stock"), 2, "--as"),  # its words locally and on a server: test_server_mode.py
        (("frobnicate",), 2, "No such command 'frobnicate'"),
        (("knok",), 2, "Did you mean 'knock'?"),
    ],
)
def test_each_kind_of_bad_input_gets_its_exit_code_and_one_line(
    scat: Scat, scat_json: Scat, game: str, args: tuple[str, ...], code: int, message: str
) -> None:
    before = scat_json("show", game)["last_seq"]
    result = scat(*(game if arg == "GAME" else arg for arg in args))
    assert result.exit_code == code, result.output
    line = one_line_error(result)
    assert line.startswith("scat: error: ") and message in line
    assert scat_json("show", game)["last_seq"] == before  # a refused command writes nothing


def test_a_card_you_do_not_hold_is_refused_with_exit_1(scat: Scat, scat_json: Scat, game: str) -> None:
    scat_json("draw", game, "--as", "you", "stock")
    result = scat("discard", game, "--as", "you", "AH")
    assert result.exit_code == 1 and "you do not hold AH (R12)" in one_line_error(result)


@pytest.mark.parametrize("players", [["--player", "solo"], [f"--player=p{i}" for i in range(10)]])
def test_too_few_or_too_many_players_exit_1_and_create_nothing(scat: Scat, scat_json: Scat, players: list[str]) -> None:
    result = scat("new", *players)
    assert result.exit_code == 1 and "2 to 9 players" in one_line_error(result)
    assert scat_json("games")["games"] == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--lives", "0"), 2),
        (("--deck", "AS KS"), 2),
        (("--dealer", "zoe"), 4),
        (("--player", "ann"), 2),  # two players called ann
        (("--player", "a[b]"), 2),
    ],
)
def test_bad_new_options_are_refused(scat: Scat, scat_json: Scat, args: tuple[str, ...], code: int) -> None:
    result = scat("new", "--player", "ann", "--bot", "bob", *args)
    assert result.exit_code == code, result.output
    one_line_error(result)
    assert scat_json("games")["games"] == []


def test_a_wrong_or_missing_token_exits_3(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    created = scat_json("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--protect", "--seed", "7")
    game = created["game_id"]
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "another-user")}  # who has not remembered the token
    missing = scat("draw", game, "--as", "you", "stock", env=elsewhere)
    assert missing.exit_code == 3 and "give you's token with --token or SCAT_TOKEN" in one_line_error(missing)
    wrong = scat("draw", game, "--as", "you", "stock", "--token", "guess")
    assert wrong.exit_code == 3 and "wrong token" in one_line_error(wrong)
    assert scat("log", game, "--as", "you", env=elsewhere).exit_code == 3
    assert scat_json("show", game)["last_seq"] == created["last_seq"]
    assert scat("draw", game, "--as", "you", "stock", "--token", created["tokens"]["you"]).exit_code == 0


@pytest.mark.parametrize("url", ["nope://x", "postgresql+nodriver://u@h/db", "sqlite:////no/such/folder/x.db"])
@pytest.mark.local_only("it gives --db, which --server excludes")
def test_an_unusable_database_url_exits_2(scat: Scat, url: str) -> None:
    result = scat("--db", url, "games")
    assert result.exit_code == 2, result.output
    assert "database" in one_line_error(result)


def test_a_concurrent_change_exits_5(scat: Scat, game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from scat_core.service.games import GameService

    def lost_the_race(*_: object, **__: object) -> None:
        raise ConcurrencyConflict(f"game {game} changed meanwhile: look again and retry")

    monkeypatch.setattr(GameService, "move", lost_the_race)
    result = scat("draw", game, "--as", "you", "stock")
    assert result.exit_code == 5 and "changed meanwhile" in one_line_error(result)

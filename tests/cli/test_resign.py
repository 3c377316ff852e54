"""`scat resign` (R27): at any time, in turn or not; nothing hidden is shown; audit re-decides it."""

from __future__ import annotations

from pathlib import Path

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.evolve import fold
from tests.support.cli import EVERY_MODE, Scat, one_line_error
from tests.support.databases import migrated
from tests.support.decks import stacked
from tests.support.hidden import YOU, check_log, check_view

# seats: you, kay, ann (bot); ann deals, so you play first, then kay, then ann (R11)
DECK = stacked([["2C", "3D", "4H"], ["AS", "KS", "5H"], ["QD", "JD", "6C"]], "9H", ["7C", "8S", "2S", "3S"])


pytestmark = EVERY_MODE


def new_game(scat_json: Scat, *more: str) -> str:
    game = scat_json("new", "--player", YOU, "--player", "kay", "--bot", "ann", "--dealer", "ann", "--deck", DECK,
                     *more)
    return str(game["game_id"])


def test_r27_a_player_resigns_in_the_middle_of_his_turn_and_nobody_sees_his_cards(
    scat: Scat, scat_json: Scat, games_db: str
) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", YOU, "stock")
    scat_json("discard", game, "--as", YOU, "7C")
    scat_json("draw", game, "--as", "kay", "stock")  # kay holds AS KS 5H 8S
    result = scat("resign", game, "--as", "kay")
    assert result.exit_code == 0, result.output
    assert "kay resigned and is out of the game (R27)" in result.stdout
    games = open_database(migrated(games_db))
    try:
        history = [stored.event for stored in games.reading.history(game)]
        state = fold(history)
        assert sorted(state.set_aside) == ["5H", "8S", "AS", "KS"]
        assert state.name(state.turn) == YOU  # ann (bot) played after kay; now you
        check_view(scat, state, "show", game, "--as", YOU)
        check_view(scat, state, "show", game)
        check_log(scat, game, history)
        for seq in range(len(history) - 4, len(history) + 1):
            then = fold(history[:seq])
            check_view(scat, then, "replay", game, "--to", str(seq), "--as", YOU)
    finally:
        games.store.engine.dispose()
    view = scat_json("show", game, "--as", "kay")
    assert view["hand"] == []
    kay = next(p for p in view["players"] if p["name"] == "kay")
    assert (kay["out"], kay["resigned"], kay["pennies"], view["set_aside_count"]) == (True, True, 3, 4)
    assert "You resigned" in scat("show", game, "--as", "kay").stdout
    assert scat_json("audit", game)["ok"] is True


def test_r27_refusals_have_the_contract_exit_codes_and_write_nothing(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("resign", game, "--as", "kay")  # out of turn
    before = scat_json("show", game)["last_seq"]
    again = scat("resign", game, "--as", "kay")
    assert again.exit_code == 1 and "kay has resigned (R27)" in one_line_error(again)
    bot = scat("resign", game, "--as", "ann")
    assert bot.exit_code == 1 and "bot" in one_line_error(bot)
    nobody = scat("resign", game, "--as", "zed")
    assert nobody.exit_code == 4
    assert scat_json("show", game)["last_seq"] == before


def test_r27_r26_when_the_last_other_player_resigns_you_win(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", YOU, "--player", "kay", "--seed", "5")["game_id"]
    result = scat("resign", game, "--as", "kay")
    assert result.exit_code == 0, result.output
    view = scat_json("show", game)
    assert (view["status"], view["winner"]) == ("finished", YOU)
    assert scat_json("audit", game)["ok"] is True


def test_r27_a_protected_game_needs_the_resigning_players_token(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    created = scat_json("new", "--player", YOU, "--player", "kay", "--seed", "5", "--protect")
    game, tokens = created["game_id"], created["tokens"]
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "another-user")}  # who has not remembered kay's token
    refused = scat("resign", created["game_id"], "--as", "kay", env=elsewhere)
    assert refused.exit_code == 3
    assert scat("resign", game, "--as", "kay", "--token", tokens["kay"]).exit_code == 0


def _resign_in_a_terminal(game: str, db: str, *more: str, answer: str | None) -> tuple[int, str]:
    """The real `scat resign` in a pseudo-terminal, answering its question (None: expect none); exit status, output."""
    import os

    import pexpect

    from tests.support.cli import SCAT

    env = {**os.environ, "SCAT_DB_URL": db, "SCAT_SERVER": ""}  # the test's config dir: its key signed the game
    child = pexpect.spawn(SCAT, ["resign", game, "--as", "kay", *more], env=env, encoding="utf-8", timeout=60)
    try:
        if answer is not None:
            child.expect(r"Resign from game \S+ as kay\? You leave it for good \(R27\)\. \[y/N\]: ")
            child.sendline(answer)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    return int(child.exitstatus or 0), str(child.before)


@pytest.mark.parametrize("cli_mode", ["local"])
def test_r27_resign_asks_first_on_a_terminal_and_a_no_writes_nothing(
        scat_json: Scat, games_db: str) -> None:
    game = new_game(scat_json)
    status, output = _resign_in_a_terminal(game, games_db, answer="n")
    assert status == 1 and "not resigned: nothing was written" in output
    assert next(p for p in scat_json("show", game)["players"] if p["name"] == "kay")["resigned"] is False
    status, output = _resign_in_a_terminal(game, games_db, answer="y")
    assert status == 0 and "kay resigned and is out of the game (R27)" in output, output


@pytest.mark.parametrize("cli_mode", ["local"])
def test_r27_resign_yes_does_not_ask_on_a_terminal(scat_json: Scat, games_db: str) -> None:
    game = new_game(scat_json)
    status, output = _resign_in_a_terminal(game, games_db, "--yes", answer=None)
    assert status == 0 and "kay resigned" in output and "Resign from game" not in output


def test_r27_resign_in_a_pipe_asks_nothing(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    result = scat("resign", game, "--as", "kay", input="n\n")
    assert result.exit_code == 0 and "Resign from game" not in result.output
    assert "kay resigned and is out of the game (R27)" in result.stdout

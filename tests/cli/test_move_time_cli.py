"""Move time (R28) through the command line: what `show` and `games` tell, and `scat claim`.

Every `scat` here, local or the server it talks to, runs on a clock the test moves by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scat_cli import wiring
from scat_core.service.games import GameService
from scat_core.service.loading import Clock
from tests.support.cli import EVERY_MODE, Scat, one_line_error
from tests.support.clock import HandClock

HOUR = 3600


pytestmark = EVERY_MODE


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[HandClock]:
    """Every service `scat` opens (a local command's, or the test server's) reads this clock."""
    hand = HandClock()
    opened = wiring.open_database

    def open_on_hand_clock(url: str | None = None, *, pre_ping: bool = False, serving: bool = False,
                           commit_together: bool = False, clock: Clock | None = None) -> GameService[Any]:
        return opened(url, pre_ping=pre_ping, serving=serving, commit_together=commit_together, clock=hand)

    monkeypatch.setattr(wiring, "open_database", open_on_hand_clock)
    yield hand


def timed_game(scat_json: Scat, *seats: str, move_time: str = "1h") -> str:
    """A game with a move time; `seats` as `--player NAME`/`--bot NAME` pairs; the last seated deals."""
    dealer = seats[-1]
    game = scat_json("new", *seats, "--dealer", dealer, "--seed", "7", "--move-time", move_time)
    return str(game["game_id"])


def test_r28_show_and_games_tell_how_long_the_player_to_act_has_in_json(
    scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    clock.advance(20 * 60)
    shown = scat_json("show", game, "--as", "bob")
    assert shown["turn"] == "ann"
    assert shown["move_time_left"] == 40 * 60
    assert shown["move_deadline"].endswith("Z")
    listed = next(row for row in scat_json("games")["games"] if row["game_id"] == game)
    assert (listed["move_deadline"], listed["move_time_left"]) == (shown["move_deadline"], 40 * 60)
    clock.advance(40 * 60)
    listed = next(row for row in scat_json("games")["games"] if row["game_id"] == game)
    assert listed["move_time_left"] == 0


def test_r28_a_game_without_a_move_time_has_null_move_time_fields(scat_json: Scat) -> None:
    game = str(scat_json("new", "--player", "ann", "--player", "bob", "--dealer", "bob")["game_id"])
    shown = scat_json("show", game, "--as", "ann")
    assert (shown["move_deadline"], shown["move_time_left"]) == (None, None)
    listed = scat_json("games")["games"][0]
    assert (listed["move_deadline"], listed["move_time_left"]) == (None, None)


def test_r28_show_tells_the_player_to_act_his_time_and_the_others_the_time_left(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy", move_time="2d")
    clock.advance(HOUR)
    mine = scat("show", game, "--as", "ann")
    assert "You have 1d23h left to move (until " in mine.stdout
    theirs = scat("show", game, "--as", "bob")
    assert "ann has 1d23h left to move (until " in theirs.stdout


def test_r28_games_tells_a_turn_out_of_time_and_how_to_claim_it(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    listed = scat("games")
    assert "time left" in listed.stdout and "1h" in listed.stdout
    clock.advance(HOUR + 5)
    listed = scat("games")
    assert "out of time" in listed.stdout
    assert f"Out of time (R28) in {game}: any other player may `scat claim {game}`." in listed.stdout


def test_r28_a_claim_before_the_time_is_up_is_exit_1_citing_r28_and_writes_nothing(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    before = scat_json("log", game)["events"]
    clock.advance(HOUR - 1)
    result = scat("claim", game, "--as", "bob")
    assert result.exit_code == 1
    assert "(R28)" in one_line_error(result)
    assert scat_json("log", game)["events"] == before


def test_r28_a_claim_in_a_game_without_a_move_time_is_exit_1_citing_r28(scat: Scat, scat_json: Scat) -> None:
    game = str(scat_json("new", "--player", "ann", "--player", "bob", "--dealer", "bob")["game_id"])
    result = scat("claim", game, "--as", "bob")
    assert result.exit_code == 1
    assert "no move time" in one_line_error(result) and "(R28)" in one_line_error(result)


def test_r28_a_claim_in_time_resigns_the_late_player_and_the_bots_play_on(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    # seats ann, cy (bot), bob; bob deals: ann plays first, then cy, then bob (R11)
    game = timed_game(scat_json, "--player", "ann", "--bot", "cy", "--player", "bob")
    clock.advance(HOUR)
    result = scat("claim", game, "--as", "bob")
    assert result.exit_code == 0, result.output
    assert "ann ran out of move time" in result.stdout
    shown = scat_json("show", game, "--as", "bob")
    ann = next(player for player in shown["players"] if player["name"] == "ann")
    assert ann["out"] and shown["turn"] == "bob"
    events = scat_json("log", game)["events"]
    claim = next(event for event in events if event["type"] == "Resigned")
    assert claim["data"] == {"player": "ann", "cause": "move time", "claimed_by": "bob"}
    assert any(event["seq"] > claim["seq"] and event["type"] == "CardDrawn" for event in events)  # cy played
    assert scat_json("audit", game)["ok"]


def test_r28_out_of_time_is_not_resigned_in_show_log_the_text_export_and_stats(
    scat: Scat, scat_json: Scat, clock: HandClock, cli_mode: str,
) -> None:
    """`out_reason` tells each player out: "out_of_time" (R28), "resigned" (R27), null while in."""
    game = timed_game(scat_json, "--player", "ann", "--player", "kay", "--bot", "cy", "--player", "bob")
    clock.advance(HOUR)
    scat_json("claim", game, "--as", "bob")
    scat_json("resign", game, "--as", "kay", "--yes")
    reasons = {player["name"]: player["out_reason"] for player in scat_json("show", game)["players"]}
    assert reasons == {"ann": "out_of_time", "kay": "resigned", "cy": None, "bob": None}
    shown = scat("show", game).stdout
    assert "out of time (R28)" in shown and "resigned" in shown
    told = [event["text"] for event in scat_json("log", game)["events"] if event["type"] == "Resigned"]
    assert told[0].startswith("ann ran out of move time and is out of the game on bob's claim")
    assert "resigned" not in told[0] and told[1] == "kay resigned and is out of the game (R27)"
    if cli_mode == "local":  # a server exports finished games only
        assert "ann ran out of move time" in scat("export", game, "--format", "text", "--running").stdout
    stats = {figures["name"]: figures for figures in scat_json("stats")["players"]}
    assert (stats["ann"]["timeouts"], stats["ann"]["resigned"]) == (1, 0)
    assert (stats["kay"]["timeouts"], stats["kay"]["resigned"]) == (0, 1)


def test_r28_a_claim_that_leaves_one_player_finishes_the_game(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob")
    clock.advance(HOUR + 1)
    assert scat("claim", game, "--as", "bob").exit_code == 0
    shown = scat_json("show", game)
    assert (shown["status"], shown["winner"]) == ("finished", "bob")
    assert (shown["move_deadline"], shown["move_time_left"]) == (None, None)


def test_r28_the_late_player_cannot_claim_his_own_turn(scat: Scat, scat_json: Scat, clock: HandClock) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    clock.advance(HOUR)
    result = scat("claim", game, "--as", "ann")
    assert result.exit_code == 1
    assert "(R28)" in one_line_error(result)


def test_r28_a_show_after_the_time_is_up_records_the_claim_first_then_shows_the_game(
    scat_json: Scat, clock: HandClock, cli_mode: str,
) -> None:
    """A show naming another player still in the game claims in his name on a local database; on a
    server, the server claims (R28)."""
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    clock.advance(HOUR)
    shown = scat_json("show", game, "--as", "bob")
    assert shown["turn"] == "bob" and shown["move_time_left"] == HOUR
    claim = next(event for event in scat_json("log", game)["events"] if event["type"] == "Resigned")
    claimer = "bob" if cli_mode == "local" else None
    assert claim["data"] == {"player": "ann", "cause": "move time", "claimed_by": claimer}
    assert scat_json("audit", game)["ok"]


def test_r28_the_late_player_may_still_move_after_his_time_until_a_claim_is_recorded(
    scat: Scat, scat_json: Scat, clock: HandClock,
) -> None:
    game = timed_game(scat_json, "--player", "ann", "--player", "bob", "--bot", "cy")
    clock.advance(HOUR + 1)
    result = scat("draw", game, "--as", "ann", "stock")
    assert result.exit_code == 0, result.output
    types = [event["type"] for event in scat_json("log", game)["events"]]
    assert types == ["GameCreated", "HandDealt", "CardDrawn"]
    assert scat_json("audit", game)["ok"]


@pytest.mark.parametrize("given", ["0s", "0m", "0d", "367d", "99999999d"])
def test_r28_a_move_time_outside_one_second_to_366_days_is_exit_2_in_one_line(scat: Scat, given: str) -> None:
    result = scat("new", "--player", "you", "--bot", "bob", "--move-time", given)
    assert result.exit_code == 2
    assert one_line_error(result) == f"scat: error: --move-time: {given!r} is not between 1s and 366d (R28)"
    assert scat("games").stdout.startswith("No games yet.")  # nothing was created

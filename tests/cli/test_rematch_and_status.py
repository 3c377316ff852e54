"""`scat rematch` (the same players and options, the first dealer one seat to the left; asked
twice, the same game) and `scat status` (what waits for you), on a database and through `scat
serve`; `scat ratings` as the JSON contract says."""

from __future__ import annotations

from tests.support.cli import EVERY_MODE, Scat, one_line_error

pytestmark = EVERY_MODE


def test_a_rematch_has_the_same_players_and_options_the_next_dealer_and_is_made_once(
    scat: Scat, scat_json: Scat,
) -> None:
    old = scat_json("new", "--player", "ann", "--bot", "bob", "--bot", "cy", "--dealer", "cy", "--lives", "2",
                    "--min-knock", "20", "--seed", "7")["game_id"]
    early = scat("rematch", old, "--as", "ann")
    assert early.exit_code == 1 and "has not been won" in one_line_error(early)
    scat_json("resign", old, "--as", "ann", "--yes")  # the bots play it out
    new = scat_json("rematch", old, "--as", "ann")
    assert new["game_id"] != old and new["rematch_of"] == old
    # its first dealer (the bots may have ended a hand since: a random deal on a server) is one seat
    # to the left of cy, the old first dealer (R6, R8)
    created = scat_json("log", new["game_id"])["events"][0]
    assert created["type"] == "GameCreated" and created["data"]["dealer"] == "ann"
    assert [p["name"] for p in new["players"]] == ["ann", "bob", "cy"]
    assert (new["options"]["lives"], new["options"]["min_knock"]) == (2, 20)
    assert scat_json("rematch", old, "--as", "ann")["game_id"] == new["game_id"]  # asked again: the same
    assert scat_json("show", new["game_id"])["rematch_of"] == old
    told = scat("rematch", old, "--as", "ann")
    assert told.exit_code == 0 and told.stdout.startswith(f"The rematch of game {old} is game {new['game_id']}.\n")


def test_status_tells_your_turns_waiting_games_and_games_ended_this_week(scat: Scat, scat_json: Scat) -> None:
    mine = scat_json("new", "--player", "ann", "--player", "bob", "--dealer", "bob")["game_id"]  # ann first
    theirs = scat_json("new", "--player", "ann", "--player", "bob", "--dealer", "ann")["game_id"]  # bob first
    ended = scat_json("new", "--player", "ann", "--bot", "cy")["game_id"]
    scat_json("resign", ended, "--as", "ann", "--yes")
    scat_json("new", "--player", "dee", "--bot", "ANN", "--dealer", "dee")  # a bot called ann: not her game
    board = scat_json("status", "--as", "ann")
    assert [game["game_id"] for game in board["your_turn"]] == [mine]
    assert [game["game_id"] for game in board["waiting"]] == [theirs]
    assert [game["game_id"] for game in board["finished"]] == [ended]
    assert board["invitations"] == []
    assert set(board["your_turn"][0]) >= {"game_id", "status", "turn", "players"}
    human = scat("status", "--as", "ann").stdout
    assert f"scat play {mine}" in human and "Waiting for others (1):" in human and f"scat show {ended}" in human
    assert scat("status").exit_code == 2  # whose games?


def test_ratings_json_lists_each_rated_player_highest_first(scat_json: Scat) -> None:
    for _ in range(2):
        scat_json("new", "--bot", "ann", "--bot", "bob")
    rated = scat_json("ratings")["players"]
    assert [set(row) >= {"name", "rating", "games"} for row in rated] == [True, True]
    assert rated[0]["rating"] >= rated[1]["rating"] and {row["games"] for row in rated} == {2}

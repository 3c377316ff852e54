"""Playing through the CLI: new, games, show, draw, discard, knock, declare, throw-down."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import CONTRACT_FIELDS, EVERY_MODE, THIRTY_ONE, YOUR_DEAL, Scat, new_game
from tests.support.decks import stacked

pytestmark = EVERY_MODE

PLAYER_FIELDS = {"name", "seat", "pennies", "on_dole", "out", "is_bot"}


def test_new_seats_players_and_bots_interleaved_in_the_order_given(scat_json: Scat) -> None:
    game = scat_json("new", "--bot", "ann", "--player", "you", "-b", "bob", "--player=cid", "--seed", "1")
    seats = [(p["name"], p["seat"], p["is_bot"]) for p in game["players"]]
    assert seats == [("ann", 1, True), ("you", 2, False), ("bob", 3, True), ("cid", 4, False)]  # from 1


def test_new_prints_the_id_the_table_and_the_exact_next_command(scat: Scat) -> None:
    result = scat("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--deck", YOUR_DEAL)
    assert result.exit_code == 0, result.output
    game = re.search(r"Created game (\w+)\.", result.stdout).group(1)  # type: ignore[union-attr]
    assert f"scat draw {game} --as you stock" in result.stdout
    assert "bob dealt hand 1 (stacked deck): you 2C 5D 9H; the discard pile starts with 7C" in result.stdout
    assert "Your hand: 2C 5D 9H   (worth 9)" in result.stdout
    assert "KS" not in result.stdout and "\x1b[" not in result.stdout  # bob's cards; no ANSI in a pipe


def test_new_quiet_prints_only_the_game_id(scat: Scat, scat_json: Scat, cli_mode: str) -> None:
    result = scat("new", "-q", "--player", "you", "--bot", "bob")
    game, *tokens = result.stdout.strip().splitlines()
    assert re.fullmatch(r"[0-9a-f]{10}", game)
    # A server protects every game: then, as with --protect, one NAME<TAB>TOKEN line per human.
    assert [line.split("\t")[0] for line in tokens] == ([] if cli_mode == "local" else ["you"])
    assert scat_json("show", game)["game_id"] == game


def test_new_json_has_the_contract_fields_and_no_tokens_unless_protected(scat_json: Scat, cli_mode: str) -> None:
    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "5")
    assert CONTRACT_FIELDS <= set(game)
    assert ("tokens" in game) == (cli_mode != "local")  # every game on a server is protected
    assert all(PLAYER_FIELDS <= set(player) for player in game["players"])


def test_new_records_every_option(scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--player", "ann", "--lives", "5", "--three-of-a-kind",
                     "--straight-flush", "--min-knock", "20", "--no-first-round-knock", "--throw-down",
                     "--no-dole", "--seed", "3")
    assert game["options"] == {"lives": 5, "three_of_a_kind": True, "straight_flush": True, "min_knock": 20,
                               "no_first_round_knock": True, "throw_down": True, "no_dole": True}
    assert all(player["pennies"] == 5 for player in game["players"])


def test_the_same_seed_deals_the_same_hands(scat_json: Scat) -> None:
    hands = []
    for _ in range(2):
        game = scat_json("new", "--player", "you", "--player", "ann", "--dealer", "ann", "--seed", "99")
        hands.append(scat_json("show", game["game_id"], "--as", "you")["hand"])
    assert hands[0] == hands[1]


def test_a_protected_game_prints_each_humans_token_once_and_requires_it(scat: Scat, scat_json: Scat,
                                                                        tmp_path: Path) -> None:
    created = scat("new", "--player", "you", "--bot", "bob", "--player", "ann", "--protect", "--seed", "4")
    assert "shown only this once" in created.stdout
    game = re.search(r"Created game (\w+)\.", created.stdout).group(1)  # type: ignore[union-attr]
    tokens = dict(re.findall(r"^  (you|ann): (\S+)$", created.stdout, re.MULTILINE))
    assert set(tokens) == {"you", "ann"}  # humans only
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "another-user")}  # who has not remembered the tokens
    assert scat("show", game, "--as", "you", env=elsewhere).exit_code == 3
    assert scat("show", game, "--as", "you", "--token", tokens["ann"], env=elsewhere).exit_code == 3
    assert scat("show", game, "--as", "you", "--token", tokens["you"], env=elsewhere).exit_code == 0
    assert scat("show", game, "--as", "ann", env={**elsewhere, "SCAT_TOKEN": tokens["ann"]}).exit_code == 0
    assert scat("show", game, "--as", "you").exit_code == 0  # `new` remembered the tokens it printed
    assert scat("show", game).exit_code == 0  # the public view needs no token
    again = scat_json("new", "--player", "you", "--player", "ann", "--protect")
    assert set(again["tokens"]) == {"you", "ann"}


def test_games_lists_the_newest_first_with_turn_and_last_activity(scat: Scat, scat_json: Scat) -> None:
    first = new_game(scat_json)
    second = scat_json("new", "--player", "ann", "--player", "cid", "--dealer", "cid", "--seed", "2")["game_id"]
    listed = scat_json("games")["games"]
    assert [g["game_id"] for g in listed] == [second, first]
    assert listed[1]["turn"] == "you" and listed[1]["players"] == ["you", "bob"] and listed[1]["bots"] == ["bob"]
    assert [g["game_id"] for g in scat_json("games", "--waiting-for", "ann")["games"]] == [second]
    assert scat_json("games", "--status", "finished")["games"] == []
    table = scat("games").stdout
    assert re.search(rf"{first}\s+you, bob\*\s+you\s+1\s+active \(chosen seed and deck\)\s+just now", table), table


def test_show_json_is_the_public_view_and_with_as_adds_only_your_hand(scat_json: Scat) -> None:
    game = new_game(scat_json)
    public = scat_json("show", game)
    assert CONTRACT_FIELDS <= set(public) and "hand" not in public
    assert (public["status"], public["hand_number"], public["dealer"], public["turn"], public["phase"]) == (
        "active", 1, "bob", "you", "draw")
    assert (public["discard_top"], public["stock_count"], public["kitty"], public["last_seq"]) == ("7C", 45, 0, 2)
    mine = scat_json("show", game, "--as", "you")
    assert mine["hand"] == ["2C", "5D", "9H"]
    assert not {"KS", "QS", "4D"} & set(str(mine).replace("'", " ").split())


def test_show_as_a_player_prints_the_table_your_hand_and_what_to_do(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    out = scat("show", game, "--as", "you").stdout
    deal = "· bob dealt hand 1 (stacked deck): you 2C 5D 9H; the discard pile starts with 7C"
    assert out.splitlines()[:2] == ["So far:", deal]  # a player who has not moved yet: since the creation
    assert out.splitlines()[2] == f"Game {game} · hand 1 · dealer bob · you are you"
    assert "Discard pile: 7C    Stock: 45 cards (135 draws before a dead hand, R17b)    Kitty: 0" in out
    assert "Your hand: 2C 5D 9H   (worth 9)" in out
    assert f"scat draw {game} --as you discard   take 7C from the discard pile" in out
    assert f"scat knock {game} --as you" in out


def test_draw_then_discard_shows_what_the_bot_did_and_your_new_state(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    drawn = scat("draw", game, "--as", "you", "stock")
    assert drawn.exit_code == 0, drawn.output
    assert "· you drew 8C from the stock" in drawn.stdout
    assert "Your hand: 2C 5D 9H 8C" in drawn.stdout and f"scat discard {game} --as you CARD" in drawn.stdout
    done = scat("discard", game, "--as", "you", "2c")
    assert done.exit_code == 0, done.output
    assert "· you discarded 2C" in done.stdout
    assert re.search(r"· bob drew (from the stock|\w+ from the discard pile) and discarded \w+", done.stdout)
    assert "Your hand: 5D 9H 8C" in done.stdout


def test_draw_json_lists_the_events_redacted_for_you(scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", "you", "discard")
    after = scat_json("discard", game, "--as", "you", "2C")
    assert CONTRACT_FIELDS <= set(after) and after["hand"] == ["5D", "9H", "7C"]
    kinds = [(e["type"], e["data"].get("player")) for e in after["events"]]
    assert kinds[0] == ("CardDiscarded", "you")
    bob_draw = next(e for e in after["events"] if e["type"] == "CardDrawn")
    if bob_draw["data"]["source"] == "stock":
        assert bob_draw["data"]["card"] == "??"
    assert all(move.startswith("scat ") for move in after["moves"])


def test_cards_may_be_typed_in_any_case_with_t_for_ten_or_suit_symbols(scat_json: Scat) -> None:
    deck = stacked([["10H", "5D", "9H"], ["KS", "QS", "4D"]], "7C", ["8C"])
    game = new_game(scat_json, deck=deck)
    scat_json("draw", game, "--as", "you", "stock")
    assert "10H" not in scat_json("discard", game, "--as", "you", "t♥")["hand"]


def test_knock_gives_the_bot_one_turn_then_a_showdown(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json, deck=THIRTY_ONE)
    result = scat("knock", game, "--as", "you")
    assert result.exit_code == 0, result.output
    assert "· you knocked" in result.stdout
    assert re.search(r"showdown called by you: you 31 \(AS KS QS\), bob \d+ \(.+\); lost: bob 1 life", result.stdout)
    assert scat_json("show", game)["hand_number"] == 2


def test_holding_31_you_are_told_to_declare_and_declaring_costs_the_bot_a_life(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json, deck=THIRTY_ONE)
    shown = scat("show", game, "--as", "you").stdout
    assert f"You hold 31: run `scat declare {game} --as you`" in shown
    declared = scat_json("declare", game, "--as", "you")
    assert [p["pennies"] for p in declared["players"]] == [3, 2]
    assert declared["revealed"] == {"you": ["AS", "KS", "QS"]} and declared["hand_number"] == 2


def test_throw_down_before_looking_shows_every_hand(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json, "--throw-down")
    new_view = scat_json("show", game)
    assert "hand" not in new_view
    thrown = scat("throw-down", game, "--as", "you")
    assert thrown.exit_code == 0, thrown.output
    assert re.search(r"showdown called by you: you 9 \(2C 5D 9H\), bob 20 \(KS QS 4D\); lost: you 2 lives",
                     thrown.stdout)


def test_in_a_throw_down_game_your_new_hand_stays_face_down_until_you_look(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json, "--throw-down", deck=THIRTY_ONE)
    unseen = scat_json("show", game, "--as", "you")  # a glance does not look (R23): it is a choice
    assert (unseen["hand"], unseen["looked"]) == (None, False)
    assert "--look turns it up" in scat("show", game, "--as", "you").stdout
    seen = scat_json("show", game, "--as", "you", "--look")  # looking is recorded (R23)
    assert seen["looked"] is True and len(seen["hand"]) == 3
    assert scat("throw-down", game, "--as", "you").exit_code == 1
    after = scat_json("declare", game, "--as", "you")
    assert after["hand_number"] == 2 and after.get("hand_hidden") and (after["hand"], after["looked"]) == (None, False)
    human = scat("show", game).stdout
    assert "face down" not in human


def test_in_a_throw_down_game_wait_keeps_your_new_hand_face_down_unless_you_look(scat: Scat, scat_json: Scat) -> None:
    """`wait` (and `wait --any`) show what `show` would: a glance is not a look (R23) unless --look."""
    game = new_game(scat_json, "--throw-down", deck=THIRTY_ONE)
    waited = scat_json("wait", game, "--as", "you", "--timeout", "30")
    assert (waited["hand"], waited["looked"]) == (None, False)
    anyone = scat("wait", "--any", "--as", "you", "--timeout", "30", "--json")
    assert anyone.exit_code == 0 and '"looked": false' in anyone.stdout, anyone.output
    looked = scat_json("wait", game, "--as", "you", "--timeout", "30", "--look")
    assert looked["looked"] is True and len(looked["hand"]) == 3
    assert scat("throw-down", game, "--as", "you").exit_code == 1  # he looked: too late to throw down (R23)
    other = new_game(scat_json, "--throw-down", deck=THIRTY_ONE)
    scat_json("wait", other, "--as", "you", "--timeout", "30")
    assert scat("throw-down", other, "--as", "you").exit_code == 0  # the glance kept his throw down


def test_on_a_terminal_suits_are_coloured_symbols(scat: Scat, scat_json: Scat, monkeypatch: pytest.MonkeyPatch) -> None:
    game = new_game(scat_json)
    monkeypatch.setattr("scat_cli.render.stdout_is_terminal", lambda: True)
    out = scat("show", game, "--as", "you").stdout
    assert "\x1b[1;31m9♥\x1b[0m" in out and "\x1b[1m2♣\x1b[0m" in out  # hearts red, clubs bold
    assert "9H" not in out


@pytest.mark.local_only("it gives --db, which --server excludes")
def test_hints_repeat_the_database_given_with_db(scat: Scat, scat_json: Scat, cli_db: str) -> None:
    game = new_game(scat_json)
    out = scat("--db", cli_db, "show", game, "--as", "you").stdout
    assert f"scat --db {cli_db} draw {game} --as you stock" in out


def test_a_finished_game_shows_the_winner_the_hands_and_the_seed(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--seed", "11", "--lives", "1")
    assert game["status"] == "finished" and game["turn"] is None and game["seed"] == "11"
    out = scat("show", game["game_id"]).stdout
    pennies = next(p["pennies"] for p in game["players"] if p["name"] == game["winner"])
    assert game["kitty"] == 0 and pennies == 2  # R26 (rules version 2): the kitty is the winner's
    assert f"Game over: {game['winner']} won with {pennies} pennies, the kitty of 1 included (R26), after " in out
    assert out.count(" won ") == 1  # said once
    assert "Seed: 11" in out and "\nHands:\n  hand 1 (dealer " in out


def test_in_a_throw_down_game_the_deal_of_your_new_hand_is_not_told_to_you_either(
    scat: Scat, scat_json: Scat
) -> None:
    game = new_game(scat_json, "--throw-down", deck=THIRTY_ONE)
    scat_json("show", game, "--as", "you", "--look")
    declared = scat("declare", game, "--as", "you").stdout
    deal = next(line for line in declared.splitlines() if "dealt hand 2" in line)
    assert re.fullmatch(r"· \w+ dealt hand 2; the discard pile starts with \w+", deal), deal
    assert "face down" in declared


def test_a_player_who_is_out_is_told_so_in_show_and_replay_instead_of_an_empty_hand(scat: Scat) -> None:
    # you, eve (humans) and ann (bot); you knock holding 4 and lose your only life (--no-dole)
    deck = stacked([["2C", "3D", "4H"], ["10C", "JC", "QC"], ["KH", "QH", "9H"]], "7S", ["8D", "5S", "6S", "JD"])
    created = scat("new", "--player", "you", "--player", "eve", "--bot", "ann", "--dealer", "ann", "--deck", deck,
                   "--lives", "1", "--no-dole", "--seed", "1", "-q")  # hand 2 from a fixed seed
    game = created.stdout.split()[0]
    for args in (("knock", game, "--as", "you"), ("draw", game, "--as", "eve", "stock"),
                 ("discard", game, "--as", "eve", "8D")):
        assert scat(*args).exit_code == 0
    assert '"status": "active"' in scat("show", game, "--json").stdout  # eve and ann play on
    for args in (("show", game, "--as", "you"), ("replay", game, "--as", "you")):
        shown = scat(*args).stdout
        assert shown.count("You are out of the game.") == 1, args
        assert "Your hand" not in shown and "None" not in shown
    seq = next(int(line.split()[0]) for line in scat("log", game).stdout.splitlines() if "PlayerEliminated" in line)
    then = scat("replay", game, "--to", str(seq), "--as", "you").stdout
    assert "You are out of the game." in then and "worth None" not in then


def test_show_help_says_the_token_is_the_as_players_and_not_needed_without_as(scat: Scat) -> None:
    help_text = " ".join(scat("show", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "The token of the --as player" in help_text and "without --as none is needed" in help_text

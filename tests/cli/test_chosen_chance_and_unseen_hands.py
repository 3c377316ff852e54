"""#14 items 3 and 4: what the CLI tells about a game's chance and about a face-down hand."""

from __future__ import annotations

import json

from tests.support.cli import LOW, Scat, one_line_error


def test_a_game_created_with_seed_says_so_everywhere(scat: Scat, scat_json: Scat) -> None:
    """`--seed 271828` was found from one hand in 34 s; every player must be told."""
    game = scat_json("new", "--player", "you", "--bot", "ann", "--seed", "271828")["game_id"]
    fair = scat_json("new", "--player", "you", "--bot", "ann")["game_id"]
    assert scat_json("show", game)["seed_chosen"] is True
    assert scat_json("show", game, "--as", "you")["seed_chosen"] is True
    assert scat_json("show", fair)["seed_chosen"] is False
    assert "chosen seed (--seed)" in scat("show", game).stdout
    assert "chosen seed (--seed)" in scat("show", game, "--as", "you").stdout
    assert "Warning" not in scat("show", fair).stdout
    listed = {row["game_id"]: row for row in scat_json("games")["games"]}
    assert (listed[game]["seed_chosen"], listed[fair]["seed_chosen"]) == (True, False)
    table = {line.split()[0]: line for line in scat("games").stdout.splitlines()[1:] if line.strip()}
    assert "(chosen seed)" in table[game] and "chosen" not in table[fair]
    audit = scat("audit", game)
    assert "the seed was chosen at creation" in audit.stdout
    assert json.loads(scat("audit", game, "--json").stdout)["seed_chosen"] is True
    assert json.loads(scat("audit", fair, "--json").stdout)["seed_chosen"] is False


def test_a_game_created_with_deck_says_so_in_show_and_games(scat: Scat, scat_json: Scat) -> None:
    """A stacked first deck is flagged like a chosen seed."""
    game = scat_json("new", "--player", "you", "--player", "eve", "--dealer", "eve", "--deck", LOW)["game_id"]
    view = scat_json("show", game)
    assert (view["seed_chosen"], view["first_deck_stacked"]) == (False, True)
    assert "deck chosen at creation (--deck)" in scat("show", game).stdout
    assert scat_json("games")["games"][0]["first_deck_stacked"] is True
    assert "(chosen deck)" in scat("games").stdout


def test_r15_r23_a_knock_on_an_unseen_hand_never_tells_its_worth(scat: Scat, scat_json: Scat) -> None:
    """"your hand is worth 5" was the answer to a knock by a player who had not looked."""
    game = scat_json("new", "--player", "you", "--player", "eve", "--dealer", "eve", "--deck", LOW,
                     "--throw-down", "--min-knock", "20")["game_id"]
    result = scat("knock", game, "--as", "you")
    assert result.exit_code == 1
    error = one_line_error(result)
    assert "face down" in error and "worth 5" not in error and "(R23)" in error
    assert scat_json("show", game)["last_seq"] == 2  # nothing recorded, no look either

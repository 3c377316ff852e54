"""What the human output suggests and how it says it: commands that run, plain words."""

from __future__ import annotations

import re
import shlex

from tests.support.cli import THIRTY_ONE, Scat, new_game
from tests.support.decks import stacked

HINT = re.compile(r"^  (scat .*?)\s{3,}\S")


def hinted_commands(output: str) -> list[list[str]]:
    """The suggested command lines of some output, split as a shell would."""
    return [shlex.split(match.group(1)) for line in output.splitlines() if (match := HINT.match(line))]


def test_new_protect_quiet_prints_the_game_id_then_each_humans_token(scat: Scat, scat_json: Scat) -> None:
    result = scat("new", "-q", "--protect", "--player", "you", "--bot", "bob", "--player", "Zoë Ørsted")
    assert result.exit_code == 0
    game, *lines = result.stdout.splitlines()
    tokens = dict(line.split("\t") for line in lines)
    assert re.fullmatch(r"[0-9a-f]{10}", game) and set(tokens) == {"you", "Zoë Ørsted"}
    shown = scat_json("show", game, "--as", "Zoë Ørsted", env={"SCAT_TOKEN": tokens["Zoë Ørsted"]})
    assert shown["you"] == "Zoë Ørsted"


def test_suggested_commands_are_shell_quoted_and_run_as_suggested(scat: Scat, scat_json: Scat) -> None:
    deck = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"]], "7C", ["8C", "3H", "6S", "JD"])
    created = scat("new", "--player", "o'brien", "--player", "Zoë Ørsted", "--dealer", "Zoë Ørsted", "--deck", deck)
    game = scat_json("games")["games"][0]["game_id"]
    first = hinted_commands(created.stdout)
    assert ["scat", "show", game, "--as", "o'brien"] in first
    shown = scat("show", game, "--as", "o'brien").stdout
    commands = hinted_commands(shown)
    assert ["scat", "draw", game, "--as", "o'brien", "stock"] in commands
    assert "--as 'o'\"'\"'brien' stock" in shown
    result = scat(*commands[0][1:])  # the first suggestion, exactly as printed
    assert result.exit_code == 0, result.output
    discard = next(words for words in hinted_commands(result.stdout) if words[1] == "discard")
    assert discard[-1] == "CARD" and scat(*discard[1:-1], "8C").exit_code == 0
    waiting = scat("show", game, "--as", "Zoë Ørsted").stdout
    assert ["scat", "draw", game, "--as", "Zoë Ørsted", "stock"] in hinted_commands(waiting)


def test_hints_quote_a_db_url_with_a_space(scat: Scat, scat_json: Scat, tmp_path: object, cli_db: str) -> None:
    import shutil
    from pathlib import Path

    spaced = Path(str(tmp_path)) / "my games" / "scat.db"
    spaced.parent.mkdir()
    shutil.copy(cli_db.removeprefix("sqlite:///"), spaced)
    url = f"sqlite:///{spaced}"
    out = scat("--db", url, "new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--seed", "7").stdout
    assert f"scat --db '{url}' draw " in out
    words = hinted_commands(out)[0]
    assert words[:3] == ["scat", "--db", url] and scat(*words[1:]).exit_code == 0


def test_the_first_player_is_named_without_a_verb_that_would_not_fit_you(scat: Scat) -> None:
    out = scat("new", "--player", "you", "--player", "ann", "--dealer", "ann", "--seed", "1").stdout
    assert "To play: you." in out and "you is" not in out


def test_waiting_for_matches_any_case_and_an_empty_filter_says_no_games_match(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "Zoë", "--player", "ann", "--dealer", "ann", "--seed", "2")["game_id"]
    for name in ("Zoë", "zoë", "ZOË"):
        assert [g["game_id"] for g in scat_json("games", "--waiting-for", name)["games"]] == [game]
    assert scat("games", "--waiting-for", "nobody").stdout.startswith("No games match.")
    assert scat("games", "--status", "finished").stdout.startswith("No games match.")


def test_the_bot_legend_is_printed_only_when_a_listed_game_has_a_bot(scat: Scat, scat_json: Scat) -> None:
    scat_json("new", "--player", "you", "--player", "ann", "--seed", "2")
    assert "* bot" not in scat("games").stdout
    new_game(scat_json)
    assert "* bot" in scat("games").stdout


def test_the_table_shows_the_same_seat_numbers_as_the_json_counted_from_1(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    seats = {p["name"]: p["seat"] for p in scat_json("show", game)["players"]}
    assert seats == {"you": 1, "bob": 2}
    table = scat("show", game).stdout
    assert re.search(r"^▶\s+1\s+you\s", table, re.MULTILINE) and re.search(r"^\s+2\s+bob \(bot\)", table, re.MULTILINE)


def test_an_unseen_hand_in_a_throw_down_game_is_offered_look_throw_down_and_the_turn(
    scat: Scat, scat_json: Scat
) -> None:
    # A fixed seed: hand 2 comes from it, and with some seeds bob (first to play) knocks, which changes the hints.
    game = new_game(scat_json, "--throw-down", "--seed", "1", deck=THIRTY_ONE)
    scat_json("show", game, "--as", "you", "--look")
    out = scat("declare", game, "--as", "you").stdout  # hand 2 is dealt, face down, your turn
    commands = [" ".join(words[1:3]) for words in hinted_commands(out)]
    assert commands == ["show " + game, "throw-down " + game, "draw " + game, "draw " + game, "knock " + game]
    assert out.count("not looked") == 1 and "Your turn." in out


def test_a_new_throw_down_game_offers_the_first_player_a_throw_down(scat: Scat) -> None:
    out = scat("new", "--player", "you", "--bot", "bob", "--throw-down", "--dealer", "bob", "--seed", "3").stdout
    assert [words[1] for words in hinted_commands(out)] == ["show", "draw", "throw-down"]


def test_games_status_is_case_insensitive(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    listed = scat_json("games", "--status", "FINISHED")["games"]
    assert [row["game_id"] for row in listed] == [game]
    assert scat_json("games", "--status", "Active")["games"] == []

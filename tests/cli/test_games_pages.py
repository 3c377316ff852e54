"""`scat games` shows a screenful, newest activity first, and says how to see the rest;
`--limit`, `--all` and `--waiting-for` locally and through `--server`."""

from __future__ import annotations

from tests.support.cli import EVERY_MODE, Scat

GAMES = 22  # more than a screenful (20)


pytestmark = EVERY_MODE


def many_games(scat_json: Scat, count: int = GAMES) -> list[str]:
    """`count` games of one human and a bot, oldest first; every other one waits for `Ann`."""
    return [str(scat_json("new", "--player", "Ann" if number % 2 else "bo", "--bot", "cy",
                          "--dealer", "cy")["game_id"]) for number in range(count)]


def test_games_lists_a_screenful_newest_first_and_says_how_to_see_the_rest(scat: Scat, scat_json: Scat) -> None:
    made = many_games(scat_json)
    listed = scat("games")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    shown = [line.split()[0] for line in lines[1:] if line.split() and line.split()[0] in made]
    assert shown == made[::-1][:20]
    assert lines[-1] == (f"Showing the newest 20 of {GAMES} games: `scat games --limit {GAMES}` for more, "
                         "`scat games --all` for every one.")
    every = scat("games", "--all")
    assert sum(line.split()[0] in made for line in every.stdout.splitlines() if line.split()) == GAMES
    assert "Showing the newest" not in every.stdout


def test_games_limit_pages_the_json_and_tells_the_total(scat_json: Scat) -> None:
    made = many_games(scat_json, 5)
    page = scat_json("games", "--limit", "2")
    assert [row["game_id"] for row in page["games"]] == made[::-1][:2]
    assert page["total"] == 5


def test_games_waiting_for_a_name_in_any_case_lists_only_his_turns(scat: Scat, scat_json: Scat) -> None:
    made = many_games(scat_json, 6)
    page = scat_json("games", "--waiting-for", "ANN", "--limit", "2")
    assert [row["game_id"] for row in page["games"]] == [made[5], made[3]]
    assert page["total"] == 3
    listed = scat("games", "--waiting-for", "ann", "--limit", "2")
    assert "Showing the newest 2 of 3 games: `scat games --waiting-for ann --limit 3` for more" in listed.stdout

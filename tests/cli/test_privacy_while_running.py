"""While a game runs, nothing the CLI prints lets anyone work out a hidden card.

Exports of protected games wait for the end, nobody looks as a bot, the log prints no
hashes (a redacted card is one of 52 tries away from its hash), and bad requests are
refused before anything is recorded.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.cards import DECK
from scat_core.records.stored_log import chain_hash
from tests.support.cli import (
    EVERY_MODE,
    YOUR_CARDS,
    Scat,
    deal_line,
    finished_game,
    imported_into_a_fresh_database,
    new_game,
    one_line_error,
)
from tests.support.databases import migrated
from tests.support.decks import stacked

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
PROTECTED_RUNNING = "is still running and protected: its export would show every player's cards; export it when it ends"
BOT_REFUSED = "ann is a bot: nobody may look at a bot's hand while the game runs"


pytestmark = EVERY_MODE


def last_seq(scat_json: Scat, game: str) -> int:
    return int(scat_json("show", game)["last_seq"])


def test_exporting_a_running_protected_game_is_refused_in_one_line_and_writes_no_file(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--protect", "--seed", "3")["game_id"]
    for args in ((), ("--format", "text"), ("-o", str(tmp_path / "out.jsonl"))):
        result = scat("export", game, *args)
        assert result.exit_code == 1 and result.stdout == ""
        assert one_line_error(result) == f"scat: error: game {game} {PROTECTED_RUNNING}"
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_exporting_a_running_game_is_refused_in_one_line_unless_running_is_given_and_then_notes_it_after(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)
    path = tmp_path / "out.jsonl"
    for args in ((), ("--format", "text"), ("-o", str(path)), ("--json",)):
        refused = scat("export", game, *args)
        assert refused.exit_code == 1 and refused.stdout == ""
        assert one_line_error(refused) == (
            f"scat: error: game {game} is still running: its export would show every hidden card (hands, "
            "the stock); export it when it ends, or pass --running"
        )
    assert not path.exists()
    result = scat("export", game, "--running")
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == last_seq(scat_json, game)
    assert f"note: game {game} is still running" in one_line_error(result)
    written = scat("export", game, "--running", "-o", str(path))
    assert written.exit_code == 0 and path.exists() and f"game {game} is still running" in one_line_error(written)


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_export_all_skips_running_games_in_its_summary_line_unless_running_is_given_but_protected_ones_always(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    over, running = finished_game(scat_json), new_game(scat_json)
    protected = scat_json("new", "--player", "you", "--bot", "ann", "--protect", "--seed", "3")["game_id"]
    result = scat("export", "--all", "-o", str(tmp_path / "out"), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert [item["game_id"] for item in summary["files"]] == [over]
    assert sorted(summary["skipped"], key=lambda item: item["reason"]) == [
        {"game_id": running, "reason": "running"}, {"game_id": protected, "reason": "running and protected"}]
    assert {path.stem for path in (tmp_path / "out").iterdir()} == {over}
    assert result.stderr == ""  # the skips are in the summary (--json) or its one line (below)
    human = scat("export", "--all", "-o", str(tmp_path / "again"))
    assert human.stdout.splitlines()[-1] == (f"1 game exported to {tmp_path / 'again'}; 2 skipped (1 running and "
                                             "protected, 1 running: --running exports them)")
    with_running = scat("export", "--all", "-o", str(tmp_path / "all"), "--running", "--json")
    summary = json.loads(with_running.stdout)
    assert {item["game_id"] for item in summary["files"]} == {over, running}
    assert summary["skipped"] == [{"game_id": protected, "reason": "running and protected"}]
    notes = with_running.stderr.splitlines()
    assert notes == [f"scat: note: game {running} is still running: its export shows every hidden card"]
    human = scat("export", "--all", "-o", str(tmp_path / "all-again"), "--running")
    assert human.stdout.splitlines()[-1] == (f"2 games exported to {tmp_path / 'all-again'}; 1 skipped "
                                             "(running and protected)")


def test_export_all_through_a_server_says_no_running_game_is_exported_and_refuses_running(
    scat: Scat, scat_json: Scat, cli_mode: str, tmp_path: Path
) -> None:
    """A server exports no running game: its skip note does not offer --running, which it refuses (exit 2)."""
    from scat_cli.export_command import skipped_summary

    over, running = finished_game(scat_json), new_game(scat_json)  # a server's games are protected
    human = scat("export", "--all", "-o", str(tmp_path / "out"))
    assert human.exit_code == 0 and human.stderr == ""
    assert human.stdout.splitlines()[-1].startswith(f"1 game exported to {tmp_path / 'out'}; 1 skipped (running")
    assert over in human.stdout
    unprotected = [{"game_id": running, "reason": "running"}]  # as an imported running game is
    assert skipped_summary(unprotected) == "; 1 skipped (running: --running exports them)"
    assert skipped_summary(unprotected, True) == "; 1 skipped (running: a server exports no running game)"
    if cli_mode == "local":
        return
    assert "--running" not in human.output
    for given in (["--all", "-o", str(tmp_path / "again")], [running]):
        refused = scat("export", *given, "--running")
        assert refused.exit_code == 2 and "through --server" in one_line_error(refused)
    assert not (tmp_path / "again").exists()


def test_log_json_prints_no_hashes_while_the_game_runs_and_both_once_it_is_over(scat_json: Scat) -> None:
    running = new_game(scat_json)
    for viewer in ((), ("--as", "you")):
        events = scat_json("log", running, *viewer)["events"]
        assert all("hash" not in event and "prev_hash" not in event for event in events)
    over = finished_game(scat_json)
    events = scat_json("log", over)["events"]
    assert all(HEX64.fullmatch(event["hash"]) and HEX64.fullmatch(event["prev_hash"]) for event in events)
    assert events[0]["prev_hash"] == "0" * 64 and events[1]["prev_hash"] == events[0]["hash"]


def test_a_redacted_stock_draw_cannot_be_brute_forced_from_any_hash_printed(
    scat: Scat, scat_json: Scat, games_db: str
) -> None:
    # you and eve, humans; eve (dealt first) draws from the stock, hidden from you
    deck = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"]], "7C", ["8C", "3H"])
    game = scat_json("new", "--player", "eve", "--player", "you", "--dealer", "you", "--deck", deck)["game_id"]
    scat_json("draw", game, "--as", "eve", "stock")
    service = open_database(migrated(games_db))
    try:
        drawn = service.reading.history(game)[-1]
    finally:
        service.store.engine.dispose()
    assert (drawn.type, drawn.data["card"]) == ("CardDrawn", "8C")
    printed = "".join(
        scat(*args).stdout
        for args in (("log", game, "--as", "you", "--json"), ("log", game, "--json"), ("log", game, "--as", "you"),
                     ("show", game, "--as", "you", "--json"), ("replay", game, "--as", "you", "--json"),
                     ("games", "--json"))
    )
    assert '"??"' in printed  # the draw is there, redacted
    shown_hashes = set(HEX64.findall(printed))

    def hash_if(card: str) -> str:
        return chain_hash(drawn.prev_hash, {**drawn.envelope(), "data": {**drawn.data, "card": card}})

    assert hash_if("8C") == drawn.hash  # the attack itself works: given the hash, 52 tries find the card
    found = [card for card in DECK if hash_if(card) in shown_hashes]
    assert found == [], f"the hidden card {found} can be worked out from a printed hash"


def test_replay_past_the_end_as_a_player_of_a_throw_down_game_exits_2_and_writes_nothing(
    scat: Scat, scat_json: Scat
) -> None:
    game = scat_json("new", "--player", "you", "--player", "eve", "--dealer", "eve", "--throw-down",
                     "--seed", "3")["game_id"]
    before = last_seq(scat_json, game)
    for to in ("999", "0"):
        result = scat("replay", game, "--to", to, "--as", "eve")
        assert result.exit_code == 2 and f"has events 1 to {before}, not {to}" in one_line_error(result)
    assert last_seq(scat_json, game) == before  # eve's look (R23) was not recorded
    assert scat("replay", game, "--to", "2", "--as", "zed").exit_code == 4
    assert last_seq(scat_json, game) == before


def test_looking_as_a_bot_is_refused_while_the_game_runs_in_every_view(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "ann", "--dealer", "ann", "--seed", "3")["game_id"]
    before = last_seq(scat_json, game)
    for args in (("show", game), ("log", game), ("replay", game), ("replay", game, "--to", "2")):
        for extra in ((), ("--json",)):
            result = scat(*args, "--as", "ann", *extra)
            assert result.exit_code == 1 and result.stdout == ""
            assert one_line_error(result) == f"scat: error: {BOT_REFUSED}"
    assert last_seq(scat_json, game) == before


def test_once_the_game_is_over_anyone_may_look_as_a_bot_and_the_row_says_bot_not_you(
    scat: Scat, scat_json: Scat
) -> None:
    over = scat_json("new", "--bot", "ann", "--bot", "bob", "--seed", "11", "--lives", "1")["game_id"]
    for args in (("show", over), ("log", over), ("replay", over, "--to", "2")):
        assert scat(*args, "--as", "ann").exit_code == 0
    table = scat("show", over, "--as", "ann").stdout
    assert "ann (bot)" in table and "(you)" not in table and "you are ann" in table


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_an_imported_running_game_says_it_is_read_only_and_offers_no_moves(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)
    env = imported_into_a_fresh_database(scat, game, tmp_path)
    for args in (("show", game, "--as", "you"), ("show", game), ("replay", game, "--as", "you")):
        out = scat(*args, env=env).stdout
        assert "was imported without its secret seed: it is read-only here" in out
        assert "Your turn." not in out and f"draw {game}" not in out
    refused = scat("draw", game, "--as", "you", "stock", env=env)
    assert refused.exit_code == 1 and "not played on" in one_line_error(refused)


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_an_imported_running_game_is_listed_as_read_only_waiting_for_nobody(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)  # you to play
    env = imported_into_a_fresh_database(scat, game, tmp_path)
    own = scat_json("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--seed", "2", env=env)["game_id"]
    listed = {row["game_id"]: row for row in scat_json("games", env=env)["games"]}
    assert (listed[game]["turn"], listed[game]["read_only"]) == (None, True)
    assert (listed[own]["turn"], listed[own]["read_only"]) == ("you", False)
    row = next(line for line in scat("games", env=env).stdout.splitlines() if line.startswith(game))
    assert row.split()[1:5] == ["you,", "bob*", "-", "1"] and "active (imported, read-only)" in row
    waiting = scat_json("games", "--waiting-for", "you", env=env)["games"]
    assert [row["game_id"] for row in waiting] == [own]
    assert game not in scat("games", "--waiting-for", "you", env=env).stdout


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_r23_replay_and_log_of_a_read_only_game_never_show_a_face_down_hand(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json, "--throw-down")
    env = imported_into_a_fresh_database(scat, game, tmp_path)
    replayed = scat("replay", game, "--to", "2", "--as", "you", env=env)
    assert replayed.exit_code == 0 and "face down" in replayed.stdout
    assert not any(card in deal_line(replayed.stdout) for card in YOUR_CARDS)
    logged = scat("log", game, "--as", "you", env=env).stdout
    assert not any(card in deal_line(logged) for card in YOUR_CARDS)
    data = scat_json("log", game, "--as", "you", env=env)["events"][1]["data"]["deck"]
    assert not set(YOUR_CARDS) & set(data)


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_show_json_says_read_only_and_whose_turn_as_games_json_does(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)  # you to play
    mine = scat_json("show", game, "--as", "you")
    assert (mine["turn"], mine["read_only"]) == ("you", False)
    env = imported_into_a_fresh_database(scat, game, tmp_path)
    listed = next(row for row in scat_json("games", env=env)["games"] if row["game_id"] == game)
    for viewer in ((), ("--as", "you")):
        shown = scat_json("show", game, *viewer, env=env)
        assert (shown["turn"], shown["read_only"]) == (listed["turn"], listed["read_only"]) == (None, True)

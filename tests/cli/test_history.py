"""The record through the CLI: log, replay, audit, export and import."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import CONTRACT_FIELDS, EVERY_MODE, THIRTY_ONE, Scat, finished_game, new_game, one_line_error
from tests.support.databases import migrated
from tests.support.store import tamper

RECORD_FIELDS = {"game_id", "seq", "type", "schema_version", "recorded_at", "data", "prev_hash", "hash"}


pytestmark = EVERY_MODE


def test_log_prints_one_line_per_event_hiding_the_bots_cards(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    scat_json("discard", game, "--as", "you", "2C")
    lines = scat("log", game, "--as", "you").stdout.splitlines()
    last_seq = scat_json("show", game)["last_seq"]
    assert [int(line.split()[0]) for line in lines] == list(range(1, last_seq + 1))
    assert re.fullmatch(r"\s+2  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d  HandDealt\s+bob dealt hand 1 "
                        r"\(stacked deck\): you 2C 5D 9H; the discard pile starts with 7C", lines[1])
    assert "you drew 8C from the stock" in lines[2]
    public = scat("log", game).stdout
    assert "8C" not in public and "2C 5D 9H" not in public
    assert not {"KS", "QS", "4D"} & set(scat("log", game, "--as", "you").stdout.split())


def test_log_json_redacts_while_running_and_reveals_everything_once_over(scat_json: Scat) -> None:
    game = new_game(scat_json)
    deal = scat_json("log", game, "--as", "you")["events"][1]
    assert deal["type"] == "HandDealt" and deal["data"]["deck"][:7] == ["2C", "??", "5D", "??", "9H", "??", "7C"]
    assert set(deal["data"]["deck"][7:]) == {"??"}
    over = finished_game(scat_json)
    events = scat_json("log", over)["events"]
    assert "??" not in json.dumps(events) and events[-1]["type"] == "GameWon"


def test_replay_shows_the_state_after_a_given_event_as_a_player_saw_it(scat: Scat, scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    then = scat_json("replay", game, "--to", "2", "--as", "you")
    assert CONTRACT_FIELDS <= set(then)
    assert (then["last_seq"], then["hand"], then["stock_count"], then["phase"]) == (2, ["2C", "5D", "9H"], 45, "draw")
    assert scat_json("replay", game)["last_seq"] == scat_json("show", game)["last_seq"]
    human = scat("replay", game, "--to", "3", "--as", "you").stdout
    assert human.startswith(f"Replayed to event 3 of {game}: you drew 8C from the stock")
    assert "Your hand: 2C 5D 9H 8C" in human
    assert scat("replay", game, "--to", "99").exit_code == 2  # a bad SEQ is bad input; 4 is no such game


def test_replay_of_a_finished_game_still_shows_only_what_the_player_saw_then(scat_json: Scat) -> None:
    over = finished_game(scat_json)
    early = scat_json("replay", over, "--to", "2", "--as", "ann")
    assert "hands" not in early and len(early["hand"]) == 3


def test_audit_of_a_sound_game_says_ok_and_exits_0(scat: Scat, scat_json: Scat,
                                                   scat_env: dict[str, str | None]) -> None:
    game = finished_game(scat_json)
    result = scat("audit", game)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"game {game}: OK, ") and "recomputed from the revealed seed" in result.stdout
    report = scat_json("audit", game)
    key_id = scat_json("key", "show")["key_id"]
    server = scat_env["SCAT_SERVER"]  # through a server, its key signs (and its key is not this installation's)
    signer = "the server" if server else "this installation"
    assert report == {"game_id": game, "ok": True, "events": report["events"], "first_bad_seq": None,
                      "problems": [], "seed_verified": True, "first_deck_stacked": False,
                      "seed_chosen": True,  # finished_game is created with --seed (#14 item 4)
                      "signature": "valid", "key_id": key_id, "signed_by": signer,
                      "origin_signature": None, "origin_key_id": None, "moves_signed": 0, "moves_verified": 0}
    whose = f"the server's key (the key of {server})" if server else "this installation's key"
    assert result.stdout.rstrip().endswith(f"; head signed by {whose} {key_id}")


def test_audit_names_the_first_tampered_event_and_exits_1(scat: Scat, games_db: str, scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    tamper(games_db, "UPDATE events SET data = replace(data, '8C', '8D') WHERE game_id = :g AND seq = 3", g=game)
    result = scat("audit", game)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"game {game}: FAILED at event 3: ")
    report = json.loads(scat("audit", game, "--json").stdout)
    assert (report["ok"], report["first_bad_seq"]) == (False, 3) and report["problems"]


def test_audit_catches_a_deleted_tail(scat: Scat, games_db: str, scat_json: Scat) -> None:
    game = new_game(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    tamper(games_db, "DELETE FROM events WHERE game_id = :g AND seq = 3", g=game)
    report = json.loads(scat("audit", game, "--json").stdout)
    assert (report["ok"], report["first_bad_seq"]) == (False, 3)


def test_audit_all_reports_every_game(scat: Scat, games_db: str, scat_json: Scat) -> None:
    good, bad = finished_game(scat_json), new_game(scat_json)
    assert scat_json("audit", "--all") == {"games": [scat_json("audit", good), scat_json("audit", bad)], "ok": True}
    tamper(games_db, "UPDATE events SET data = replace(data, '7C', '7D') WHERE game_id = :g AND seq = 2", g=bad)
    result = scat("audit", "--all")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [result.stdout.splitlines()[0], "2 games audited: 1 FAILED"]
    assert result.stdout.startswith(f"game {bad}: FAILED at event 2")
    assert scat("audit").exit_code == 2 and scat("audit", good, "--all").exit_code == 2


def test_export_jsonl_writes_one_record_per_event(scat: Scat, scat_json: Scat) -> None:
    game = finished_game(scat_json)
    records = [json.loads(line) for line in scat("export", game).stdout.splitlines()]
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert all(RECORD_FIELDS <= set(r) and r["game_id"] == game for r in records)
    assert records[0]["type"] == "GameCreated" and records[-1]["type"] == "GameWon"


def test_export_json_is_one_document_with_the_head_of_the_chain(scat: Scat, scat_json: Scat) -> None:
    game = finished_game(scat_json)
    document = json.loads(scat("export", game, "--format", "json").stdout)
    assert document["format"] == "scat-export" and document["game_id"] == game
    assert document["last_seq"] == len(document["events"]) and document["head_hash"] == document["events"][-1]["hash"]
    assert json.loads(scat("export", game, "--json").stdout) == document


def test_export_text_is_a_transcript_hand_by_hand_with_a_header(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    game = finished_game(scat_json)
    path = tmp_path / "game.txt"
    result = scat("export", game, "--format", "text", "-o", str(path))
    assert result.stdout.startswith(f"wrote game {game} (")
    transcript = path.read_text()
    assert transcript.startswith('[Event "Scat (Thirty-One)"]\n' f'[Game "{game}"]\n')
    for tag in ('[Players "ann (bot), bob (bot)"]', '[Options "lives 1"]', '[Seed "11"]', "[Result "):
        assert tag in transcript
    assert "\nHand 1 (dealer " in transcript and "  1. " in transcript and "Result: " in transcript


@pytest.mark.local_only("a server exports running games never (tests/server covers its exports)")
def test_export_all_writes_one_file_per_game(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    games = {finished_game(scat_json), new_game(scat_json)}
    folder = tmp_path / "out"
    summary = json.loads(scat("export", "--all", "-o", str(folder), "--running", "--json").stdout)
    assert {item["game_id"] for item in summary["files"]} == games
    assert {path.name for path in folder.iterdir()} == {f"{game}.jsonl" for game in games}
    assert scat("export", "--all").exit_code == 2


@pytest.mark.local_only("it imports into a second database (tests/server covers imports through a server)")
def test_an_exported_game_imports_into_a_fresh_database_audits_clean_and_looks_the_same(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json, deck=THIRTY_ONE)
    scat_json("knock", game, "--as", "you")
    for fmt in ("jsonl", "json"):
        path = tmp_path / f"game.{fmt}"
        scat("export", game, "--format", fmt, "-o", str(path), "--running")
        env = {"SCAT_DB_URL": migrated(f"sqlite:///{tmp_path / f'fresh-{fmt}.db'}")}
        imported = scat("import", str(path), env=env)
        assert imported.stdout == (f"imported game {game}: {scat_json('show', game)['last_seq']} events, audited OK; "
                                   f"export signed by this installation's key {scat_json('key', 'show')['key_id']}\n")
        assert json.loads(scat("audit", game, "--json", env=env).stdout)["ok"]
        there, here = json.loads(scat("show", game, "--json", env=env).stdout), scat_json("show", game)
        assert (there.pop("read_only"), there.pop("turn"), here.pop("read_only")) == (True, None, False)  # read-only
        del here["turn"]
        assert there == here
        duplicate = scat("import", str(path), env=env)
        assert duplicate.exit_code == 1 and "already in this database" in one_line_error(duplicate)


@pytest.mark.local_only("it imports into a second database (tests/server covers imports through a server)")
def test_import_refuses_a_tampered_history_and_writes_nothing(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    game = finished_game(scat_json)
    lines = scat("export", game).stdout.splitlines()
    record = json.loads(lines[5])
    record["data"]["card"] = "AS" if record["data"].get("card") != "AS" else "KS"
    lines[5] = json.dumps(record)
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sql_url = str(tmp_path / "empty.db")
    env = {"SCAT_DB_URL": f"sqlite:///{sql_url}"}
    result = scat("import", str(path), env=env)
    assert result.exit_code == 1 and "at event 6" in one_line_error(result)
    assert json.loads(scat("games", "--json", env=env).stdout) == {"games": [], "total": 0}


@pytest.mark.local_only("it imports into a second database (tests/server covers imports through a server)")
def test_import_refuses_a_json_export_whose_tail_was_cut(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    game = finished_game(scat_json)
    document = json.loads(scat("export", game, "--format", "json").stdout)
    document["events"] = document["events"][:-3]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(document))
    result = scat("import", str(path), env={"SCAT_DB_URL": f"sqlite:///{tmp_path / 'other.db'}"})
    assert result.exit_code == 1 and "events were removed" in one_line_error(result)


def test_import_of_something_that_is_no_export_exits_2_and_a_missing_file_4(scat: Scat, tmp_path: Path) -> None:
    for name, content, why in (("notes.txt", "hello", "not a scat export"),
                               ("list.json", '[{"seq": 1}]', "not a scat export"),
                               ("empty.jsonl", "", "is empty"), ("other.json", '{"a": 1}', "not a scat export")):
        path = tmp_path / name
        path.write_text(content)
        result = scat("import", str(path))
        assert result.exit_code == 2, (name, result.output)
        assert why in one_line_error(result), name
    missing = scat("import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 4 and "no file" in one_line_error(missing)


@pytest.mark.local_only("it imports into a second database (tests/server covers imports through a server)")
def test_import_of_a_forged_history_that_cannot_even_be_replayed_exits_1(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    from scat_core.records.stored_log import GENESIS_HASH, chain_hash

    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "6")["game_id"]
    records = [json.loads(line) for line in scat("export", game, "--running").stdout.splitlines()]
    records[1]["data"]["deck"] = records[1]["data"]["deck"][:4]  # too short to deal
    previous = GENESIS_HASH
    for record in records:  # a forger recomputes the chain
        record["prev_hash"], record["hash"] = previous, chain_hash(previous, record)
        previous = record["hash"]
    path = tmp_path / "forged.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    env = {"SCAT_DB_URL": f"sqlite:///{tmp_path / 'other.db'}"}
    result = scat("import", str(path), env=env)
    assert result.exit_code == 1 and "refused" in one_line_error(result)
    assert json.loads(scat("games", "--json", env=env).stdout) == {"games": [], "total": 0}


def test_the_audit_of_a_game_dealt_from_a_given_deck_says_only_the_later_deals_came_from_the_seed(
    scat: Scat, scat_json: Scat
) -> None:
    from tests.support.cli import YOUR_DEAL

    over = scat_json("new", "--bot", "ann", "--bot", "bob", "--deck", YOUR_DEAL, "--seed", "11", "--lives", "1")
    game = over["game_id"]
    assert over["status"] == "finished"
    verdict = scat("audit", game).stdout
    assert "hand 1 was dealt from a deck given at creation (--deck); every later deal recomputed from the " \
           "revealed seed" in verdict
    assert "and every deal recomputed" not in verdict
    report = scat_json("audit", game)
    assert (report["ok"], report["seed_verified"], report["first_deck_stacked"]) == (True, True, True)
    assert {"game_id", "ok", "events", "first_bad_seq", "problems"} <= set(report)
    assert report in scat_json("audit", "--all")["games"]
    running = new_game(scat_json)
    assert "hand 1 from the deck given with --deck" in scat("audit", running).stdout
    assert scat_json("audit", running)["first_deck_stacked"] is True
    assert scat_json("audit", finished_game(scat_json))["first_deck_stacked"] is False


@pytest.mark.local_only("a server exports running games never (tests/server covers its exports)")
def test_an_export_to_a_folder_that_does_not_exist_prints_only_the_error_line(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)
    target = tmp_path / "nonexistent" / "dir" / "x.jsonl"
    result = scat("export", game, "--running", "-o", str(target))
    assert result.exit_code == 4 and result.stdout == ""
    assert one_line_error(result) == f"scat: error: cannot write {target}: its folder does not exist"


def test_export_json_without_o_refuses_another_format_and_with_o_prints_the_summary(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = finished_game(scat_json)
    for fmt in ("text", "jsonl"):
        refused = scat("export", game, "-f", fmt, "--json")
        assert refused.exit_code == 2 and refused.stdout == ""
        assert one_line_error(refused).startswith(f"scat: error: --json without -o prints the json document, "
                                                  f"not --format {fmt}")
    assert json.loads(scat("export", game, "-f", "json", "--json").stdout)["format"] == "scat-export"
    path = tmp_path / "game.txt"
    summary = json.loads(scat("export", game, "-f", "text", "--json", "-o", str(path)).stdout)
    assert summary == {"format": "text", "files": [{"game_id": game, "path": str(path), "events": summary["files"][0]
                                                    ["events"]}], "skipped": []}
    assert path.read_text().startswith('[Event "Scat (Thirty-One)"]')


def import_edited_document(scat: Scat, scat_json: Scat, tmp_path: Path, **changes: object) -> tuple[Any, Any]:
    """Import a finished game's json export with its top-level fields changed: the result, the document."""
    game = finished_game(scat_json)
    document = json.loads(scat("export", game, "--format", "json").stdout)
    document.update(changes)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    return scat("import", str(path), env={"SCAT_DB_URL": f"sqlite:///{tmp_path / 'other.db'}"}), document


def test_import_refuses_a_json_export_whose_head_hash_is_not_its_last_events_hash_saying_so(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    result, document = import_edited_document(scat, scat_json, tmp_path, head_hash="0" * 64)
    last = document["events"][-1]["seq"]
    assert result.exit_code == 1
    line = one_line_error(result)
    assert f"its head_hash does not match the hash of its last event {last}" in line and "declares" not in line


def test_import_refuses_a_json_export_whose_game_id_is_not_its_events_game(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    result, _ = import_edited_document(scat, scat_json, tmp_path, game_id="someother")
    assert result.exit_code == 1 and "says it is game 'someother' but its events are of game" in one_line_error(result)


def test_import_refuses_a_json_export_of_an_unknown_version_as_unreadable(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    for version in (2, "1", None, True):
        result, _ = import_edited_document(scat, scat_json, tmp_path, version=version)
        assert result.exit_code == 2, (version, result.output)
        assert f"is a scat export of version {version!r}, not an export this scat can read" in one_line_error(result)

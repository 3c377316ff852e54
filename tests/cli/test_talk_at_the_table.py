"""`scat say`: one line at the game's table, on a database and through `scat serve`. It is an event
of the log (shown by log, replay, show's last few, every export), audited and imported as any;
players out of the game and after its end may speak, someone without a seat may not (exit 3),
and a message is one line of printable text of at most 500 characters (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import EVERY_MODE, Scat, one_line_error

pytestmark = EVERY_MODE


def a_game(scat_json: Scat) -> str:
    return str(scat_json("new", "--player", "ann", "--player", "bob", "--bot", "cy", "--dealer", "cy",
                         "--seed", "7")["game_id"])


def test_a_message_is_in_the_log_and_show_tells_the_last_few(scat: Scat, scat_json: Scat) -> None:
    game = a_game(scat_json)
    said = scat("say", game, "--as", "bob", "hello, ann")
    assert said.exit_code == 0, said.output
    assert said.stdout.startswith("bob said: hello, ann")
    for count in range(6):
        scat_json("say", game, "--as", "ann", f"line {count}")
    lines = [event["text"] for event in scat_json("log", game)["events"] if event["type"] == "MessageSaid"]
    assert lines[0] == "bob said: hello, ann" and len(lines) == 7
    messages = scat_json("show", game)["messages"]
    assert [m["text"] for m in messages] == [f"line {count}" for count in range(1, 6)]
    assert messages[-1]["player"] == "ann" and messages[-1]["recorded_at"].endswith("Z")
    assert "Said at the table:" in scat("show", game).stdout
    assert scat_json("show", game)["turn"] == "ann"  # talk is no move: the turn is where it was


def test_replay_to_an_event_shows_what_had_been_said_by_then(scat: Scat, scat_json: Scat) -> None:
    game = a_game(scat_json)
    first = scat_json("say", game, "--as", "bob", "before")["message"]["seq"]
    scat_json("say", game, "--as", "ann", "after")
    then = scat_json("replay", game, "--to", str(first))
    assert [m["text"] for m in then["messages"]] == ["before"]
    assert [m["text"] for m in scat_json("replay", game)["messages"]] == ["before", "after"]


def test_someone_without_a_seat_cannot_speak_and_a_bad_line_is_refused(scat: Scat, scat_json: Scat) -> None:
    game = a_game(scat_json)
    stranger = scat("say", game, "--as", "zed", "hi")
    assert stranger.exit_code == 3 and "has no seat in it" in one_line_error(stranger)
    for text, why in (("", "empty"), ("a\nb", "one line"), ("x" * 501, "at most 500")):
        result = scat("say", game, "--as", "ann", text)
        assert result.exit_code == 2 and why in one_line_error(result), result.output
    assert not any(event["type"] == "MessageSaid" for event in scat_json("log", game)["events"])


def test_after_the_end_players_still_talk_and_every_export_and_the_audit_hold_the_messages(
    scat: Scat, scat_json: Scat, cli_mode: str, tmp_path: Path,
) -> None:
    game = a_game(scat_json)
    scat_json("say", game, "--as", "ann", "good luck")
    scat_json("resign", game, "--as", "bob", "--yes")
    scat_json("say", game, "--as", "bob", "I am out, but I still talk")
    ended = scat_json("resign", game, "--as", "ann", "--yes")
    assert ended["status"] == "finished" and ended["winner"] == "cy"
    after = scat("say", game, "--as", "ann", "well played, cy")
    assert after.exit_code == 0, after.output
    report = scat_json("audit", game)
    assert report["ok"] and report["seed_verified"]
    text = scat("export", game, "--format", "text").stdout
    assert "ann said: well played, cy" in text and "Result: cy wins" in text
    lines = [json.loads(line) for line in scat("export", game, "--format", "jsonl").stdout.splitlines()]
    assert [line["data"]["text"] for line in lines if line["type"] == "MessageSaid"][-1] == "well played, cy"
    assert scat_json("show", game)["status"] == "finished"
    if cli_mode == "local":  # imported into a second database, audited, messages and all
        path = tmp_path / "game.jsonl"
        path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        imported = scat("--db", f"sqlite:///{tmp_path / 'other.db'}", "import", str(path))
        assert imported.exit_code == 0, imported.output

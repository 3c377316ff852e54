"""`scat wait` and `scat watch`, woken by a move another process makes: on SQLite (polling), on
PostgreSQL (LISTEN/NOTIFY) and through `--server` (the event stream; on PostgreSQL the waiter's
server and the mover's are two processes)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scat_cli.wiring import open_database
from tests.support.cli import Scat, imported_into_a_fresh_database, new_game, one_line_error
from tests.support.databases import migrated
from tests.support.decks import stacked

SCAT = str(Path(sys.executable).parent / "scat")
# you are dealt first (bob deals): you 2C 5D 9H, eve KS QS 4D; discard 7C; stock 8C 3H ...
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])
# you hold 31 at once; one life each and no dole: declaring ends the game
THIRTY_ONE = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H"])


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The real `scat`, to the end."""
    result = subprocess.run([SCAT, *args], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, (args, result.stderr)
    return result


def start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """The real `scat`, in the background."""
    return subprocess.Popen([SCAT, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_wait_returns_when_another_process_makes_it_your_turn(places: tuple[dict[str, str], dict[str, str]]) -> None:
    waiter_env, mover_env = places
    created = json.loads(run(mover_env, "new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer",
                             "bob", "--deck", DEAL, "--protect", "--json").stdout)
    game = created["game_id"]
    waiter_env = {**waiter_env, "SCAT_TOKEN": created["tokens"]["eve"]}  # given to eve (another server, maybe)
    timed_out = subprocess.run([SCAT, "wait", game, "--as", "eve", "--timeout", "0.5"], env=waiter_env,
                               capture_output=True, text=True, timeout=60, check=False)
    assert timed_out.returncode == 6 and timed_out.stderr == (
        f"scat: error: still not the turn of eve in game {game} after 0.5 seconds\n")
    waiting = start(waiter_env, "wait", game, "--as", "eve", "--timeout", "45", "--json")
    time.sleep(1.0)
    assert waiting.poll() is None  # still waiting: it is your turn, not eve's
    run(mover_env, "draw", game, "--as", "you", "stock")
    run(mover_env, "discard", game, "--as", "you", "2C")
    out, err = waiting.communicate(timeout=45)
    assert waiting.returncode == 0, err
    view = json.loads(out)
    assert (view["turn"], view["you"], view["hand"]) == ("eve", "eve", ["KS", "QS", "4D"])
    assert "5D" not in out and "8C" not in out  # your cards stay hidden from eve


def test_watch_prints_each_move_as_it_happens_until_the_game_ends(
    places: tuple[dict[str, str], dict[str, str]], tmp_path: Path
) -> None:
    waiter_env, mover_env = places
    game = json.loads(run(mover_env, "new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--deck",
                          THIRTY_ONE, "--lives", "1", "--no-dole", "--protect", "--json").stdout)["game_id"]
    printed = tmp_path / "watched.jsonl"
    with printed.open("w") as into:
        watching = subprocess.Popen([SCAT, "watch", game, "--json"], env=waiter_env, stdout=into,
                                    stderr=subprocess.PIPE, text=True)
    # the move waits for its first line: it has read the game running (a watch started after the end
    # would see every card)
    guard = time.monotonic() + 120  # a hang guard: the line is there long before on any machine
    while not printed.read_text() and watching.poll() is None and time.monotonic() < guard:
        time.sleep(0.05)
    assert watching.poll() is None
    run(mover_env, "declare", game, "--as", "you")
    _, err = watching.communicate(timeout=45)
    assert watching.returncode == 0, err
    lines = [json.loads(line) for line in printed.read_text().splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["type"] == "GameCreated" and lines[-1]["type"] == "GameWon"
    assert lines[1]["data"]["deck"][0] == "??"  # the public watched: your hand was dealt face down
    assert "declared 31" in " ".join(line["text"] for line in lines)


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_waiting_on_a_read_only_game_is_refused_at_once(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = new_game(scat_json)
    env = imported_into_a_fresh_database(scat, game, tmp_path)
    refused = scat("wait", game, "--as", "you", "--timeout", "5", env=env)
    assert refused.exit_code == 1 and refused.stdout == ""
    assert "was imported without its secret seed" in one_line_error(refused)
    assert "not played on" in one_line_error(refused)


def test_a_timed_out_wait_reads_right_for_any_name_and_one_second(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer", "bob",
                     "--seed", "1")["game_id"]
    waiter = "eve" if scat_json("show", game)["turn"] == "you" else "you"
    timed_out = scat("wait", game, "--as", waiter, "--timeout", "1")
    assert timed_out.exit_code == 6
    assert one_line_error(timed_out) == f"scat: error: still not the turn of {waiter} in game {game} after 1 second"


@pytest.mark.local_only("it imports into a second database")
def test_waiting_on_a_read_only_protected_game_is_refused_as_read_only_not_as_a_wrong_token(
    scat: Scat, scat_json: Scat, cli_db: str, tmp_path: Path
) -> None:
    # docs/commands.md (`import`): `wait` refuses a running game imported (read-only here), exit 1; its tokens
    # were not exported, which is no failed authentication (exit 3). Such an export comes from
    # elsewhere (`scat export` refuses a running protected game): the records are copied here.

    game = new_game(scat_json, "--protect")
    fresh = tmp_path / "fresh.db"
    source, target = open_database(migrated(cli_db)), open_database(migrated(f"sqlite:///{fresh}"))
    from scat_core.service.signatures import with_export_signature

    with source.store.read() as tx:  # as an export carries it: the head's signature on the last record
        assert target.import_records(with_export_signature(tx.load_raw(game), tx.read_signature(game))).ok
    source.store.engine.dispose()
    target.store.engine.dispose()
    env = {"SCAT_DB_URL": f"sqlite:///{fresh}"}
    for token in ("", "anything"):
        refused = scat("wait", game, "--as", "you", "--timeout", "5", env={**env, "SCAT_TOKEN": token})
        assert refused.exit_code == 1 and refused.stdout == ""
        assert "was imported without its secret seed" in one_line_error(refused)
        assert "not played on" in one_line_error(refused)
    assert scat("wait", game, "--as", "nobody", env=env).exit_code == 4  # still no such player


def test_in_a_throw_down_game_watch_keeps_your_new_hand_face_down_unless_you_look(
    places: tuple[dict[str, str], dict[str, str]]
) -> None:
    """A watch as a player records no look at his face-down hand (R23) unless --look: his throw down stays his."""
    import signal

    waiter_env, mover_env = places
    created = json.loads(run(mover_env, "new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--throw-down",
                             "--protect", "--seed", "7", "--json").stdout)
    game, env = created["game_id"], {**waiter_env, "SCAT_TOKEN": created["tokens"]["you"]}

    def watched(*look: str) -> list[dict[str, object]]:
        watching = start(env, "watch", game, "--as", "you", "--json", *look)
        assert watching.stdout is not None
        lines = []
        for line in watching.stdout:
            lines.append(json.loads(line))
            if lines[-1]["seq"] == created["last_seq"]:
                break
        watching.send_signal(signal.SIGINT)  # Ctrl-C: the way to stop watching
        assert watching.wait(30) == 0, watching.communicate()[1]
        return lines

    deal = next(line for line in watched() if line["type"] == "HandDealt")
    assert "you looked" not in run(mover_env, "log", game).stdout
    assert "??" in json.dumps(deal["data"])  # his own cards too: face down
    watched("--look")
    assert "you looked at the hand dealt to you" in run(mover_env, "log", game).stdout

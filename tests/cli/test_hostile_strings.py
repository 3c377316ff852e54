"""#14 items 1, 2, 9: a string from a history is never a path or a terminal command.

The database is edited directly here (as an attacker with write access would, past the
triggers), so the strings reach the CLI without any import validation: every human output
must still escape them, and `export --all` must still build file names from valid ids only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from scat_cli.render import terminal_safe
from scat_core.store.sql.database import make_engine
from tests.support.cli import Scat, finished_game, one_line_error

HOSTILE = "ann\x1b[2J\x1b]0;owned\x07\nscat: error: forged\u202e"


def rename_everywhere(url: str, old: str, new: str) -> None:
    """Replace `old` by `new` in every stored event and games row, past the triggers (SQLite)."""
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER events_no_update"))
        encoded = json.dumps(new)[1:-1]
        conn.execute(text("UPDATE events SET data = replace(data, :old, :new), game_id = replace(game_id, :o, :n)"),
                     {"old": f'"{old}"', "new": f'"{encoded}"', "o": old, "n": new})
        conn.execute(text("UPDATE games SET players = replace(players, :old, :new), "
                          "game_id = replace(game_id, :o, :n), winner = replace(winner, :o, :n)"),
                     {"old": f'"{old}"', "new": f'"{encoded}"', "o": old, "n": new})
    engine.dispose()


def assert_no_raw_controls(output: str) -> None:
    for char in ("\x1b", "\x07", "\u202e"):
        assert char not in output, repr(output)
    assert not any(line.startswith("scat: error: forged") for line in output.splitlines()), output


def test_terminal_safe_shows_every_control_character() -> None:
    """One escaping function; ESC, newlines, C1 and bidi overrides become visible."""
    assert terminal_safe(HOSTILE) == "ann\\x1b[2J\\x1b]0;owned\\x07\\nscat: error: forged\\u202e"
    assert terminal_safe("\x9b31m \u2066x\u2069 ok é ♠") == "\\x9b31m \\u2066x\\u2069 ok é ♠"


def test_names_from_a_damaged_history_reach_no_terminal_raw(scat: Scat, scat_json: Scat, cli_db: str,
                                                                  tmp_path: Path) -> None:
    """Show, games, log, audit and the text export print hostile names escaped."""
    game = finished_game(scat_json)
    rename_everywhere(cli_db, "ann", HOSTILE)
    for args in (("show", game), ("games",), ("log", game), ("audit", game), ("audit", "--all"),
                 ("export", game, "--format", "text"), ("replay", game)):
        result = scat(*args)
        assert "Traceback" not in result.output
        assert_no_raw_controls(result.stdout)
        assert_no_raw_controls(result.stderr)
    shown = scat("show", game, "--json")
    assert "\u202e" not in shown.stdout and "Traceback" not in shown.output


def test_an_error_naming_a_hostile_id_is_one_escaped_line(scat: Scat) -> None:
    """An error message never carries a newline or ESC from its input."""
    result = scat("show", "x\x1b[2J\nscat: error: forged")
    assert result.exit_code == 4
    assert_no_raw_controls(one_line_error(result))


def test_export_all_never_writes_outside_its_folder(scat: Scat, scat_json: Scat, cli_db: str,
                                                          tmp_path: Path) -> None:
    """A game id `../x` made export --all write DIR/../x.jsonl."""
    game = finished_game(scat_json)
    honest = finished_game(scat_json)
    rename_everywhere(cli_db, game, "../escaped")
    folder = tmp_path / "out"
    result = scat("export", "--all", "-o", str(folder), "--json")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "escaped.jsonl").exists()
    assert sorted(p.name for p in folder.iterdir()) == [f"{honest}.jsonl"]
    assert json.loads(result.stdout)["skipped"] == [{"game_id": "../escaped", "reason": "invalid id"}]
    audit = scat("audit", "--all", "--json")
    assert audit.exit_code == 1
    failed = [r for r in json.loads(audit.stdout)["games"] if not r["ok"]]
    assert [r["game_id"] for r in failed] == ["../escaped"]


def test_export_all_does_not_follow_a_planted_link(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    """DIR/<id>.jsonl planted as a link to a file elsewhere is not written through."""
    game = finished_game(scat_json)
    folder, victim = tmp_path / "out", tmp_path / "victim.txt"
    folder.mkdir()
    victim.write_text("precious")
    (folder / f"{game}.jsonl").symlink_to(victim)
    result = scat("export", "--all", "-o", str(folder))
    assert result.exit_code == 2 and "cannot write" in one_line_error(result)
    assert victim.read_text() == "precious"


@pytest.mark.parametrize(("first", "second", "why"), [
    ("ann", "\u0430nn", "look alike"), ("ann", "Ann", "must differ"), ("bob", "b\u03bfb", "look alike"),
    ("Il", "ll", "look alike"), ("jo", "j\u043e", "look alike"),
])
def test_look_alike_names_are_refused(scat: Scat, first: str, second: str, why: str) -> None:
    """`ann` and Cyrillic `аnn` in one game could not be told apart."""
    result = scat("new", "--player", first, "--player", second)
    assert result.exit_code == 2, result.output
    assert why in one_line_error(result)
    assert json.loads(scat("games", "--json").stdout) == {"games": [], "total": 0}


def test_names_are_normalised_nfkc_and_trimmed(scat_json: Scat, scat: Scat) -> None:
    """`ann ` was a second player beside `ann`; fullwidth `ａｎｎ` is `ann`."""
    assert scat("new", "--player", "ann", "--player", "ann ").exit_code == 2
    assert scat("new", "--player", "ann", "--player", "\uff41nn").exit_code == 2
    created = scat_json("new", "--player", "  \uff41nn ", "--bot", "bob", "--dealer", " bob", "--seed", "7")
    assert [p["name"] for p in created["players"]] == ["ann", "bob"]
    assert scat_json("show", created["game_id"], "--as", " \uff41nn")["you"] == "ann"  # --as normalised too


def test_a_normalised_as_name_sees_what_the_seated_name_sees(scat_json: Scat) -> None:
    """`--as "  ａnn "` is ann: her log and show (news included) tell her own cards as for `--as ann`."""
    game = scat_json("new", "--player", "ann", "--bot", "bob", "--dealer", "bob", "--seed", "5")["game_id"]
    for command in ("log", "show"):
        plain, spaced = scat_json(command, game, "--as", "ann"), scat_json(command, game, "--as", "  \uff41nn ")
        plain.pop("viewer", None), spaced.pop("viewer", None)  # the name as given
        assert spaced == plain, command

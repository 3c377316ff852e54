"""Game id prefixes for every GAME argument, `export -o FILE.json`, and `new` without players."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import Scat, one_line_error
from tests.support.databases import migrated

GAME_COMMANDS = [
    ("show",), ("log",), ("replay",), ("audit",), ("export", "--running"),
    ("draw", "--as", "you", "stock"), ("knock", "--as", "you"), ("resign", "--as", "you"),
]


def two_games(scat_json: Scat) -> tuple[str, str]:
    """Two games; returns their ids."""
    first = scat_json("new", "--player", "you", "--bot", "ann", "--seed", "1", "--dealer", "ann")["game_id"]
    second = scat_json("new", "--player", "you", "--bot", "ann", "--seed", "2", "--dealer", "ann")["game_id"]
    return first, second


def unique_prefix(game: str, other: str) -> str:
    length = next(i for i in range(1, len(game) + 1) if not other.startswith(game[:i]))
    return game[:length]


@pytest.mark.parametrize("command", GAME_COMMANDS, ids=lambda c: c[0])
def test_every_command_taking_a_game_accepts_a_unique_prefix_of_its_id(
    scat: Scat, scat_json: Scat, command: tuple[str, ...]
) -> None:
    game, other = two_games(scat_json)
    result = scat(command[0], unique_prefix(game, other), *command[1:])
    assert result.exit_code == 0, result.output
    if command[0] in ("show", "audit"):
        assert game in result.stdout
    assert scat_json("show", game)["last_seq"] >= 2


def test_an_ambiguous_prefix_is_a_usage_error_listing_the_matches(scat: Scat, scat_json: Scat) -> None:
    ids = [scat_json("new", "--player", "you", "--bot", "ann", "--seed", str(seed))["game_id"] for seed in range(17)]
    first = ids[0][0]
    sharing = sorted(game for game in ids if game.startswith(first))
    if len(sharing) < 2:  # 17 random ids over 16 hex digits share a first digit (pigeonhole)
        first = next(g[0] for g in ids if sum(o.startswith(g[0]) for o in ids) > 1)
        sharing = sorted(game for game in ids if game.startswith(first))
    before = [scat_json("show", game)["last_seq"] for game in sharing]
    result = scat("knock", first, "--as", "you")
    assert result.exit_code == 2
    line = one_line_error(result)
    assert f"'{first}' is the start of {len(sharing)} game ids" in line
    assert all(game in line for game in sharing[:8])
    assert [scat_json("show", game)["last_seq"] for game in sharing] == before  # nothing written


def test_a_prefix_of_no_game_is_not_found(scat: Scat, scat_json: Scat) -> None:
    two_games(scat_json)
    result = scat("show", "zz")
    assert result.exit_code == 4 and "no game 'zz'" in one_line_error(result)


@pytest.mark.parametrize(("suffix", "kind"), [(".json", "json"), (".jsonl", "jsonl"), (".txt", "text")])
def test_export_o_file_follows_the_suffix_unless_format_is_given(
    scat: Scat, scat_json: Scat, tmp_path: Path, suffix: str, kind: str
) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--seed", "4", "--lives", "1")["game_id"]
    path = tmp_path / f"game{suffix}"
    result = scat("export", game, "-o", str(path))
    assert result.exit_code == 0 and f"{kind}) to {path}" in result.stdout
    text = path.read_text()
    if kind == "json":
        assert json.loads(text)["format"] == "scat-export"
    elif kind == "jsonl":
        assert json.loads(text.splitlines()[0])["seq"] == 1
    else:
        assert text.startswith('[Event "Scat (Thirty-One)"]')
    forced = tmp_path / f"forced{suffix}"
    assert scat("export", game, "-o", str(forced), "--format", "jsonl").exit_code == 0
    assert json.loads(forced.read_text().splitlines()[0])["seq"] == 1  # --format wins


def test_new_without_players_is_a_usage_error_with_a_hint(scat: Scat, scat_json: Scat) -> None:
    result = scat("new")
    assert result.exit_code == 2
    line = one_line_error(result)
    assert "--player NAME" in line and "scat new --player you --bot ann --bot bob" in line
    assert scat_json("games")["games"] == []  # nothing written


def test_an_export_saved_with_a_utf8_bom_is_imported(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    for suffix in ("jsonl", "json"):
        path = tmp_path / f"g.{suffix}"
        assert scat("export", game, "-o", str(path)).exit_code == 0
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        other = migrated(f"sqlite:///{tmp_path / f'other-{suffix}.db'}")
        result = scat("import", str(path), env={"SCAT_DB_URL": other})
        assert result.exit_code == 0, result.output

"""config.toml: `scat config show|set|unset`, and a flag beating the environment, which beats the file."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from scat_cli.settings import config_path
from tests.support.cli import Scat, one_line_error

#: No database or server from the environment: the file's are the ones left.
NO_ENV = {"SCAT_DB_URL": None, "SCAT_SERVER": None, "SCAT_AS": None}


def _write(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _game(scat: Scat, *players: str, db: str) -> str:
    """A game of `players` and the bot ann, dealt by ann: the first of `players` is to act (R11; seeded,
    so that ann is not dealt a 31 she would declare at once, R20, ending the hand)."""
    created = scat("--db", db, "new", *(word for name in players for word in ("--player", name)), "--bot", "ann",
                   "--dealer", "ann", "--seed", "7", "--json", env=NO_ENV)
    assert created.exit_code == 0, created.output
    return str(json.loads(created.stdout)["game_id"])


def test_config_set_show_and_unset_keep_a_toml_file_in_the_config_directory(scat: Scat) -> None:
    assert scat("config", "set", "server", "https://scat.example.org", env=NO_ENV).exit_code == 0
    assert scat("config", "set", "as", "you", env=NO_ENV).exit_code == 0
    assert tomllib.loads(config_path().read_text(encoding="utf-8")) == {
        "server": "https://scat.example.org", "as": "you"}
    shown = json.loads(scat("config", "show", "--json", env=NO_ENV).stdout)
    assert shown["file"] == str(config_path()) and shown["exists"] is True
    assert shown["in_force"]["server"] == {"value": "https://scat.example.org", "from": "file"}
    assert shown["in_force"]["as"] == {"value": "you", "from": "file"}
    assert scat("config", "unset", "server", env=NO_ENV).exit_code == 0
    assert tomllib.loads(config_path().read_text(encoding="utf-8")) == {"as": "you"}
    human = scat("config", "show", env={**NO_ENV, "SCAT_AS": "bea"}).stdout
    assert "as       bea  [environment]" in human and "server   (not set)  [default]" in human


def test_config_file_sits_beside_the_installation_key() -> None:
    from platformdirs import user_config_dir

    from scat_core.records.signing import default_key_path

    assert config_path().parent == default_key_path().parent == Path(user_config_dir("scat", appauthor=False))


@pytest.mark.parametrize(("key", "value", "why"), [
    ("sever", "http://x", "'sever' is not a config key (did you mean server?): write one of server, db, as"),
    ("server", "127.0.0.1:8731", "a server URL starts with http:// or https://"),
    ("db", "postgres://me@host/scat", "write postgresql+psycopg:// instead of postgres://"),
    ("as", "no/slashes", "is not a usable player name"),
])
def test_config_set_refuses_unknown_keys_and_bad_values_and_writes_nothing(scat: Scat, key: str, value: str,
                                                                            why: str) -> None:
    path = _write('as = "you"\n')
    before = path.read_bytes()
    refused = scat("config", "set", key, value, env=NO_ENV)
    assert refused.exit_code == 2 and why in one_line_error(refused)
    assert path.read_bytes() == before and os.listdir(path.parent) == ["config.toml"]


def test_config_set_refuses_a_server_beside_a_database(scat: Scat) -> None:
    _write('db = "sqlite:////tmp/scat.db"\n')
    refused = scat("config", "set", "server", "http://127.0.0.1:8731", env=NO_ENV)
    assert refused.exit_code == 2 and "run `scat config unset db` first" in one_line_error(refused)


def test_server_comes_from_the_flag_then_the_environment_then_the_file(scat: Scat) -> None:
    _write('server = "http://127.0.0.1:1"\n')

    def reached(*flags: str, env: dict[str, str | None]) -> str:
        result = scat(*flags, "games", env=env)
        assert result.exit_code == 2
        return one_line_error(result)

    assert "cannot reach the server http://127.0.0.1:1" in reached(env=NO_ENV)
    by_env = {**NO_ENV, "SCAT_SERVER": "http://127.0.0.1:2"}
    assert "cannot reach the server http://127.0.0.1:2" in reached(env=by_env)
    assert "cannot reach the server http://127.0.0.1:3" in reached("--server", "http://127.0.0.1:3", env=by_env)


def test_database_comes_from_the_flag_then_the_environment_then_the_file(scat: Scat, cli_db: str,
                                                                          tmp_path: Path) -> None:
    other = f"sqlite:///{tmp_path / 'other.db'}"
    in_file, in_other = _game(scat, "you", db=cli_db), _game(scat, "you", db=other)
    _write(f"db = {json.dumps(cli_db)}\n")

    def listed(*flags: str, env: dict[str, str | None]) -> list[str]:
        result = scat(*flags, "games", "--json", env=env)
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        return [game["game_id"] for game in (document["games"] if isinstance(document, dict) else document)]

    assert listed(env=NO_ENV) == [in_file]
    assert listed(env={**NO_ENV, "SCAT_DB_URL": other}) == [in_other]
    assert listed("--db", cli_db, env={**NO_ENV, "SCAT_DB_URL": other}) == [in_file]
    _write('server = "http://127.0.0.1:1"\n')
    assert listed("--db", other, env=NO_ENV) == [in_other]  # the flag --db beats the file's server


def test_as_comes_from_the_flag_then_the_environment_then_the_file(scat: Scat, cli_db: str) -> None:
    game = _game(scat, "you", "bea", db=cli_db)
    _write(f'as = "you"\ndb = {json.dumps(cli_db)}\n')

    def viewer(*words: str, env: dict[str, str | None]) -> str:
        result = scat("show", game, *words, "--json", env=env)
        assert result.exit_code == 0, result.output
        return str(json.loads(result.stdout)["you"])

    assert viewer(env=NO_ENV) == "you"
    assert viewer(env={**NO_ENV, "SCAT_AS": "bea"}) == "bea"
    assert viewer("--as", "you", env={**NO_ENV, "SCAT_AS": "bea"}) == "you"


def test_as_in_the_file_is_the_default_of_as_only(scat: Scat, cli_db: str) -> None:
    _game(scat, "you", "bea", db=cli_db)
    _write(f'as = "you"\ndb = {json.dumps(cli_db)}\n')
    stats = scat("stats", "--json", env=NO_ENV)
    assert stats.exit_code == 0 and len(json.loads(stats.stdout)["players"]) == 3  # not `--player you`


def test_a_database_from_the_file_is_not_repeated_in_hints(scat: Scat, cli_db: str) -> None:
    _write(f"db = {json.dumps(cli_db)}\n")
    missing = scat("show", "0000000000", env=NO_ENV)
    assert missing.exit_code == 4 and "(see `scat games`)" in one_line_error(missing)


@pytest.mark.parametrize(("text", "why"), [
    ("server = \n", "is not valid TOML"),
    ('server = "http://a"\ndb = "sqlite:////tmp/x.db"\n', "sets both server and db"),
    ('db = "postgres://me@host/scat"\n', "write postgresql+psycopg:// instead of postgres://"),
])
def test_a_config_file_scat_cannot_use_is_named_in_one_line(scat: Scat, text: str, why: str) -> None:
    path = _write(text)
    refused = scat("games", env=NO_ENV)
    assert refused.exit_code == 2
    assert str(path) in one_line_error(refused) and why in one_line_error(refused)


def test_help_tells_the_order_of_flag_environment_and_file(scat: Scat) -> None:
    text = " ".join(scat("--help").stdout.split())
    assert "a flag beats the environment (SCAT_SERVER, SCAT_DB_URL, SCAT_AS), which beats the file" in text


def test_times_are_shown_in_the_configured_time_zone_with_its_offset_and_json_keeps_utc(
    scat: Scat, scat_json: Scat, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`timezone` in config.toml (beaten by TZ) turns the times a person reads; JSON stays UTC."""
    assert scat("config", "set", "timezone", "Mars/Olympus").exit_code == 2  # not a zone: nothing written
    assert scat("config", "set", "timezone", "Asia/Kolkata").exit_code == 0
    monkeypatch.delenv("TZ", raising=False)
    game = scat_json("new", "--player", "you", "--bot", "bob")["game_id"]
    recorded = scat_json("log", game)["events"][0]["recorded_at"]
    assert recorded.endswith("Z")
    line = scat("log", game).stdout.splitlines()[0]
    assert "+05:30" in line
    monkeypatch.setenv("TZ", "America/New_York")  # the environment beats the file
    assert re.search(r" -0[45]:00 ", scat("log", game).stdout.splitlines()[0])


def test_an_unknown_key_in_the_file_is_a_warning_and_ignored_and_never_blocks_show_set_or_unset(
        scat: Scat, cli_db: str) -> None:
    path = _write(f'sever = "http://x"\ncolour = "red"\ndb = {json.dumps(cli_db)}\n')
    listed = scat("games", env=NO_ENV)
    assert listed.exit_code == 0, listed.output
    assert ("scat: warning: the config file " + str(path) + " has an unknown key 'sever' (did you mean server?): "
            "ignored (known: server, db, as, timezone; `scat config unset sever` removes it)") in listed.stderr
    assert "unknown key 'colour': ignored" in listed.stderr and listed.stderr.count("sever") == 2
    assert scat("config", "show", env=NO_ENV).exit_code == 0
    assert scat("config", "set", "as", "you", env=NO_ENV).exit_code == 0
    kept = path.read_text()
    assert 'as = "you"' in kept and 'colour = "red"' in kept and 'sever = "http://x"' in kept
    unset = scat("config", "unset", "sever", env=NO_ENV)
    assert unset.exit_code == 0 and "sever unset" in unset.stdout
    assert "sever" not in path.read_text() and 'colour = "red"' in path.read_text()
    assert scat("config", "unset", "as", env=NO_ENV).exit_code == 0


def test_a_mistyped_key_for_set_or_unset_is_told_the_key_it_may_mean(scat: Scat) -> None:
    refused = scat("config", "unset", "srever", env=NO_ENV)
    assert refused.exit_code == 2 and "(did you mean server?)" in one_line_error(refused)
    unlike = scat("config", "set", "colour", "red", env=NO_ENV)
    assert unlike.exit_code == 2 and "did you mean" not in one_line_error(unlike)


def test_hints_leave_out_the_name_the_file_or_the_environment_supplies(scat: Scat, cli_db: str) -> None:
    game = _game(scat, "you", "bea", db=cli_db)
    _write(f'as = "you"\ndb = {json.dumps(cli_db)}\n')
    shown = scat("show", game, env=NO_ENV)
    assert shown.exit_code == 0 and f"scat draw {game} stock" in shown.stdout and "--as" not in shown.stdout
    other = scat("show", game, env={**NO_ENV, "SCAT_AS": "bea"})  # bea's turn is not now: no hint to act
    assert "--as you" not in other.stdout
    typed = scat("show", game, "--as", "you", env={**NO_ENV, "SCAT_AS": "bea"})  # another name than the default
    assert f"scat draw {game} --as you stock" in typed.stdout


def test_config_set_as_is_checked_as_it_will_be_used_on_the_server_where_the_key_is_an_account(
        cli_db: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scat_cli.app import app
    from tests.support.live_server import server_in_thread

    with server_in_thread(cli_db, tokens=False) as server:
        env = {**NO_ENV, "SCAT_SERVER": server, "SCAT_KEY_FILE": str(tmp_path / "ann.pem")}

        def scat_here(*args: str) -> Any:
            return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)

        assert scat_here("account", "register", "ann").exit_code == 0
        refused = scat_here("config", "set", "as", "a b")
        assert refused.exit_code == 2 and f"on {server} your key is the account ann" in one_line_error(refused)
        assert not config_path().exists()
        assert scat_here("config", "set", "as", "ANN").exit_code == 0  # his own name, in any case

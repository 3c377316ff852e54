"""`scat --server`, `scat serve` and the token store: what only the network mode has."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.cli import Scat, one_line_error, real_scat
from tests.support.live_server import server_process


def test_server_with_db_and_server_refused_by_db_upgrade_and_serve_exit_2(scat: Scat) -> None:
    both = scat("--server", "http://127.0.0.1:9", "--db", "sqlite:///x.db", "games")
    assert both.exit_code == 2 and "give --db or --server, not both" in one_line_error(both)
    for args in (("db", "upgrade"), ("db", "check"), ("serve",)):
        refused = scat("--server", "http://127.0.0.1:9", *args)
        assert refused.exit_code == 2 and "not through --server" in one_line_error(refused), args
    unreachable = scat("--server", "http://127.0.0.1:9", "games")
    assert unreachable.exit_code == 2 and "cannot reach the server http://127.0.0.1:9" in one_line_error(unreachable)


def test_a_move_without_as_on_a_server_where_the_user_has_no_account_says_how_to_get_one(scat: Scat) -> None:
    # cli.md: --as may be left out on a server (you act as your account); without one, say so
    for args in (("draw", "0123456789", "stock"), ("say", "0123456789", "hi")):
        missing = scat("--server", "http://127.0.0.1:9", *args)
        assert (missing.exit_code, missing.stdout) == (2, ""), args
        assert ("no --as NAME given, and you have no account on http://127.0.0.1:9 to act as: register one (`scat "
                "--server http://127.0.0.1:9 account register NAME`), or give --as NAME") in one_line_error(missing)
    assert "Missing option '--as'" in one_line_error(scat("draw", "0123456789", "stock"))  # a database: no account


def test_help_imports_neither_the_server_nor_the_client() -> None:
    code = ("import sys; sys.argv = ['scat', '--help']\nfrom scat_cli.app import main\ntry:\n    main()\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in ('fastapi', 'httpx', 'uvicorn', 'starlette') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_tokens_are_remembered_in_a_file_only_its_user_may_read(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    config = tmp_path / "config"
    env = {"XDG_CONFIG_HOME": str(config)}
    created = json.loads(scat("new", "--player", "you", "--player", "eve", "--protect", "--json", env=env).stdout)
    game = created["game_id"]
    path = config / "scat" / "tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert set(json.loads(path.read_text()).values()) == set(created["tokens"].values())
    assert scat("show", game, "--as", "EVE", env=env).exit_code == 0  # names match in any case
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "other")}
    assert scat("show", game, "--as", "eve", env=elsewhere).exit_code == 3
    assert scat("show", game, "--as", "eve", "--token", created["tokens"]["eve"], env=elsewhere).exit_code == 0
    assert scat("show", game, "--as", "eve", env=elsewhere).exit_code == 0  # given once with --token: kept
    assert scat("show", game, "--as", "you", env=elsewhere).exit_code == 3  # only eve's was given there


def test_serve_stops_cleanly_on_sigterm_and_logs_one_line_per_request(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'served.db'}"
    with server_process(url) as (base, process):
        env = {**os.environ, "SCAT_SERVER": base, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
        scat = Path(sys.executable).parent / "scat"
        created = subprocess.run([scat, "new", "--player", "you", "--bot", "ann", "--json"], env=env,
                                 capture_output=True, text=True, check=True)
        game = json.loads(created.stdout)["game_id"]
        assert httpx.get(f"{base}/games/{game}").status_code == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(15) == 0
        log = Path(process.log_path).read_text()  # type: ignore[attr-defined]
    assert "listening on http://127.0.0.1:" in log
    assert "POST /games 201" in log and f"GET /games/{game} 200" in log and "Traceback" not in log


def test_stats_through_a_server_are_the_servers(scat: Scat, scat_json: Scat, cli_db: str) -> None:
    from tests.support.live_server import server_in_thread

    with server_in_thread(cli_db) as url:
        remote = {"SCAT_SERVER": url, "SCAT_DB_URL": None}
        created = scat("new", "--player", "you", "--bot", "ann", "--json", env=remote)  # type: ignore[arg-type]
        assert created.exit_code == 0, created.output
        figures = json.loads(scat("stats", "--json", env=remote).stdout)  # type: ignore[arg-type]
        assert figures == scat_json("stats")  # the same database, read directly
        rebuild = scat("stats", "--rebuild", env=remote)  # type: ignore[arg-type]
        assert rebuild.exit_code == 2 and "run it on the server" in one_line_error(rebuild)


def test_the_hints_ask_for_a_token_only_when_none_is_remembered(scat: Scat, tmp_path: Path) -> None:
    created = json.loads(scat("new", "--player", "you", "--bot", "ann", "--protect", "--json").stdout)
    game = created["game_id"]
    assert "Protected game: give your token" not in scat("show", game, "--as", "you").stdout
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "another-user"), "SCAT_TOKEN": created["tokens"]["you"]}
    assert "Protected game: give your token with --token" in scat("show", game, "--as", "you", env=elsewhere).stdout


def test_serve_on_a_port_in_use_or_a_bad_host_says_so_in_one_line_with_exit_2(tmp_path: Path) -> None:
    # cli.md: exit 2 is bad usage (3 would say authentication failed), one clear line on stderr;
    # and nothing claims to listen before it does.
    url = f"sqlite:///{tmp_path / 'served.db'}"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        in_use = real_scat("serve", "--db", url, "--port", str(port), SCAT_SERVER="")
        # serve's own --db names the database served, whatever server the environment names for the client
        beside_a_server = real_scat("serve", "--db", url, "--port", str(port), SCAT_SERVER="http://127.0.0.1:9")
    assert beside_a_server.stderr == in_use.stderr, beside_a_server.stderr
    assert (in_use.returncode, in_use.stdout) == (2, ""), in_use.stderr
    assert in_use.stderr == (f"scat: error: cannot listen on 127.0.0.1:{port}: the address is in use (another "
                             "server?): choose another --port\n")
    bad_host = real_scat("serve", "--db", url, "--host", "999.1.1.1", "--port", str(port), SCAT_SERVER="")
    assert (bad_host.returncode, bad_host.stdout) == (2, ""), bad_host.stderr
    assert bad_host.stderr.startswith(f"scat: error: cannot listen on 999.1.1.1:{port}: no such address")
    assert len(bad_host.stderr.splitlines()) == 1, bad_host.stderr

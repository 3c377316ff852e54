"""The global settings of one invocation: each of --server, --db and --as from its flag, the environment or config.toml.

A flag beats the environment (SCAT_SERVER, SCAT_DB_URL, SCAT_AS), which beats the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scat_cli.context import CliState
from scat_core.domain.errors import BadInput

#: The commands that read no setting (they read or write config.toml themselves).
_OWN_FILE = {"config"}


@dataclass(frozen=True)
class Setting:
    """One setting's value and where it came from ("flag", "environment", "file" or "default")."""

    value: str | None
    origin: str


def chosen(db: str | None, server: str | None, file: Mapping[str, str]) -> dict[str, Setting]:
    """The server, db and as in force, each with its origin, from the flags given, the environment and the file."""
    env = {key: os.environ.get(name, "").strip() for key, name in
           (("server", "SCAT_SERVER"), ("db", "SCAT_DB_URL"), ("as", "SCAT_AS"))}
    if server is not None or db is not None:
        where = {"server": Setting(server, "flag"), "db": Setting(db, "flag")}
    elif env["server"] or env["db"]:
        where = {"server": Setting(env["server"] or None, "environment"),
                 "db": Setting(None if env["server"] else env["db"], "environment")}
    elif "server" in file or "db" in file:
        where = {"server": Setting(file.get("server"), "file"), "db": Setting(file.get("db"), "file")}
    else:
        where = {"server": Setting(None, "default"), "db": Setting(None, "default")}
    if env["as"]:
        where["as"] = Setting(env["as"], "environment")
    else:
        where["as"] = Setting(file.get("as"), "file")
    zone = os.environ.get("TZ", "").strip()
    where["timezone"] = Setting(zone, "environment") if zone else Setting(file.get("timezone"), "file")
    return {key: setting if setting.value is not None else Setting(None, "default") for key, setting in where.items()}


def settle(ctx: Any, db: str | None, server: str | None) -> CliState:
    """The CliState of this invocation; `--as` defaults to the setting in force (see `chosen`, `as_default`)."""
    from scat_cli.config_file import read_config, server_problem, url_example
    from scat_cli.urls import db_url_problem

    if db is not None and not db.strip():
        raise BadInput("--db needs a URL, e.g. sqlite:///path/scat.db or postgresql+psycopg://user@host/db")
    if server is not None and not server.strip():
        raise BadInput("--server needs a URL, e.g. http://127.0.0.1:8031 or https://scat.example.org")
    if server is not None and db is not None:
        raise BadInput("give --db or --server, not both: with --server the backend keeps the games")
    own_file = ctx.invoked_subcommand in _OWN_FILE
    where = chosen(db, server, {} if own_file else read_config())
    remote, url = where["server"].value, where["db"].value
    if remote:
        problem = server_problem(remote)
        if problem:
            raise BadInput(f"{_named('server', where['server'].origin)} needs a URL starting with http:// or "
                           f"https://, e.g. {url_example(remote)}")
    else:
        origin = where["db"].origin
        typed = url if url is not None else (os.environ.get("SCAT_DB_URL") if origin == "environment" else None)
        problem = db_url_problem(typed) if typed else None
        if problem:
            raise BadInput(f"{_named('db', origin)}: {problem}")
        if typed:
            _refuse_a_relative_path_with_no_folder(typed)
    server_url = remote.strip().rstrip("/") if remote else None
    as_default = where["as"].value
    if as_default is None and server_url is not None:  # on a server where this user's key is an account: as him
        from scat_cli.remote.identity import account_at

        as_default = (account_at(server_url) or {}).get("name")
    return CliState(as_default=as_default, db_url=None if remote or where["db"].origin == "environment" else url,
                    server=server_url,
                    server_given=where["server"].origin == "flag", db_given=where["db"].origin == "flag")


def _refuse_a_relative_path_with_no_folder(url: str) -> None:
    """BadInput for `sqlite:///tmp/x.db` where ./tmp is no folder: SQLite cannot open it; four slashes were meant."""
    from scat_cli.urls import relative_sqlite_path, unopenable_sqlite_hint

    path = relative_sqlite_path(url)
    folder = os.path.dirname(path) if path else ""
    if folder and not os.path.isdir(folder):
        raise BadInput(f"cannot open database {url.strip()}: there is no folder {folder} in the current folder"
                       f"{unopenable_sqlite_hint(url)}")


def _named(key: str, origin: str) -> str:
    """How a setting's source is named in a refusal: --server, SCAT_SERVER, server in config.toml."""
    from scat_cli.config_file import ENVIRONMENT

    return {"flag": f"--{key}", "environment": ENVIRONMENT[key]}.get(origin, f"{key} in config.toml")

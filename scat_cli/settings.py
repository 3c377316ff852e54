"""The settings of one invocation: the global options, where each comes from, and the user's config.toml.

Each of --server, --db and --as comes from its flag, the environment or config.toml: a flag
beats the environment (SCAT_SERVER, SCAT_DB_URL, SCAT_AS), which beats the file. `CliState`
holds them for every command (with the context of the command at work). `config.toml` (keys
`server`, `db`, `as`, `timezone`) sits in the user's config directory, beside the installation
key: its place, reading it, checking values, writing it atomically (tomllib is imported only
when the file exists). Database URLs are checked as a user types them, for the slips worth a
friendly line (`postgres://`, a relative SQLite path): plain string work, no SQLAlchemy.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from scat_core.domain.errors import BadInput

_ACTING: ContextVar[Any] = ContextVar("scat_acting_context", default=None)


@dataclass
class CliState:
    """Global options: the database URL given with --db or config.toml (None: $SCAT_DB_URL or default), and
    the backend given with --server, $SCAT_SERVER or config.toml (None: use a database directly)."""

    db_url: str | None = None
    server: str | None = None
    server_given: bool = False  # --server on the command line (hints then repeat it)
    db_given: bool = True  # --db on the command line (hints then repeat it), not from config.toml
    as_default: str | None = None  # every command's --as when not given: SCAT_AS, else `as` in config.toml


def state(ctx: typer.Context) -> CliState:
    """The global state of this invocation (set by the app callback)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, CliState) else CliState()


@contextmanager
def acting(ctx: Any) -> Iterator[None]:
    """Within: `acting_context()` is `ctx`, the context of the command (or group) at work."""
    token = _ACTING.set(ctx)
    try:
        yield
    finally:
        _ACTING.reset(token)


def acting_context() -> Any:
    """The context of the command at work (see `acting`), or None outside one."""
    return _ACTING.get()


FILE_NAME = "config.toml"
#: Each key of the file -> what it sets (for `scat config show` and the refusals).
KEYS = {"server": "--server URL", "db": "--db URL", "as": "--as NAME", "timezone": "the times shown (TZ)"}
#: Each key -> the environment variable that beats it (and is beaten by the flag).
ENVIRONMENT = {"server": "SCAT_SERVER", "db": "SCAT_DB_URL", "as": "SCAT_AS", "timezone": "TZ"}


def config_dir() -> Path:
    """The user's config directory for scat (platformdirs' `user_config_dir("scat")`, as the installation key's).

    On Linux it is worked out without importing platformdirs (the same rule: $XDG_CONFIG_HOME,
    else ~/.config): every command reads the config file, and start-up time counts.
    """
    if sys.platform == "linux" and "ANDROID_DATA" not in os.environ:
        base = os.environ.get("XDG_CONFIG_HOME", "")
        return Path(base.strip() or os.path.expanduser("~/.config")) / "scat"
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat", appauthor=False))


def config_path() -> Path:
    """Where `config.toml` is (it may not exist)."""
    return config_dir() / FILE_NAME


def read_config(path: Path | None = None) -> dict[str, str]:
    """The values of the config file (empty when there is none); a file scat cannot use is BadInput."""
    path = path or config_path()
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):  # no file, or no config folder at all
        return {}
    except OSError as error:
        raise BadInput(f"cannot read the config file {path}: {error.strerror}") from None
    import tomllib

    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise BadInput(f"the config file {path} is not valid TOML: {error}") from None
    values: dict[str, str] = {}
    for key, value in document.items():
        if key not in KEYS:  # a newer scat's key, or a typo: told, and never in the way of a command
            _warn_once(f"the config file {path} has an unknown key {key!r}{_did_you_mean(key)}: ignored "
                       f"(known: {', '.join(KEYS)}; `scat config unset {key}` removes it)")
            continue
        if not isinstance(value, str):
            raise BadInput(f"the config file {path}: {key} must be a string, e.g. {key} = \"...\"")
        problem = value_problem(key, value)
        if problem:
            raise BadInput(f"the config file {path}: {problem}")
        values[key] = value
    if "server" in values and "db" in values:
        raise BadInput(f"the config file {path} sets both server and db: keep one (`scat config unset db`)")
    return values


_WARNED: set[str] = set()


def _warn_once(text: str) -> None:
    """A warning on stderr, once per process however often the file is read."""
    if text not in _WARNED:
        _WARNED.add(text)
        print(f"scat: warning: {text}", file=sys.stderr, flush=True)


def _did_you_mean(key: str) -> str:
    """` (did you mean server?)` for a key close to a known one, else ""."""
    import difflib

    close = difflib.get_close_matches(key.lower(), list(KEYS), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def key_problem(key: str) -> str | None:
    """What is wrong with `key` as a config key (the nearest known key suggested), or None."""
    if key in KEYS:
        return None
    return f"{key!r} is not a config key{_did_you_mean(key)}: write one of {', '.join(KEYS)}"


def value_problem(key: str, value: str) -> str | None:
    """What is wrong with `value` for `key`, or None."""
    if key not in KEYS:
        return key_problem(key)
    if not value.strip():
        return f"{key} needs a value"
    if key == "server":
        return server_problem(value)
    if key == "db":
        return db_url_problem(value)
    if key == "timezone":
        return zone_problem(value)
    from scat_core.domain.names import name_problem, normalize_name

    return name_problem(normalize_name(value))


def zone_problem(name: str) -> str | None:
    """What is wrong with a time zone name (an IANA name such as Europe/Budapest, or UTC), or None."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        return f"{name.strip()!r} is not a time zone: write an IANA name such as Europe/Budapest, or UTC"
    return None


def url_example(url: str) -> str:
    """`url` with http:// in front, as an example of a server URL (another scheme's, a made-up one)."""
    given = url.strip()
    return "http://127.0.0.1:8031" if "://" in given or not given else f"http://{given}"


def server_problem(url: str) -> str | None:
    """What is wrong with a server URL, or None."""
    if not url.strip().lower().startswith(("http://", "https://")):
        return f"a server URL starts with http:// or https://, e.g. {url_example(url)}"
    return None


def unknown_keys(path: Path | None = None) -> list[str]:
    """The keys of the config file this scat does not know (ignored when read, kept when written)."""
    return [key for key, _ in _other_lines(path or config_path()) if key is not None]


def _other_lines(path: Path, dropped: str | None = None) -> list[tuple[str | None, str]]:
    """The lines of the file at `path` that are not this scat's keys (each with its key, None for a table's
    lines), but for those of the key `dropped`: what a rewrite keeps as it was."""
    import re

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    kept: list[tuple[str | None, str]] = []
    in_table = False
    for line in text.splitlines(keepends=True):
        in_table = in_table or line.lstrip().startswith("[")
        if in_table:
            kept.append((None, line))
            continue
        found = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", line)
        if found and found.group(1) not in KEYS and found.group(1) != dropped:
            kept.append((found.group(1), line if line.endswith("\n") else line + "\n"))
    return kept


def write_config(values: dict[str, str], path: Path | None = None, dropped: str | None = None) -> Path:
    """Write `values` as the config file, atomically (a temporary file renamed over it), keeping the lines of
    keys this scat does not know (but `dropped`'s); its path."""
    import tempfile

    path = path or config_path()
    lines = ["# scat's defaults: a flag beats the environment, which beats this file (`scat config --help`).\n"]
    lines += [f"{key} = {_toml_string(values[key])}\n" for key in KEYS if key in values]
    lines += [line for _, line in _other_lines(path, dropped)]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.writelines(lines)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise BadInput(f"cannot write the config file {path}: {error.strerror}") from None
    return path


def _toml_string(value: str) -> str:
    """`value` as a TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    import json

    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


#: Schemes SQLAlchemy does not load (or loads with a driver scat does not install) -> the one to write.
_SCHEMES = {"postgres": "postgresql+psycopg", "postgresql": "postgresql+psycopg",
            "postgresql+psycopg2": "postgresql+psycopg", "sqlite3": "sqlite"}


def db_url_problem(url: str) -> str | None:
    """What is wrong with a database URL as typed (a scheme scat cannot use), or None."""
    scheme, separator, rest = url.strip().partition("://")
    if not separator:
        return (f"{url.strip()!r} is not a database URL: write sqlite:////absolute/path/scat.db or "
                "postgresql+psycopg://user@host/db")
    better = _SCHEMES.get(scheme.lower())
    if better is not None:
        return f"write {better}:// instead of {scheme}:// (e.g. {better}://{_password_hidden(rest)})"
    return None


def relative_sqlite_path(url: str) -> str | None:
    """The path of an SQLite URL with a relative path (`sqlite:///tmp/x.db` is ./tmp/x.db), else None."""
    scheme, separator, rest = url.strip().partition("://")
    if not separator or not scheme.lower().startswith("sqlite") or not rest.startswith("/"):
        return None
    path = rest[1:].partition("?")[0]
    return path if path and not path.startswith("/") and path != ":memory:" else None


def unopenable_sqlite_hint(url: str) -> str:
    """The hint for an SQLite file that cannot be opened at a relative path ("" for any other URL)."""
    path = relative_sqlite_path(url)
    if path is None:
        return ""
    return (f" ({path} is relative to the current folder: for the absolute path /{path} write four slashes, "
            f"sqlite:////{path})")


def _password_hidden(rest: str) -> str:
    """The part of a URL after `://` with its password (`user:password@`) shown as `***`."""
    userinfo, at, host = rest.partition("@")
    if not at or "/" in userinfo or ":" not in userinfo:
        return rest
    return f"{userinfo.partition(':')[0]}:***@{host}"


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
    path = relative_sqlite_path(url)
    folder = os.path.dirname(path) if path else ""
    if folder and not os.path.isdir(folder):
        raise BadInput(f"cannot open database {url.strip()}: there is no folder {folder} in the current folder"
                       f"{unopenable_sqlite_hint(url)}")


def _named(key: str, origin: str) -> str:
    """How a setting's source is named in a refusal: --server, SCAT_SERVER, server in config.toml."""
    return {"flag": f"--{key}", "environment": ENVIRONMENT[key]}.get(origin, f"{key} in config.toml")

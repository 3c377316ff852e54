"""The user's `config.toml` (keys `server`, `db`, `as`, `timezone`): its place, reading it, checking values,
writing it atomically.

It sits in the user's config directory, beside the installation key. Nothing here is
imported by `scat --help`; tomllib is imported only when the file exists.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from scat_core.domain.errors import BadInput

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
        from scat_cli.urls import db_url_problem

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

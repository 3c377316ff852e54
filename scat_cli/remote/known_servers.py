"""The servers this user's scat knows, by the key each signs with: trust on first use, as SSH does.

`servers.json` in the user's config folder (beside `tokens.json`, mode 0600): each server URL
this scat has talked to -> {"key_id", "public_key", "since"}, the key the server answered
`GET /key` with the first time. The accounts of this user's key are recorded by server key
(identity.py), so two URLs of one server (`http://localhost:8031`, `http://127.0.0.1:8031`)
reach one account. A known URL that answers with another key is refused (exit 3, both key ids
named: `ServerKeyChanged`) until the user forgets it (`scat key forget --server URL`), as SSH
refuses a changed host key. Only the standard library and platformdirs are imported here.
"""

# Imports inside functions: start-up time; the client loads only what a request needs.
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def path() -> Path:
    """The file of known servers (it may not exist yet)."""
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat")) / "servers.json"


def normal(url: str) -> str:
    """`url` as servers are recorded: trimmed, without a trailing slash."""
    return url.strip().rstrip("/")


def known() -> dict[str, dict[str, str]]:
    """URL -> {"key_id", "public_key", "since"}: every server known here (none if the file is missing or unreadable)."""
    try:
        document: Any = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {str(url): entry for url, entry in servers.items()
            if isinstance(entry, dict) and isinstance(entry.get("key_id"), str)}


def key_of(url: str) -> str | None:
    """The key id of the server known at `url`, or None (never talked to, or forgotten)."""
    entry = known().get(normal(url))
    return entry["key_id"] if entry is not None else None


def remember(url: str, key_id: str, public_key: str) -> None:
    """Record that the server at `url` signs with `key_id` (written atomically, mode 0600)."""
    from datetime import UTC, datetime

    servers = known()
    servers[normal(url)] = {"key_id": key_id, "public_key": public_key,
                            "since": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")}
    _write(servers)


def forget(url: str) -> dict[str, str] | None:
    """Forget the key known for `url` (the next contact learns it anew); what was known, or None."""
    servers = known()
    entry = servers.pop(normal(url), None)
    if entry is not None:
        _write(servers)
    return entry


def _write(servers: dict[str, dict[str, str]]) -> None:
    from scat_cli.private_files import write_private_json
    from scat_core.domain.errors import BadInput

    try:
        write_private_json(path(), {"servers": servers})
    except OSError as error:
        raise BadInput(f"cannot record the known servers in {path()}: {error.strerror or error}") from None

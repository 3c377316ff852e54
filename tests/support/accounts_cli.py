"""The real `scat` in-process as one of several accounts of a server, each with his own key file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from scat_cli.app import app


def run(server: str, player: str, keys: Path, *args: str) -> Any:
    """`scat --server SERVER ARGS` in-process, as `player` with his own key file (keys/PLAYER.pem)."""
    env = {"SCAT_SERVER": server, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "SCAT_AS": None,
           "SCAT_KEY_FILE": str(keys / f"{player}.pem")}
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def ok(result: Any) -> Any:
    """The result's JSON (or its text), asserted exit 0."""
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if result.stdout.strip().startswith(("{", "[")) else result.stdout

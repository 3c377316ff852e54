"""Small JSON files of this user's (tokens, accounts, what was told), written atomically and mode 0600."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def write_private_json(path: Path, data: Any) -> None:
    """Replace `path` by `data` as JSON, readable by its user only; OSError when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        json.dump(data, file, indent=1, sort_keys=True)
    os.chmod(temporary, 0o600)  # a temporary file left by a crash keeps its old mode otherwise
    os.replace(temporary, path)

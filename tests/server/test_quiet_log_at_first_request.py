"""A fresh server's first requests leave no warning in its log: pydantic's note that FastAPI's body
alias has no effect (harmless) was logged at the first POST, and read as an error by operators."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROBE = """
import sys, warnings
from fastapi.testclient import TestClient  # (its import warns of its own httpx: not the server's)
warnings.simplefilter("error")  # any warning from here on fails the probe
from scat_cli.server.app import create_app
with TestClient(create_app(sys.argv[1], tokens=True)) as client:
    made = client.post("/games", json={"players": [{"name": "you"}, {"name": "bot", "is_bot": True}]})
    assert made.status_code == 201, made.text
    game, token = made.json()["game_id"], made.json()["tokens"]["you"]
    moved = client.post(f"/games/{game}/moves", json={"move": "draw", "player": "you", "source": "stock"},
                        headers={"authorization": f"Bearer {token}"})
    assert moved.status_code == 200, moved.text
print("quiet")
"""


def test_the_first_post_of_a_new_game_and_of_a_move_warn_of_nothing(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "SCAT_KEY_FILE": str(tmp_path / "key"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", PROBE, f"sqlite:///{tmp_path / 'scat.db'}"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "quiet", done.stderr[-2000:]

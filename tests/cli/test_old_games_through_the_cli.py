"""The referee's game of rules version 1, made by the release before rules version 2 and upgraded
with `scat db upgrade`, played on with the real CLI, on its database and through `scat serve`:
h0 knocks, h1 draws and discards; the showdown deals hand 2, whose hands nobody has seen yet, and
that discard's answer (which once valued h1's face-down hand and crashed after the commit) is
printed whole, exit 0 (tests/service/test_old_games_play_to_their_end.py plays every such game)."""

from __future__ import annotations

import json
import shutil
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.wiring import open_database
from scat_core.store.sql.database import HEAD_REVISION, make_engine, upgrade
from tests.support.live_server import server_in_thread

DATA = Path(__file__).resolve().parents[1] / "data" / "old_releases"
RELEASES: dict[str, Any] = json.loads((DATA / "games_in_progress.json").read_text())


@pytest.fixture
def upgraded_v1(tmp_path: Path) -> Path:
    made = RELEASES["rules_v1"]
    copy = tmp_path / made["file"]
    shutil.copyfile(DATA / made["file"], copy)
    engine = make_engine(f"sqlite:///{copy}")
    assert upgrade(engine) == HEAD_REVISION
    engine.dispose()
    return copy


@pytest.mark.parametrize("through", ["database", "server"])
def test_the_referees_version_1_game_answers_the_discard_after_a_knock_in_one_piece(
    upgraded_v1: Path, through: str,
) -> None:
    """No knock is offered to a face-down hand under min-knock in rules version 1 (its view cannot
    value it); the game audits clean afterwards."""
    copy = upgraded_v1
    game = RELEASES["rules_v1"]["games"][0]["game_id"]
    with ExitStack() as stack:
        if through == "server":
            server = stack.enter_context(server_in_thread(f"sqlite:///{copy}"))
            env = {"SCAT_SERVER": server, "SCAT_DB_URL": None, "SCAT_AS": None}
        else:
            env = {"SCAT_DB_URL": f"sqlite:///{copy}", "SCAT_SERVER": None, "SCAT_AS": None}
        runner = CliRunner()
        for args in (["knock", game, "--as", "h0"], ["draw", game, "--as", "h1", "stock"]):
            assert runner.invoke(app, args, env=env).exit_code == 0
        hand = json.loads(runner.invoke(app, ["show", game, "--as", "h1", "--json"], env=env).stdout)["hand"]
        done = runner.invoke(app, ["discard", game, "--as", "h1", hand[0], "--json"], env=env,
                             catch_exceptions=False)
        assert done.exit_code == 0, done.output
        answer = json.loads(done.stdout)
        assert answer["hand_number"] == 2 and any(event["type"] == "ShowdownHeld" for event in answer["events"])
        assert not any("knock" in move for move in answer["moves"])
    report = open_database(f"sqlite:///{copy}").audit(game)
    assert report.ok and report.events == answer["last_seq"]

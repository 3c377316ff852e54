"""#14.5 at the command line: a move on a damaged history is exit 1, one line naming the audit."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import create_engine, text

from tests.support.cli import Scat, new_game, one_line_error


def test_a_move_after_the_last_event_was_deleted_is_refused_and_the_audit_still_fails(
    scat: Scat, scat_json: Scat, cli_db: str
) -> None:
    game = new_game(scat_json)
    assert scat("draw", game, "--as", "you", "stock").exit_code == 0
    engine = create_engine(cli_db)
    with engine.begin() as conn:  # someone with the database file: triggers dropped, last event gone
        conn.execute(text("DROP TRIGGER events_no_delete"))
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq = "
                          "(SELECT max(seq) FROM events WHERE game_id = :g)"), {"g": game})
        left = conn.execute(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": game}).scalar_one()
    engine.dispose()

    result = scat("draw", game, "--as", "you", "stock")
    assert result.exit_code == 1
    line = one_line_error(result)
    assert line.startswith("scat: error: history damaged: ") and "events were removed" in line
    assert line.endswith(f"run `scat audit {game}`")
    assert len(scat_json("log", game)["events"]) == left  # nothing appended
    shown = scat("show", game, "--as", "you")  # showing goes through the same check
    assert shown.exit_code == 1 and "history damaged" in one_line_error(shown)
    assert scat("audit", game).exit_code == 1  # not healed: the audit still names the cut


def test_an_export_of_a_cut_history_is_refused_like_a_move(scat: Scat, scat_json: Scat, cli_db: str,
                                                           tmp_path: Path) -> None:
    """`export G --running` wrote the cut log and exited 0; now exit 1 as a command is refused."""
    game = new_game(scat_json)
    whole = new_game(scat_json)
    assert scat("draw", game, "--as", "you", "stock").exit_code == 0
    engine = create_engine(cli_db)
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER events_no_delete"))
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq = "
                          "(SELECT max(seq) FROM events WHERE game_id = :g)"), {"g": game})
    engine.dispose()

    result = scat("export", game, "--running")
    assert result.exit_code == 1 and result.stdout == ""
    line = one_line_error(result)
    assert line.startswith("scat: error: history damaged: ") and "events were removed" in line
    assert line.endswith(f"run `scat audit {game}`")

    folder = tmp_path / "out"
    every = scat("export", "--all", "--running", "-o", str(folder))  # the others still exported
    assert every.exit_code == 0, every.output
    assert sorted(path.name for path in folder.iterdir()) == [f"{whole}.jsonl"]
    assert f"skipped game {game}: history damaged" in every.stderr


def test_a_deleted_head_signature_of_a_game_made_signed_is_damage_for_audit_and_moves(
    scat: Scat, scat_json: Scat, cli_db: str
) -> None:
    """It read "head NOT signed" with exit 0, and the next move went on (#23 item 4)."""
    game = new_game(scat_json)
    events = len(scat_json("log", game)["events"])
    engine = create_engine(cli_db)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM head_signatures WHERE game_id = :g"), {"g": game})
    engine.dispose()

    audit = scat("audit", game)
    assert audit.exit_code == 1 and audit.stdout.startswith(f"game {game}: FAILED: the head signature was removed")
    assert json.loads(scat("audit", game, "--json").stdout)["signature"] == "missing"
    every = scat("audit", "--all")
    assert every.exit_code == 1 and every.stdout.endswith("1 game audited: 1 FAILED\n")
    result = scat("draw", game, "--as", "you", "stock")
    assert result.exit_code == 1
    line = one_line_error(result)
    assert line.startswith(f"scat: error: history damaged: game {game}: its head signature was removed")
    assert line.endswith(f"run `scat audit {game}`")
    assert len(scat_json("log", game)["events"]) == events  # nothing appended

"""Histories are forever: rules-version-1 games exported by an older scat import, audit and
finish under this one with version-1 outcomes (rules.md, "rules versions"; R20, R23, R26).

The files in tests/data/v1 were exported by the scat of the last version-1 release (see
tests/data/v1/generate.py); they are never regenerated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.evolve import fold
from scat_core.records.chain import audit_records
from scat_core.service import GameService
from tests.support.domain import records_for
from tests.support.v1_play import play

DATA = Path(__file__).resolve().parents[1] / "data" / "v1"
FINISHED = ["standard", "options", "throw_down_after_knock", "thirty_one_at_showdown", "throw_down"]
GAMES: dict[str, dict[str, Any]] = json.loads((DATA / "games.json").read_text())


def records(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text().splitlines()]


def events_of(rows: list[dict[str, Any]]) -> list[ev.Event]:
    return [ev.from_record(row["type"], row["schema_version"], row["data"]) for row in rows]


def as_rules_version_2(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same moves re-chained as if the game had been created under rules version 2."""
    events = events_of(rows)
    assert isinstance(events[0], ev.GameCreated)
    events[0] = events[0].model_copy(update={"rules_version": 2})
    return records_for(events, rows[0]["game_id"])


@pytest.mark.parametrize("name", [*FINISHED, "in_progress"])
def test_a_version_1_export_is_stored_as_written_and_reads_as_rules_version_1(name: str) -> None:
    rows = records(name)
    assert rows[0]["type"] == "GameCreated" and rows[0]["schema_version"] == 2
    assert "rules_version" not in rows[0]["data"]
    assert fold(events_of(rows)).rules_version == 1
    report = audit_records(rows)
    assert (report.ok, report.problems, report.events) == (True, [], len(rows))
    assert report.seed_verified == (name != "in_progress")


def test_rules_v1_r20_a_31_at_a_showdown_stays_just_the_highest_hand() -> None:
    rows = records("thirty_one_at_showdown")
    showdowns = [e for e in events_of(rows) if isinstance(e, ev.ShowdownHeld) and 31 in e.values.values()]
    assert showdowns
    for showdown in showdowns:  # v1: the lowest lose (R19); the others, without 31, pay nothing
        lowest = min(showdown.values.values())
        assert all(showdown.values[name] == lowest for name in showdown.lives_lost)
    # The same moves under rules version 2 would have settled the 31 as declared (R20): refused.
    report = audit_records(as_rules_version_2(rows))
    first = next(i for i, r in enumerate(rows, 1) if r["type"] == "ShowdownHeld" and 31 in r["data"]["values"].values())
    assert (report.ok, report.first_bad_seq) == (False, first)


def test_rules_v1_r23_a_throw_down_after_a_knock_stays_allowed() -> None:
    rows = records("throw_down_after_knock")
    types = [row["type"] for row in rows]
    thrown = types.index("ThrowDownCalled")
    assert "Knocked" in types[types.index("HandDealt", thrown - 5):thrown]
    assert audit_records(rows).ok
    report = audit_records(as_rules_version_2(rows))  # rules version 2: no throw down after a knock
    assert (report.ok, report.first_bad_seq) == (False, thrown + 1)
    assert "(R23)" in report.problems[0]


@pytest.mark.parametrize("name", FINISHED)
def test_rules_v1_r26_the_winner_keeps_his_own_pennies_and_the_kitty_stays_the_kitty(name: str) -> None:
    events = events_of(records(name))
    won = events[-1]
    assert isinstance(won, ev.GameWon)
    state = fold(events)
    assert state.kitty == won.kitty > 0
    assert sum(p.pennies for p in state.players) + state.kitty == state.options.lives * len(state.players)


@pytest.mark.parametrize("name", FINISHED)
def test_a_version_1_export_imports_and_audits_clean_in_the_database(db_url: str, name: str) -> None:
    service = open_database(db_url)
    rows = records(name)
    service.import_records(rows)
    game_id = GAMES[name]["game_id"]
    report = service.audit(game_id)
    assert (report.ok, report.problems, report.seed_verified) == (True, [], True)
    exported = service.archive.export_records(game_id)
    assert exported[-1].pop("head_signature")["key_id"] == service.store.keys.key_id  # signed here on import
    assert exported == rows  # stored verbatim: never rewritten


def test_a_version_1_game_in_progress_finishes_under_this_scat_with_version_1_outcomes(service: GameService) -> None:
    secret = GAMES["in_progress"]
    game_id = secret["game_id"]
    service.import_records(records("in_progress"))
    with service.store.transaction() as tx:  # as in the database it was created in
        tx.put_secret(game_id, secret["seed"], secret["salt"])
    play(service, game_id, throw_down_after_knock=True)
    expected = records("in_progress_finished_by_v1")
    played = service.archive.export_records(game_id)
    assert [(r["type"], r["schema_version"], r["data"]) for r in played] == [
        (r["type"], r["schema_version"], r["data"]) for r in expected
    ]
    assert played[0] == expected[0]  # still the version-1 GameCreated, byte for byte
    report = service.audit(game_id)
    assert (report.ok, report.seed_verified) == (True, True)
    assert fold(events_of(played)).rules_version == 1

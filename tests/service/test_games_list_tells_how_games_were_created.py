"""Every games list tells whether a game's creator chose its chance (#14 item 4: its seed, its first
deck) and, in the lobby, its options; a server bounds the games one account has waiting by their
creator. The append that creates a game (or imports it whole) keeps what it was created with in the
games read model (#42, migration 0019), so a page reads no log; a game whose row keeps none (added
before), or keeps it in another format or damaged, is told from its first event, the same."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.errors import RuleViolation
from scat_core.domain.options import GameOptions
from scat_core.service import GameService, playing
from scat_core.store.memory import MemoryStore, MemoryTransaction
from tests.support.databases import migrated
from tests.support.services import HUMAN_AND_BOT

DECK = [f"{rank}{suit}" for suit in "SHDC" for rank in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4",
                                                         "3", "2")]
OPTIONS = GameOptions(lives=2, throw_down=True, min_knock=20)


def _made(service: GameService) -> dict[str, tuple[bool, bool]]:
    """Three games (a seed chosen, a deck stacked, neither): their ids and what their creators chose."""
    return {
        service.new_game(HUMAN_AND_BOT, seed=7).game_id: (True, False),
        service.new_game(HUMAN_AND_BOT, deck=DECK).game_id: (False, True),
        service.new_game(HUMAN_AND_BOT, options=OPTIONS).game_id: (False, False),
    }


def _told(service: GameService) -> dict[str, tuple[bool, bool]]:
    return {row.game_id: (row.seed_chosen, row.first_deck_stacked) for row in service.games_page(limit=50).games}


def test_a_list_tells_what_each_creator_chose_of_its_game(any_service: GameService) -> None:
    made = _made(any_service)
    assert _told(any_service) == made
    for game_id in made:
        with any_service.store.read() as tx:
            row = tx.get_game(game_id)
        assert row is not None and row.creation is not None  # kept by the append that created it


def test_a_page_of_games_created_here_reads_no_log(monkeypatch: pytest.MonkeyPatch) -> None:
    service = GameService(MemoryStore())
    made = _made(service)

    def read_the_log(self: MemoryTransaction, game_ids: object) -> None:
        raise AssertionError("a games page read the games' first events")

    monkeypatch.setattr(MemoryTransaction, "first_events", read_the_log)
    assert _told(service) == made


def test_a_row_keeping_no_creation_or_another_format_or_damaged_is_told_from_the_first_event(
    sqlite_url: str,
) -> None:
    service = open_database(migrated(sqlite_url))
    made = _made(service)
    for kept in (None, '{"format": 0}', "not json", '{"format": 1, "seed_chosen": "yes"}',
                 '{"format": 1, "seed_chosen": true, "first_deck_stacked": false, "creator": null, "options": 3}'):
        with service.store.engine.begin() as conn:
            conn.execute(text("UPDATE games SET creation = :kept"), {"kept": kept})
        assert _told(service) == made, kept
    service.store.engine.dispose()


def test_an_imported_game_keeps_its_creation(any_service: GameService) -> None:
    source = GameService(MemoryStore())
    game_id = source.new_game(HUMAN_AND_BOT, seed=7, options=OPTIONS).game_id
    any_service.import_records(source.archive.export_records(game_id, running=True))
    with any_service.store.read() as tx:
        row = tx.get_game(game_id)
    assert row is not None and row.creation is not None
    assert _told(any_service) == {game_id: (True, False)}


def test_the_lobby_tells_each_open_games_options_kept_or_from_its_first_event(sqlite_url: str) -> None:
    service = open_database(migrated(sqlite_url), serving=True)
    game_id = service.new_game_of_accounts([ev.PlayerSeat(name="ann")], viewer="ann", options=OPTIONS,
                                           open_seats=1).game_id
    described = OPTIONS.describe()
    assert described == ["lives 2", "throw-down", "min-knock 20"]
    assert [(row.game_id, row.options) for row in service.games_page(status="open").games] == [(game_id, described)]
    with service.store.engine.begin() as conn:
        conn.execute(text("UPDATE games SET creation = NULL"))
    assert [(row.game_id, row.options) for row in service.games_page(status="open").games] == [(game_id, described)]
    service.store.engine.dispose()


@pytest.mark.parametrize("kept", [True, False], ids=["kept", "from-the-first-event"])
def test_an_accounts_waiting_games_are_counted_by_their_creator(
    kept: bool, sqlite_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(playing, "PENDING_MADE", 2)
    service = open_database(migrated(sqlite_url), serving=True)
    for _ in range(2):
        service.new_game_of_accounts([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob")], viewer="ann")
    service.new_game_of_accounts([ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="ann")], viewer="bob")  # bob's
    if not kept:
        with service.store.engine.begin() as conn:
            conn.execute(text("UPDATE games SET creation = NULL"))
    with pytest.raises(RuleViolation, match="ann has 2 games waiting for their players already"):
        service.new_game_of_accounts([ev.PlayerSeat(name="ann")], viewer="ann", open_seats=1)
    service.new_game_of_accounts([ev.PlayerSeat(name="bob")], viewer="bob", open_seats=1)  # bob made one only
    service.store.engine.dispose()

"""The store signs each game's head in the same transaction as the append (both databases)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scat_core.domain.events import Knocked
from scat_core.records.errors import HistoryDamaged
from scat_core.records.signing import VALID, check_signature
from scat_core.store.sql.appending import read_signature
from scat_core.store.sql.event_store import EventStore


def head_check(store: EventStore, game_id: str) -> tuple[int, str]:
    """(seq the signature row claims, verdict against the log's head)."""
    with store.read() as tx:
        seq, head_hash = tx.head(game_id) or (0, "")
        stored = read_signature(tx.connection, game_id)
        assert stored is not None
        return stored.seq, check_signature(store.keys, stored, game_id, seq, head_hash).status


def test_every_append_signs_the_new_head(store: EventStore) -> None:
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    assert head_check(store, "g") == (1, VALID)
    with store.transaction() as tx:
        tx.append("g", 1, [Knocked(player="bob"), Knocked(player="cy")])
    assert head_check(store, "g") == (3, VALID)


def test_a_rolled_back_append_leaves_the_old_head_and_its_signature(store: EventStore) -> None:
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.append("g", 1, [Knocked(player="bob")])
        raise RuntimeError("the command failed after its append")
    assert head_check(store, "g") == (1, VALID)


def test_imported_records_are_signed_here(store: EventStore) -> None:
    with store.transaction() as tx:
        records = [s.record() for s in tx.append("g", 0, [Knocked(player="ann"), Knocked(player="bob")])]
    with store.transaction() as tx:
        tx.append_raw([{**r, "game_id": "h"} for r in records])  # append_raw verifies nothing: as given
    with store.read() as tx:
        stored = read_signature(tx.connection, "h")
    assert stored is not None and (stored.seq, stored.hash) == (2, records[-1]["hash"])


def test_no_append_is_signed_over_a_head_whose_signature_was_altered(store: EventStore) -> None:
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE head_signatures SET seq = 7"))  # the signature itself is untouched
    assert head_check(store, "g") == (7, VALID)  # judged against the log's head, not the row's claim
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE head_signatures SET signature = 'AAAA' || substr(signature, 5)"))
    with pytest.raises(HistoryDamaged, match="damaged: the head signature"), store.transaction() as tx:
        tx.append("g", 1, [Knocked(player="bob")])
    with store.read() as tx:
        assert tx.head("g") == (1, tx.load("g")[0].hash)


def test_a_command_load_reads_the_signature_by_its_columns_names_wherever_they_are_selected(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signature's columns are found once, by name, in the statement's SELECT list: one more
    column before them changes nothing (read by position, it would read the wrong columns)."""
    from scat_core.store.sql import log_reads

    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    with store.read() as tx:
        expected = read_signature(tx.connection, "g")
        assert expected is not None and log_reads.load_for_command(tx.connection, "g")[1] == expected
        columns = log_reads.COMMAND_COLUMNS
        at = columns.index("hs.seq")
        statement, where = log_reads.command_load_statement((*columns[:at], "'padding'", *columns[at:]))
        monkeypatch.setattr(log_reads, "COMMAND_LOAD", statement)
        monkeypatch.setattr(log_reads, "SIGNATURE_AT", where)
        assert log_reads.load_for_command(tx.connection, "g")[1] == expected
    with pytest.raises(ValueError, match="together"):
        log_reads.command_load_statement((*columns[:at + 1], "'padding'", *columns[at + 1:]))

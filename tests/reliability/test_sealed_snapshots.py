"""A snapshot is trusted only when it is sealed by this installation's key over its game, its head
and its state (#23 item 4, records/signing.py), on SQLite and PostgreSQL: an edited row is not
played on (the command folds the events and judges the move on the true state), one sealed by
another key is not either, and `scat db check` names the game until a move writes a fresh one."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.wiring import open_database
from scat_core.domain import snapshot
from scat_core.domain.cards import hand_value
from scat_core.domain.commands import Declare31
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.state import GameState
from scat_core.records.signing import KeyRing, seal
from scat_core.service import GameService, loading
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, next_move

THIRTY_ONE = ("AS", "QS", "JS")


def _truth(service: GameService, game_id: str) -> GameState:
    return fold(stored.event for stored in service.reading.history(game_id))


def _dealt(state: GameState, seat: int, cards: tuple[str, ...]) -> GameState:
    """`state` with `cards` in the hand at `seat`, each swapped with a card of that hand from
    wherever it lay (another hand, the stock, the pile): still 52 cards, one place each."""
    hands = [list(hand) for hand in state.hands]
    stock, discard = list(state.stock), list(state.discard)
    spare = [card for card in hands[seat] if card not in cards]
    for card in cards:
        if card in hands[seat]:
            continue
        given = spare.pop()
        for place in (*hands, stock, discard):
            if card in place:
                place[place.index(card)] = given
        hands[seat][hands[seat].index(given)] = card
    return state.evolved({"hands": tuple(tuple(hand) for hand in hands), "stock": tuple(stock),
                          "discard": tuple(discard)})


def _forge(engine: Engine, game_id: str, state: str, mac: str | None = None) -> None:
    """Write `state` into the game's snapshot row, as someone with the database could (its mac kept unless given)."""
    with engine.begin() as conn:
        if mac is None:
            conn.execute(text("UPDATE game_snapshots SET state = :s WHERE game_id = :g"), {"s": state, "g": game_id})
        else:
            conn.execute(text("UPDATE game_snapshots SET state = :s, mac = :m WHERE game_id = :g"),
                         {"s": state, "m": mac, "g": game_id})


def _db_check(db_url: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", db_url, "db", "check"])
    return result.exit_code, result.stdout


def _bob_without_31(service: GameService) -> tuple[str, GameState]:
    """A game in play whose player bob does not hold 31 (so R20 refuses him a declaration)."""
    for moves in range(2, 12):
        game_id = a_game_in_play(service, moves=moves)
        state = _truth(service, game_id)
        seat = state.seat_of("bob")
        assert seat is not None
        if len(state.hands[seat]) == 3 and hand_value(state.hands[seat]) != 31:
            return game_id, state
    raise AssertionError("no such game")


def test_a_hand_forged_in_the_snapshot_row_does_not_let_bob_declare_31(db_url: str) -> None:
    """The red team's move: bob given AS QS JS in the snapshot declared 31 (R20), ann paid and the
    new head was signed. The seal no longer verifies: the command folds the events and refuses."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id, truth = _bob_without_31(service)
    seat = truth.seat_of("bob")
    assert seat is not None
    forged = _dealt(truth, seat, THIRTY_ONE)
    _forge(engine, game_id, snapshot.encode(forged))
    loading.forget_kept_states()  # as the next process, which keeps no state of its own (service/loading.py)
    head = service.reading.history(game_id)[-1]

    with pytest.raises(RuleViolation, match="R20"):
        service.playing.act(game_id, Declare31("bob"))

    assert service.reading.history(game_id)[-1] == head  # nothing written
    assert service.playing.look(game_id) == truth  # the true hands, not the forged ones
    code, shown = _db_check(db_url)
    assert code == 1 and f"snapshot of game {game_id} does not match" in shown, shown
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_move_after_an_edited_snapshot_is_played_on_the_events_and_writes_a_fresh_sealed_one(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=4)
    truth = _truth(service, game_id)
    _forge(engine, game_id, snapshot.encode(truth.evolved({"kitty": 99})))
    loading.forget_kept_states()
    assert _db_check(db_url)[0] == 1

    next_move(service, game_id)

    loading.forget_kept_states()
    after = _truth(service, game_id)
    assert after.kitty == truth.kitty and service.playing.look(game_id) == after
    code, shown = _db_check(db_url)
    assert code == 0 and shown.splitlines()[-1] == "OK", shown
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_snapshot_sealed_with_another_installations_key_is_not_trusted(db_url: str, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A forger who seals with a key of his own (the seal is right, the key is not ours) gets nothing."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id, truth = _bob_without_31(service)
    seat = truth.seat_of("bob")
    assert seat is not None
    head = service.reading.history(game_id)[-1]
    forged = snapshot.encode(_dealt(truth, seat, THIRTY_ONE))
    other = KeyRing(tmp_path / "other" / "key.pem").snapshot_key(create=True)
    assert other is not None
    _forge(engine, game_id, forged, seal(other, game_id, head.seq, head.hash, *snapshot.SNAPSHOT_TAG, forged))
    loading.forget_kept_states()
    decoded: list[str] = []
    real = snapshot.decode
    monkeypatch.setattr(snapshot, "decode", lambda state: decoded.append(state) or real(state))

    with pytest.raises(RuleViolation, match="R20"):
        service.playing.act(game_id, Declare31("bob"))

    assert decoded == [] and service.playing.look(game_id) == truth  # never even decoded
    code, shown = _db_check(db_url)
    assert code == 1 and game_id in shown and "seal does not verify" in shown
    engine.dispose()


def test_a_snapshot_whose_head_was_edited_is_ignored_not_taken_for_damage(db_url: str) -> None:
    """The snapshot's head (seq, hash) proves something only under its seal: edited, the row is
    ignored and the command folds the events; the log itself is sound."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=5)
    truth = _truth(service, game_id)
    with engine.begin() as conn:
        conn.execute(text("UPDATE game_snapshots SET hash = :h WHERE game_id = :g"), {"h": "ab" * 32, "g": game_id})
    loading.forget_kept_states()
    assert service.playing.look(game_id) == truth
    assert service.archive.export_records(game_id, running=True)[-1]["seq"] == truth.version
    next_move(service, game_id)
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_sealed_snapshot_is_used_without_folding_the_events_again(db_url: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The check costs one HMAC: a sound snapshot is still decoded and played on (no full replay)."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=4)
    loading.forget_kept_states()
    decoded: list[str] = []
    real = snapshot.decode
    monkeypatch.setattr(snapshot, "decode", lambda state: decoded.append(state) or real(state))
    assert service.playing.look(game_id) == _truth(service, game_id)
    assert len(decoded) == 1
    assert _db_check(db_url)[0] == 0
    service.store.engine.dispose()

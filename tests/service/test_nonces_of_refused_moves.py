"""A signed move's nonce is spent even when the move is refused (service/playing.py): a rule's
refusal spends it in a transaction of its own; a refusal by the database itself (busy, lost)
keeps it in the process's memory, without a second wait; either way the same request sent
again is a replay (RequestRefused), never the move it asked for."""

from __future__ import annotations

import base64
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scat_cli.wiring import open_database
from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.accounts import key_id_of
from scat_core.domain.errors import RequestRefused, RuleViolation
from scat_core.records.credentials import ActingAccount, RequestNonce
from scat_core.records.errors import DatabaseBusy
from scat_core.records.signing import MoveSignature, sign_move
from scat_core.service import GameService
from tests.support.databases import migrated


class Ann:
    """The account ann on the service's database, and the credential of one signed request of hers."""

    def __init__(self, games: GameService) -> None:
        self.key = Ed25519PrivateKey.generate()
        self.public = base64.b64encode(self.key.public_key().public_bytes_raw()).decode("ascii")
        assert games.accounts is not None
        games.accounts.register("ann", self.public)

    def request(self, nonce: str) -> ActingAccount:
        key_id = key_id_of(self.public)
        return ActingAccount("ann", key_id, self.public, RequestNonce(key_id, nonce, 2_000_000_000, 1_000))

    def sign(self, games: GameService, game_id: str, command: cmd.Command) -> MoveSignature:
        position = games.position(game_id)
        return sign_move(self.key, key_id_of(self.public), game_id, position.seq, position.tag, command)


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[GameService, Ann, str, Path]]:
    """ann's game of accounts against a bot on an SQLite file that waits for no lock (busy timeout 0)."""
    monkeypatch.setenv("SCAT_BUSY_TIMEOUT", "0")
    path = tmp_path / "scat.db"
    games = open_database(migrated(f"sqlite:///{path}"))
    ann = Ann(games)
    played = games.new_game_of_accounts([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bot", is_bot=True)],
                                        dealer="bot", viewer="ann")
    yield games, ann, played.game_id, path
    games.store.engine.dispose()


def test_the_replay_of_a_move_the_database_refused_is_refused_and_not_played(
        table: tuple[GameService, Ann, str, Path]) -> None:
    games, ann, game_id, path = table
    draw = cmd.Draw("ann", "stock")
    signature, request = ann.sign(games, game_id, draw), ann.request("n-busy")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the database's lock
    try:
        with pytest.raises(DatabaseBusy):
            games.move(game_id, draw, request, signature)
    finally:
        other.execute("ROLLBACK")
        other.close()
    with pytest.raises(RequestRefused, match="nonce was used already"):
        games.move(game_id, draw, request, signature)  # the same bytes again, the lock free now
    assert games.show(game_id, "ann", ann.request("n-look")).state.phase == "draw"  # nothing played
    games.move(game_id, draw, ann.request("n-again"), signature)  # a new request of the same move plays it


def test_the_replay_of_a_move_a_rule_refused_is_refused_as_a_replay(table: tuple[GameService, Ann, str, Path]) -> None:
    games, ann, game_id, _ = table
    discard = cmd.Discard("ann", "AS")
    signature, request = ann.sign(games, game_id, discard), ann.request("n-early")
    with pytest.raises(RuleViolation, match="R12"):  # draw first
        games.move(game_id, discard, request, signature)
    with pytest.raises(RequestRefused, match="nonce was used already"):
        games.move(game_id, discard, request, signature)

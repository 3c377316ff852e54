"""A game whose seats are accounts, through the service on the in-memory store: each human move
must carry its player's signature at the game's position, the audit verifies every one (and
that each key was its account's then), and an export imported elsewhere audits the same.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.accounts import key_id_of
from scat_core.domain.errors import AuthFailed
from scat_core.records.chain import audit_records
from scat_core.records.credentials import ActingAccount
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.signing import MoveSignature, sign_move
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from scat_core.service.games import GameService
from scat_core.service.playing import held_then
from scat_core.store.memory import MemoryAccountLog, MemoryStore


class Player:
    """An account's key, and the credential a server gives its signed requests."""

    def __init__(self, name: str) -> None:
        self.name, self.key = name, Ed25519PrivateKey.generate()
        self.public = base64.b64encode(self.key.public_key().public_bytes_raw()).decode("ascii")
        self.acting = ActingAccount(name, key_id_of(self.public), self.public)

    def sign(self, games: GameService[Any], game_id: str, command: cmd.Command) -> MoveSignature:
        position = games.position(game_id)
        return sign_move(self.key, self.acting.key_id, game_id, position.seq, position.tag, command)


@pytest.fixture
def server() -> tuple[GameService[Any], dict[str, Player], str]:
    """A service with accounts ann and bob, and a game they sit in with the bot carl."""
    games = GameService(MemoryStore(), accounts=MemoryAccountLog())
    players = {name: Player(name) for name in ("ann", "bob")}
    assert games.accounts is not None
    for player in players.values():
        games.accounts.register(player.name, player.public)
    seats = [ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="carl", is_bot=True)]
    played = games.new_game_of_accounts(seats, seed=11, dealer="carl", viewer="ann")
    assert played.tokens == {}  # no token is made: each acts with his key
    assert played.state.status == "pending"  # R28: bob has not accepted yet
    bob = players["bob"]
    games.accept(played.game_id, "bob", bob.acting, bob.sign(games, played.game_id, cmd.AcceptSeat("bob")))
    return games, players, played.game_id


def to_act(games: GameService[Any], game_id: str) -> str | None:
    state = games.show(game_id).state
    return None if state.status == "finished" else state.players[state.turn].name


def move(games: GameService[Any], game_id: str, player: Player, command: cmd.PlayerCommand) -> None:
    games.move(game_id, command, player.acting, player.sign(games, game_id, command))


def play_to_the_end(games: GameService[Any], players: dict[str, Player], game_id: str) -> int:
    """Draw and discard a few turns each, then resign (R27) until the bot wins; the moves made."""
    made = 0
    for turn in range(40):
        name = to_act(games, game_id)
        if name is None:
            return made
        player = players[name]
        if turn >= 6:
            move(games, game_id, player, cmd.Resign(name))
            made += 1
            continue
        move(games, game_id, player, cmd.Draw(name, "stock"))
        state = games.show(game_id, name, player.acting).state
        move(games, game_id, player, cmd.Discard(name, state.hands[state.turn][0]))
        made += 2
    raise AssertionError("the game did not end")


def test_every_signed_move_verifies_and_an_import_elsewhere_audits_the_same(
        server: tuple[GameService[Any], dict[str, Player], str]) -> None:
    games, players, game_id = server
    made = play_to_the_end(games, players, game_id)
    report = games.audit(game_id)
    assert report.ok, report.problems
    made += 1  # bob's acceptance (R28), signed as a move is
    assert report.moves_signed == report.moves_verified == made
    records = games.export(game_id).records
    elsewhere = GameService(MemoryStore())  # another installation, which knows none of the accounts
    imported = elsewhere.import_records(records)
    assert imported.ok and imported.moves_signed == imported.moves_verified == made
    assert elsewhere.audit(game_id).moves_verified == made


def rechained(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with their hash chain recomputed, as a forger who holds the database can."""
    prev, out = GENESIS_HASH, []
    for record in records:
        record = {**record, "prev_hash": prev}
        record["hash"] = prev = chain_hash(prev, record)
        out.append(record)
    return out


def test_a_signature_moved_onto_another_history_fails_the_audit_at_its_seq(
        server: tuple[GameService[Any], dict[str, Player], str]) -> None:
    games, players, game_id = server
    play_to_the_end(games, players, game_id)
    records = [dict(record) for record in games.export(game_id).records]
    first_signed = next(r for r in records if r["type"] == "MoveSigned")
    created = records[0]  # another history before the signed move: the game created a year earlier
    created["recorded_at"] = str(int(created["recorded_at"][:4]) - 1) + created["recorded_at"][4:]
    audited = audit_records(rechained(records))
    assert not audited.ok and audited.first_bad_seq == first_signed["seq"]
    assert "another history" in audited.problems[0]


def test_a_human_move_without_its_signature_or_signed_by_another_key_is_refused_and_nothing_written(
        server: tuple[GameService[Any], dict[str, Player], str]) -> None:
    games, players, game_id = server
    name = to_act(games, game_id)
    assert name is not None
    player, draw = players[name], cmd.Draw(name, "stock")
    before = games.head_seq(game_id)
    with pytest.raises(AuthFailed, match="carries no signature"):
        games.move(game_id, draw, player.acting, None)
    mallory = Player(name)
    with pytest.raises(AuthFailed, match="not with"):
        games.move(game_id, draw, player.acting, mallory.sign(games, game_id, draw))
    forged = mallory.sign(games, game_id, draw)
    same_key_id = MoveSignature(forged.seq, forged.tag, player.acting.key_id, forged.signature)
    with pytest.raises(AuthFailed, match="does not verify"):
        games.move(game_id, draw, player.acting, same_key_id)
    other = next(p for p in players.values() if p.name != name)
    with pytest.raises(AuthFailed, match=f"you are {other.name}"):
        games.move(game_id, draw, other.acting, other.sign(games, game_id, draw))
    with pytest.raises(AuthFailed):  # a token is no way into a game whose seats are accounts
        games.move(game_id, draw, "a-token", player.sign(games, game_id, draw))
    assert games.head_seq(game_id) == before


def test_a_move_signed_at_an_older_position_is_refused_as_moved_on(
        server: tuple[GameService[Any], dict[str, Player], str]) -> None:
    games, players, game_id = server
    name = to_act(games, game_id)
    assert name is not None
    player = players[name]
    stale = player.sign(games, game_id, cmd.Knock(name))
    move(games, game_id, player, cmd.Draw(name, "stock"))
    with pytest.raises(ConcurrencyConflict, match="moved on"):
        games.move(game_id, cmd.Knock(name), player.acting, stale)


def test_a_key_acts_for_its_account_from_when_it_was_added_until_it_was_revoked_or_replaced() -> None:
    from scat_core.domain import accounts as acc

    def key(n: int) -> str:
        return base64.b64encode(bytes([n]) * 32).decode("ascii")

    a, b, c, d = (acc.key_id_of(key(n)) for n in (1, 2, 3, 4))
    account = acc.fold([
        acc.AccountRegistered(name="ann", public_key=key(1), key_id=a, at="2026-01-01T00:00:00.000000Z"),
        acc.AccountKeyAdded(name="ann", public_key=key(2), key_id=b, label="desktop", by=a,
                            at="2026-02-01T00:00:00.000000Z"),
        acc.AccountKeyRevoked(name="ann", key_id=a, by=b, at="2026-04-01T00:00:00.000000Z"),
        acc.AccountKeyAdded(name="ann", public_key=key(3), key_id=c, label="phone", by=b,
                            at="2026-05-01T00:00:00.000000Z"),
        acc.AccountRekeyed(name="ann", public_key=key(4), key_id=d, previous_key_id=c,
                           at="2026-06-01T00:00:00.000000Z"),
    ]).named("ann")
    assert account is not None
    assert held_then(account, a, "2026-03-01T00:00:00.000000Z")  # two devices at once
    assert held_then(account, b, "2026-03-01T00:00:00.000000Z")
    assert not held_then(account, a, "2026-04-02T00:00:00.000000Z")  # after its revocation
    assert not held_then(account, b, "2026-01-15T00:00:00.000000Z")  # before it was added
    assert held_then(account, c, "2026-05-15T00:00:00.000000Z")
    assert not held_then(account, b, "2026-06-02T00:00:00.000000Z")  # the rekey replaced every key
    assert not held_then(account, c, "2026-06-02T00:00:00.000000Z")
    assert held_then(account, d, "2026-07-01T00:00:00.000000Z")
    assert not held_then(account, "cccccccccccccccc", "2026-03-01T00:00:00.000000Z")


def test_a_move_signed_at_a_position_stands_when_only_messages_came_after_it_and_the_audit_verifies(
    server: tuple[GameService[Any], dict[str, Player], str],
) -> None:
    """A message never fails a concurrent move: ann signs her draw, bob speaks before it arrives
    (signed at an older position too), and the draw stands; every signature verifies."""
    games, players, game_id = server
    name = to_act(games, game_id)
    assert name is not None
    mover = players[name]
    other = players["bob" if name == "ann" else "ann"]
    draw = cmd.Draw(name, "stock")
    early = mover.sign(games, game_id, draw)
    said = cmd.Say(other.name, "good luck")
    games.say(game_id, other.name, said.text, other.acting, other.sign(games, game_id, said))
    stale = other.sign(games, game_id, said)
    games.move(game_id, draw, mover.acting, early)  # signed before the message: it stands
    games.say(game_id, other.name, said.text, other.acting, stale)  # a message signed before the move too
    with pytest.raises(ConcurrencyConflict):  # a move signed before another move is still refused
        games.move(game_id, cmd.Discard(name, "AS"), mover.acting, early)
    report = games.audit(game_id)
    assert (report.ok, report.moves_signed, report.moves_verified) == (True, 4, 4)  # bob's acceptance too


def test_a_message_is_signed_by_its_speaker_and_a_stranger_cannot_speak(
    server: tuple[GameService[Any], dict[str, Player], str],
) -> None:
    games, players, game_id = server
    ann, bob = players["ann"], players["bob"]
    with pytest.raises(AuthFailed):  # bob's key does not speak as ann
        games.say(game_id, "ann", "hi", bob.acting, bob.sign(games, game_id, cmd.Say("ann", "hi")))
    with pytest.raises(AuthFailed):  # carl is a bot; a spectator has no seat: neither speaks here
        games.say(game_id, "dan", "hi", ann.acting, ann.sign(games, game_id, cmd.Say("dan", "hi")))

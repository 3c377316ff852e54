"""What one account may ask of others on a server is bounded per sender and per sender and
invitee, never by a cap on the invitee that strangers could fill: games of its making waiting for
players, invitations of one same account, and lines said in a game in ten minutes."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.domain.errors import RuleViolation
from scat_core.service import playing
from scat_core.service.games import GameService
from scat_core.store.memory import MemoryStore


def seats(*names: str) -> list[ev.PlayerSeat]:
    return [ev.PlayerSeat(name=name) for name in names]


@pytest.fixture
def server() -> GameService[MemoryStore]:
    return GameService(MemoryStore(), server=True)


def test_one_account_invites_another_to_three_waiting_games_at_most_and_others_still_may(
    server: GameService[MemoryStore],
) -> None:
    for _ in range(playing.PENDING_PER_INVITEE):
        server.new_game_of_accounts(seats("ann", "bob"), viewer="ann")
    with pytest.raises(RuleViolation, match="ann invites bob to 3 games already"):
        server.new_game_of_accounts(seats("ann", "bob"), viewer="ann")
    server.new_game_of_accounts(seats("zed", "bob"), viewer="zed")  # bob has no cap strangers could fill
    server.new_game_of_accounts(seats("ann", "cy"), viewer="ann")


def test_one_account_has_twenty_games_waiting_for_players_at_most(
    server: GameService[MemoryStore], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(playing, "PENDING_MADE", 4)
    for _ in range(4):
        server.new_game_of_accounts(seats("ann"), viewer="ann", open_seats=1)
    with pytest.raises(RuleViolation, match="ann has 4 games waiting for their players already"):
        server.new_game_of_accounts(seats("ann"), viewer="ann", open_seats=1)
    assert len(server.reading.list_games(status="pending")) == 4  # nothing written


def test_a_player_says_twenty_lines_in_ten_minutes_at_most_in_a_game(server: GameService[MemoryStore]) -> None:
    game = server.new_game(seats("ann", "bob")).game_id
    for count in range(playing.MESSAGES_IN_WINDOW):
        server.say(game, "ann", f"line {count}")
    with pytest.raises(RuleViolation, match="ann said 20 lines in this game in the last 10 minutes"):
        server.say(game, "ann", "one more")
    server.say(game, "bob", "my turn to talk")

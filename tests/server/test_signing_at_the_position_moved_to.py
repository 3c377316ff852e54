"""A signed move's answer carries the game's new position, so a long-lived client (scat play, a
bot of one's own) signs its next move there without asking for the head first; a position gone
stale (the game moved meanwhile) costs one refusal and a fresh look, never a lost move."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scat_cli.remote.client import RemoteGames
from scat_cli.remote.identity import Identity
from scat_core.domain import commands as cmd
from scat_core.domain import events as ev


class Counted(RemoteGames):
    """A client that counts the looks at a game's head it sends."""

    heads = 0

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        self.heads += path.endswith("/head")
        return super().request(method, path, **kwargs)


@pytest.fixture
def ann(server_url: str, tmp_path: Path) -> Iterator[Counted]:
    """ann's client, her account registered."""
    with Counted(server_url, Identity(tmp_path / "ann.pem")) as games:
        games.request("POST", "/accounts", json={"name": "ann", "public_key": games.identity.public_key})
        yield games


def turn(games: RemoteGames, game: str, phase: str, hand: list[str]) -> Any:
    """ann's draw, or her discard of her first card, whichever is due."""
    if phase == "discard":
        return games.move(game, cmd.Discard(player="ann", card=hand[0]))
    return games.move(game, cmd.Draw(player="ann", source="stock"))


def test_moves_in_a_row_are_signed_at_the_position_each_answer_gave(ann: Counted) -> None:
    created = ann.new_game([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bot", is_bot=True)], viewer="ann")
    assert created.position is not None and created.position.seq == created.state.version
    played = created
    for _ in range(6):
        assert played.state.status == "active"
        played = turn(ann, created.game_id, played.state.phase, played.state.hands[0])
    assert ann.heads == 0  # every move signed where the answer before it left the game
    assert played.position is not None and played.position.seq == played.state.version


def test_a_position_gone_stale_costs_one_fresh_look_and_the_move_stands(ann: Counted, tmp_path: Path) -> None:
    created = ann.new_game([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bot", is_bot=True)], viewer="ann")
    with Counted(ann.base_url, Identity(tmp_path / "ann.pem")) as elsewhere:  # ann in a second terminal
        moved = elsewhere.move(created.game_id, cmd.Draw(player="ann", source="stock"))
    played = turn(ann, created.game_id, moved.state.phase, moved.state.hands[0])  # her first client: stale
    assert ann.heads == 1
    assert played.state.version > moved.state.version
    assert [event.type for event in played.events][:2] == ["MoveSigned", "CardDiscarded"]

"""How the rules-version-1 histories of tests/data/v1 were played: humans make the heuristic bot's moves."""

from __future__ import annotations

from scat_core.domain import commands as cmd
from scat_core.domain.bots import heuristic_move
from scat_core.service.games import GameService


def play(
    service: GameService,
    game_id: str,
    *,
    stop_after: int | None = None,
    throw_down_after_knock: bool = False,
    throw_down_first: bool = False,
) -> None:
    """Play the humans with the heuristic bot's moves until the game ends (or `stop_after` events)."""
    while True:
        state = service.playing.look(game_id)
        if state.status == "finished" or (stop_after is not None and state.version >= stop_after):
            return
        humans = [p for p in state.players if not p.is_bot and not p.out]
        moved = False
        for player in humans:
            unseen = state.hand_unseen(player.seat)
            wants_throw = (
                unseen
                and state.phase == "draw"
                and (
                    (throw_down_after_knock and state.knocker is not None)
                    or (throw_down_first and state.hand_number == 1)
                )
            )
            if wants_throw:
                service.playing.act(game_id, cmd.ThrowDown(player.name))
                moved = True
                break
        if moved:
            continue
        assert state.turn is not None and not state.players[state.turn].is_bot, state
        name = state.players[state.turn].name
        if state.hand_unseen(state.turn):
            state = service.playing.look(game_id, name)
        move = heuristic_move(state, state.turn)
        assert move is not None
        service.playing.act(game_id, move)

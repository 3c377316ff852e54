"""The JSON view of a game for `scat show --json` and the other commands: the contract's fields.

Built from a state the service already redacted for its viewer (scat_core.domain.views):
the public view shows no card but the discard top and the revealed showdowns; a player's
own view adds his hand once he has looked at it (R23).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scat_core.domain.state import GameState


def public_view(state: GameState) -> dict[str, Any]:
    """What everybody may see: the contract's fields of `scat show --json`."""
    finished = state.status == "finished"
    pending = state.status == "pending"
    view: dict[str, Any] = {
        "game_id": state.game_id,
        "status": state.status if state.status in ("pending", "finished", "cancelled") else "active",
        "hand_number": state.hand_number,
        "dealer": state.name(state.dealer) if state.dealer >= 0 else None,
        "turn": state.name(state.turn),
        # The contract's three phases; `stage` also tells a replay stopped before the first
        # deal ("new") or inside the settling of a hand ("settling"), where nobody is to act.
        "phase": None if state.status in ("pending", "cancelled") else (
            state.phase if state.phase in ("discard", "finished") else "draw"),
        "stage": state.phase,
        "knocked_by": state.name(state.knocker),
        "discard_top": state.discard[-1] if state.discard else None,
        "stock_count": len(state.stock),
        # R17b (rules version 3): stock draws left before the hand is dead; None in older games.
        "draws_before_dead_hand": state.draws_before_dead_hand(),
        "set_aside_count": len(state.set_aside),  # a resigned player's cards, face down (R27)
        "kitty": state.kitty,
        "rules_version": state.rules_version,
        "winner": state.winner,
        "last_seq": state.version,
        "options": state.options.model_dump(),
        "players": [
            {
                "name": player.name,
                "seat": player.seat + 1,  # counted from 1, as the seats are shown
                "pennies": player.pennies,
                "on_dole": player.on_dole,
                "out": player.out,
                "resigned": player.resigned and not player.timed_out,  # by choice (R27)
                "out_reason": player.out_reason,  # null, "lives", "resigned" or "out_of_time" (R25, R27, R28)
                "is_bot": player.is_bot,
                "cards": len(state.hands[player.seat]) if state.hands else 0,
            }
            for player in state.players
        ],
        # #14 item 4: chance chosen by the creator, who could then know every hand (None: not recorded).
        "seed_chosen": state.seed_chosen,
        "first_deck_stacked": state.first_deck_stacked,
        "revealed": {name: list(cards) for name, cards in state.revealed.items()},
        "revealed_values": dict(state.revealed_values),
        # R28: who a game waiting for its players waits for, and its seats any account may take
        "awaiting": list(state.awaiting) if pending else [],
        "open_seats": state.open_seats if pending else 0,
        "rematch_of": state.rematch_of,
    }
    if finished:
        view["hands"] = {p.name: list(state.hands[p.seat]) for p in state.players if state.hands}
        view["seed"] = state.seed
    return view


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus the player's own hand and its value, once he has looked (R23)."""
    from scat_core.domain.views import kept_value

    view = public_view(state)
    seat = state.seat_of(name)
    if seat is None or not state.hands:
        return view
    view["you"] = state.players[seat].name
    if state.options.throw_down and state.in_hand:  # looking is a choice there (R23): said either way
        view["looked"] = not state.hand_unseen(seat)
    if state.hand_unseen(seat):
        view["hand"] = None  # face down until looked at (`--look`), which is recorded
        view["hand_hidden"] = True
        return view
    view["hand"] = list(state.hands[seat])
    view["hand_value"] = kept_value(state, seat) if state.hands[seat] else None
    view["taken_from_discard"] = state.taken_from_discard if state.turn == seat else None
    return view

"""Which moves a player signs, in what form, and the audit's rule that each is signed.

In a game created with `signed_moves` (a server whose seats are accounts) every human move
(a draw, a discard, a knock, a declaration, a throw down, a resignation, a claim of another's
turn, R28, abandoning the game, a message, accepting or declining a seat, taking an open one)
is preceded in the log by a MoveSigned event of its player naming that very move.
The signature itself (Ed25519 over the game, the head he saw and the move) is checked by the
archive (scat_core/records/move_signatures.py), which has the keys; this module checks only
what the events alone show. A look at one's hand (HandViewed) is recorded by the server when it
shows the hand, and is not signed; bots and scat's own claims sign nothing.
"""

from __future__ import annotations

from dataclasses import fields

from . import commands as cmd
from . import events as ev
from .state import GameState


def move_fields(command: cmd.Command) -> dict[str, str] | None:
    """The signed form of a human's command ({"type", "player", ...}: its class's name and its fields,
    e.g. a draw's source, a discard's card); None for one nobody signs."""
    if isinstance(command, cmd.ClaimTime):
        return {"type": "ClaimTime", "player": command.claimer} if command.claimer is not None else None
    if isinstance(command, cmd.PlayerCommand | cmd.TableCommand) and not isinstance(command, cmd.ViewHand):
        if command.player is None:  # a local database's owner abandoning a game of bots: nobody signs
            return None
        return {"type": type(command).__name__, **{part.name: getattr(command, part.name) for part in fields(command)}}
    return None


def signer_of(state: GameState, command: cmd.Command) -> str | None:
    """The human who must sign `command` in `state` (None: nobody signs it: a look, a bot, scat itself)."""
    move = move_fields(command)
    if move is None or not state.signed_moves:
        return None
    if isinstance(command, cmd.JoinGame):  # no seat yet: the account joining signs it
        return command.player
    seat = state.seat_of(move["player"])
    return None if seat is None or state.players[seat].is_bot else state.players[seat].name


def signature_problem(state: GameState, command: cmd.Command, signed: ev.MoveSigned | None, seq: int) -> str | None:
    """Why the command whose first event is at `seq` is not signed as it must be (`signed`: the
    MoveSigned just before it, if any), or None when it is (or needs no signature)."""
    signer = signer_of(state, command)
    if signer is None:
        return f"event {seq - 1} signs a move nobody signs here" if signed is not None else None
    if signed is None:
        return f"event {seq} is {signer}'s move without his signature"
    if signed.player.casefold() != signer.casefold() or signed.move != move_fields(command):
        return f"event {seq - 1} signs another move than the one at event {seq}"
    return None

"""A player's token proven before his command takes its turn to write.

A wrong token costs a scrypt (about 50 ms and 16 MiB, records/tokens.py). Checked inside the
command's unit of work, that scrypt would hold SQLite's one writer (every other game's moves
waiting behind it) or a PostgreSQL connection; so a token this process has not proven yet is
proven first, with only a short read behind it, and a wrong one is refused there. The command
still checks the token in its transaction (`loading.authorize`): for a token proven here, one
SHA-256. A token proven once is remembered (`tokens.proven_for`): the next commands read nothing first.
"""

from __future__ import annotations

from scat_core.domain.names import normalize_name
from scat_core.records import tokens
from scat_core.records.acting import Credential
from scat_core.service.loading import wrong_token
from scat_core.service.ports import Store


def prove_token_first(store: Store, game_id: str, player: str | None, token: Credential) -> None:
    """AuthFailed when `token` is not `player`'s in the protected game `game_id`; anything else
    (no token, no such game or player, an unprotected game) is left to the command's own checks."""
    if player is None or not isinstance(token, str) or not token or tokens.proven_for(game_id, player, token):
        return
    with store.read() as tx:
        row = tx.get_game(game_id)
        name = _seated(row.players, player) if row is not None and row.protected else None
        stored = tx.get_token_hash(game_id, name) if row is not None and name is not None else None
    if name is None or stored is None:
        return
    if not tokens.verify_token(token, stored):
        raise wrong_token(name, game_id)
    tokens.remember_proven(game_id, player, token)


def _seated(players: tuple[str, ...], player: str) -> str | None:
    """The name of the seat `player` names, matched as GameState.seat_of matches it, or None."""
    wanted = {player.casefold(), normalize_name(player).casefold()}
    return next((name for name in players if name.casefold() in wanted), None)

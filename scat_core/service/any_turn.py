"""Waiting for a player's turn in any of his games (`scat wait --any`): one query per look."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from scat_core.domain.errors import AuthFailed, CorruptHistory, NotFound, WrongToken
from scat_core.domain.options import recorded_text
from scat_core.records.credentials import ActingAccount, Credential, verify_token
from scat_core.records.games import GameRow
from scat_core.service.loading import Clock
from scat_core.service.ports import Store
from scat_core.service.values import Shown, Told, WaitedAny

#: `GameService.show`: the game as a player may know it (game, player, his credential, whether it is a look).
Show = Callable[[str, str, Credential, bool], Shown]


class AnyTurn:
    """Blocks until any running game where a player sits waits for him, or one of them ends."""

    def __init__(self, show: Show, store: Store, clock: Clock) -> None:
        self.show, self.store, self.clock = show, store, clock

    def start(self) -> Told:
        """A fresh `told`: nothing told yet, and only games that end from now on are news."""
        return Told(since=recorded_text(self.clock()))

    def proven(self, player: str, tokens: Mapping[str, str], wrong_allowed: int | None = None) -> Proven:
        """Of `tokens` (game -> token), those that are `player`'s own in a game he sits in as a
        human: his token where the game is protected (a server's proof of who waits); and how
        many were wrong (a server counts them against the client: in a game made before tokens were
        hashed with SHA-256, each cost a scrypt).

        With `wrong_allowed`, the `wrong_allowed`-th wrong one is WrongToken (`count` of them):
        the tokens after it are not checked."""
        wanted, proven = player.casefold(), Proven({}, [])
        with self.store.read() as tx:
            rows = tx.get_games(list(tokens))  # one read, however many tokens
            for game_id, token in tokens.items():
                row = rows.get(game_id)
                name = next((n for n in row.players if n.casefold() == wanted), None) if row is not None else None
                if row is None or name is None or name in row.bots:
                    continue
                stored = tx.get_token_hash(game_id, name) if row.protected else None
                if not row.protected or (stored is not None and verify_token(token, stored)):
                    proven.kept[game_id] = token
                elif stored is not None:
                    proven.wrong.append(game_id)
                    if len(proven.wrong) == wrong_allowed:
                        raise proven.refusal(player)
        return proven

    def looking(self, player: str, tokens: Mapping[str, str] | None = None, told: Told | None = None,
                account: ActingAccount | None = None, look: bool = True) -> Looking:
        """A look-out for `player`'s next turn or end, to ask as often as games move (see Looking);
        `account`: his server account, proven by the request (his games whose seats are accounts);
        `look=False`: the game it finds is shown without recording a look (R23)."""
        return Looking(self.show, self.store, player, dict(tokens or {}), told or self.start(), account, look)

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None, look: bool = True) -> WaitedAny:
        """What `show` gives `player` of the first game (oldest activity first) where he is to act
        or that ended at or after `told.since`, leaving out what `told` holds; None after `timeout`.

        The store wakes it on every append (PostgreSQL: each notice; SQLite: a few times a second).
        """
        looking = self.looking(player, tokens, told, look=look)
        found: list[WaitedAny] = []

        def found_one() -> bool:
            news = looking.look()
            if news is not None:
                found.append(news)
            return news is not None

        if not self.store.wait_until(found_one, timeout):
            return WaitedAny(shown=None, told=looking.told)
        return found[0]


@dataclass(frozen=True)
class Proven:
    """The tokens of a `wait --any` that are its player's (game -> token), and the games whose token was wrong."""

    kept: dict[str, str]
    wrong: list[str]

    def refusal(self, player: str) -> WrongToken:
        """WrongToken for the wrong tokens, naming a few of their games (`count`: how many)."""
        named = ", ".join(self.wrong[:3]) + (" ..." if len(self.wrong) > 3 else "")
        error = WrongToken(f"{len(self.wrong)} of the tokens sent are not {player}'s (games {named}): no more "
                           "were looked at", player=player)
        error.count = len(self.wrong)
        return error


class Looking:
    """One wait's look-out: each `look` is one query of the games list, and a game is loaded
    only when its head moved since it was last looked at.

    A protected game counts only with the player's token among `tokens` (game -> token), a game
    whose seats are accounts only with his `account`: who may wait as `player` is decided by
    `show`'s check, the one place a server's identity goes through.
    """

    def __init__(self, show: Show, store: Store, player: str, tokens: dict[str, str], told: Told,
                 account: ActingAccount | None = None, look: bool = True) -> None:
        self.show, self.store, self.player, self.tokens, self.told = show, store, player, tokens, told
        self.account, self.look_at_hands = account, look
        self.looked: dict[str, int] = {}  # game -> the head it was loaded at and held nothing for him

    def look(self) -> WaitedAny | None:
        """The first game that waits for the player or ended, not told yet, with `told` grown by it; or None."""
        told = self.told
        with self.store.read() as tx:
            rows = tx.turns_and_ends(self.player, told.since)
        for row in rows:
            if self.looked.get(row.game_id) == row.head_seq or (
                    row.status in ("finished", "cancelled") and row.game_id in told.ended):
                continue
            shown = self._news(row)
            if shown is None:
                self.looked[row.game_id] = row.head_seq
                continue
            return WaitedAny(shown=shown, told=_adding(told, shown, row, rows))
        return None

    def _news(self, row: GameRow) -> Shown | None:
        """The game as `show` gives it to the player if it waits for him (or ended) and was not
        told; None if not, or if he cannot show it as that player (no token) or it is read-only,
        or if its history was damaged outside scat: that game's own `show` and `scat db check`
        say so, and his other games are still waited for."""
        token = self.tokens.get(row.game_id)
        try:
            shown = self.show(row.game_id, self.player, token or self.account, self.look_at_hands)
        except (AuthFailed, NotFound, CorruptHistory):
            return None
        state = shown.state
        if state.protected and not state.signed_moves and token is None:
            return None  # a game of per-game tokens is his only with his token, over or not (a finished
            # game shows to anyone, and its "eve" may be another eve than the one who waits)
        if shown.read_only or not state.waits_for(self.player):
            return None
        if state.status not in ("finished", "cancelled") and self.told.turns.get(row.game_id) == state.turn_began:
            return None  # (an invitation is told once: a game not dealt yet began no turn, 0)
        return shown


def _adding(told: Told, shown: Shown, row: GameRow, rows: list[GameRow]) -> Told:
    """`told` with the game of `shown` added, kept to what the last look still returned."""
    game = shown.game_id
    over = ("finished", "cancelled")
    if shown.state.status in over:
        since = max(told.since, row.last_activity)
        ended = [row.game_id for row in rows if row.status in over and row.last_activity >= since
                 and (row.game_id in told.ended or row.game_id == game)]
        running = {row.game_id for row in rows if row.status not in over}
        return Told(since=since, turns={g: seq for g, seq in told.turns.items() if g in running}, ended=ended)
    running = {row.game_id for row in rows if row.status not in over}
    turns = {g: seq for g, seq in told.turns.items() if g in running} | {game: shown.state.turn_began}
    return Told(since=told.since, turns=turns, ended=list(told.ended))

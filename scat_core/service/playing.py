"""Playing: creating a game, a player's move, a look at one's hand, and the bots' answers.

A player's command is handled as load -> fold -> decide (his move, then the bots' replies
until a human must act or the game ends) -> append (with the read model) in one transaction:
one commit per move. A new game is committed first and its bots' opening moves after it, in
one more transaction (retried if someone else changed the game meanwhile).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from scat_core.domain import events as ev
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import ClaimTime, CreateGame, PlayerCommand, ViewHand
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.errors import BadInput, RuleViolation, ScatError
from scat_core.domain.evolve import evolve
from scat_core.domain.move_time import deadline, recorded_text
from scat_core.domain.names import SEED_RE, normalize_name
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance, new_salt, new_seed
from scat_core.domain.state import GameState
from scat_core.domain.views import redact
from scat_core.records.acting import Credential
from scat_core.records.errors import ConcurrencyConflict, StoreUnavailable
from scat_core.records.move_signatures import MoveSignature
from scat_core.records.stored import GameSecret, StoredEvent
from scat_core.records.tokens import hash_token, new_token, remember_proven
from scat_core.service import state_cache
from scat_core.service.loading import append, authorize, chance_of, load_for_command, refuse_bot_viewer, require_player
from scat_core.service.move_signing import signed_move, tag_of
from scat_core.service.move_times import (
    Clock,
    deadline_after,
    move_clock,
    system_clock,
    turn_began_at,
    turn_deadline,
)
from scat_core.service.nonces import spend, spent_even_if_refused
from scat_core.service.ports import Store, UnitOfWork
from scat_core.service.read_model import snapshot_json, summarize
from scat_core.service.tokens_first import prove_token_first

BOT_MOVES_PER_CALL = 100_000  # a safety bound: a bot-only game ends long before
BOT_RETRIES = 5


def position_after(state: GameState, secret: GameSecret | None, stored: Sequence[StoredEvent]) -> str:
    """The position tag of `stored`'s last event in `state`, a running game whose moves are signed; else ""."""
    if not state.signed_moves or state.status != "active" or not stored:
        return ""
    return tag_of(secret, stored[-1].hash)


@dataclass(frozen=True)
class Outcome:
    """What a call did: the game's state afterwards and the events it appended."""

    game_id: str
    state: GameState
    events: list[StoredEvent] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)
    before: GameState = field(default_factory=GameState)
    #: Why the bots' opening moves could not be saved after a new game was (the next command plays them).
    bots_interrupted: str | None = None
    #: The position tag after these events, in a running game whose moves are signed ("" otherwise):
    #: what its next move is signed at, unless someone moves first (service/move_signing.py).
    position_tag: str = ""

    def seen_by(self, viewer: str | None) -> list[tuple[StoredEvent, ev.Event]]:
        """The appended events as `viewer` (None: the public) could see them; all once over."""
        shown: list[tuple[StoredEvent, ev.Event]] = []
        state = self.before
        for stored in self.events:
            event = stored.event
            finished = self.state.status == "finished"
            shown.append((stored, event if finished else redact(event, state, viewer)))
            state = evolve(state, event)
        return shown


def bot_moves(state: GameState, chance: SeededChance) -> tuple[list[ev.Event], GameState]:
    """The events of the bots' moves from `state` until a human must act, and the state after."""
    events: list[ev.Event] = []
    for _ in range(BOT_MOVES_PER_CALL):
        command = next_bot_command(state)
        if command is None:
            break
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
    return events, state


def claimed_in(events: Sequence[ev.Event]) -> bool:
    """Whether `events` hold a claim of a turn whose move time ran out (R28)."""
    return any(isinstance(event, ev.Resigned) and event.cause is not None for event in events)


class Playing:
    """The use cases that change a game: create, act, look (R23) and the bots' moves."""

    def __init__(self, store: Store, clock: Clock = system_clock) -> None:
        self.store = store
        self.clock = clock

    def _now(self) -> str:
        """The time to record on the events appended now (the service's clock)."""
        return recorded_text(self.clock())

    def create_game(
        self,
        players: Sequence[ev.PlayerSeat],
        *,
        options: GameOptions | None = None,
        dealer: str | None = None,
        seed: int | str | None = None,
        deck: Sequence[str] | None = None,
        protect: bool = False,
        signed_moves: bool = False,
    ) -> Outcome:
        """Create a game, deal its first hand, then let bots play until a human must.

        Names are normalised (NFKC, trimmed) first; a seed given here is recorded as chosen,
        since whoever chose it can know every hand. `signed_moves`: its humans are a server's
        accounts, who sign each move with their keys (no tokens are made).
        """
        if seed is not None and not SEED_RE.fullmatch(str(seed)):
            raise BadInput(f"the seed must be a whole number of at most 100 digits, not {str(seed)[:20]!r}")
        chance = SeededChance(str(seed) if seed is not None else new_seed(), new_salt())
        command = CreateGame(
            game_id=secrets.token_hex(5),
            players=tuple(ev.PlayerSeat(name=normalize_name(p.name), is_bot=p.is_bot) for p in players),
            options=options or GameOptions(),
            dealer=normalize_name(dealer) if dealer is not None else None,
            first_deck=tuple(deck) if deck is not None else None,
            protected=protect or signed_moves,
            seed_chosen=seed is not None,
            signed_moves=signed_moves,
            signed=True,  # every store signs each head from the first on (records/signatures.py)
        )
        events, state = decide_and_evolve(GameState(), command, chance)
        tokens = {p.name: new_token() for p in state.players if protect and not signed_moves and not p.is_bot}
        now = self._now()
        with self.store.transaction() as tx:
            summary = summarize(state, deadline_after(tx, GameState(), state, now))
            kept = snapshot_json(state)
            stored = tx.append(command.game_id, 0, events, summary, kept, recorded_at=now)
            if kept is not None:
                state_cache.saw_snapshot(command.game_id, state.version)
            tx.put_secret(command.game_id, chance.seed, chance.salt)
            for name, token in tokens.items():
                tx.put_token_hash(command.game_id, name, hash_token(token))
                remember_proven(command.game_id, name, token)  # issued here: its first use reads nothing first
        outcome = self._bots_after_commit(command.game_id, state, chance, stored[-1].hash)
        stored += outcome.events
        return Outcome(command.game_id, outcome.state, stored, tokens, bots_interrupted=outcome.bots_interrupted,
                       position_tag=position_after(outcome.state, GameSecret(chance.seed, chance.salt), stored))

    def act(self, game_id: str, command: PlayerCommand, token: Credential = None,
            signature: MoveSignature | None = None) -> Outcome:
        """Carry out a human player's command and the bots' replies until a human must act, in
        one transaction (ConcurrencyConflict, nothing written, if the game moved meanwhile); in a
        game whose moves are signed, `signature` is the player's (move_signing.py). The nonce of
        the signed request it came in, if left to it, is spent in the same transaction (nonces.py);
        a token not proven yet is proven before it (tokens_first.py)."""
        prove_token_first(self.store, game_id, command.player, token)
        with spent_even_if_refused(self.store, token), self.store.command() as tx:
            spend(tx, token)
            state, secret, head = load_for_command(tx, game_id)
            seat = authorize(tx, state, command.player, token)
            if state.players[seat].is_bot:
                raise RuleViolation(f"{state.players[seat].name} is a bot: bots play by themselves")
            chance = chance_of(state, secret)
            # Moves bots still owe (their writer was interrupted) come first, then a claim of a
            # turn whose move time ran out (R28): both stand even if the command is refused.
            now = self.clock()
            events, owed = self._owed(tx, state, chance, now)
            refused: ScatError | None = None
            signed = signed_move(state, tag_of(secret, head), command, token, signature)
            try:
                mine, after = decide_and_evolve(evolve(owed, signed) if signed else owed, command, chance)
                mine = [signed, *mine] if signed else mine
            except ScatError as error:
                if not claimed_in(events):
                    raise
                refused, mine, after = error, [], owed
            replies, after = bot_moves(after, chance)  # the bots' replies: the same transaction
            events += mine + replies
            stored = append(tx, state, events, after, head, recorded_text(now))
        if refused is not None:
            raise refused
        # Outcome.before: the state before events[0]
        return Outcome(game_id, after, stored, before=state, position_tag=position_after(after, secret, stored))

    def _owed(self, tx: UnitOfWork, state: GameState, chance: SeededChance,
              now: datetime) -> tuple[list[ev.Event], GameState]:
        """The events owed before a command at `now`: the bots' moves, then, if the player to act
        ran out of move time, the claim of his turn by scat itself (R28) and the bots' moves after it."""
        events, owed = bot_moves(state, chance)
        if owed.options.move_time is None or owed.status != "active" or owed.turn_began > state.version:
            return events, owed
        began = turn_began_at(tx, owed)
        if began is None or deadline(began, owed.options.move_time) > now:
            return events, owed
        claimed, owed = decide_and_evolve(owed, ClaimTime(None, now, began), chance)
        more, owed = bot_moves(owed, chance)
        return events + claimed + more, owed

    def claim_overdue(self, game_id: str) -> Outcome | None:
        """Claim the turn of the player to act by scat itself if his move time ran out (R28);
        None when it has not (or the game cannot be played here, or someone else acted first)."""
        try:
            with self.store.command() as tx:
                state, secret, head = load_for_command(tx, game_id)
                if state.options.move_time is None or state.status != "active" or secret is None:
                    return None
                chance = SeededChance(secret.seed, secret.salt)
                now = self.clock()
                events, after = self._owed(tx, state, chance, now)
                if not claimed_in(events):
                    return None
                stored = append(tx, state, events, after, head, recorded_text(now))
        except ConcurrencyConflict:
            return None
        return Outcome(game_id, after, stored, before=state)

    def claim(self, game_id: str, claimer: str | None, token: Credential = None,
              signature: MoveSignature | None = None) -> Outcome:
        """Claim the turn of the player to act once his move time ran out (R28): he is resigned,
        then the bots play, in the same transaction. `claimer`: a player still in the game (his token
        checked as for any move), or None for the server itself. Refused (RuleViolation R28, nothing written) before."""
        prove_token_first(self.store, game_id, claimer, token)
        with spent_even_if_refused(self.store, token), self.store.command() as tx:
            spend(tx, token)
            state, secret, head = load_for_command(tx, game_id)
            if claimer is not None:
                seat = authorize(tx, state, claimer, token)
                if state.players[seat].is_bot:
                    raise RuleViolation(f"{state.players[seat].name} is a bot: bots play by themselves")
            chance = chance_of(state, secret)
            events, owed = bot_moves(state, chance)  # moves bots still owe come first, as in `act`
            now = self.clock()
            began = now if owed.turn_began > state.version else turn_began_at(tx, owed)
            if began is None or owed.options.move_time is None:
                began = now  # no turn to claim: decide says why (R28)
            claim = ClaimTime(claimer, now, began)
            signed = signed_move(state, tag_of(secret, head), claim, token, signature)
            mine, after = decide_and_evolve(evolve(owed, signed) if signed else owed, claim, chance)
            replies, after = bot_moves(after, chance)  # the bots' replies: the same transaction
            events += ([signed, *mine] if signed else mine) + replies
            stored = append(tx, state, events, after, head, recorded_text(now))
        return Outcome(game_id, after, stored, before=state, position_tag=position_after(after, secret, stored))

    def move_clock(self, state: GameState) -> tuple[str | None, int | None]:
        """(when the player to act runs out of move time, the seconds he has left now), R28;
        (None, None) without a move time or a player to act."""
        if state.options.move_time is None or state.status != "active":
            return None, None
        with self.store.read() as tx:
            return move_clock(turn_deadline(tx, state), self.clock())

    def is_protected(self, game_id: str) -> bool:
        """Whether the game is protected (NotFound when there is no such game)."""
        with self.store.read() as tx:
            row = tx.get_game(game_id)
            return row.protected if row is not None else load_for_command(tx, game_id)[0].protected

    def look(self, game_id: str, player: str | None = None, token: Credential = None,
             record: bool = True) -> GameState:
        """The current state, after the moves bots still owe; showing a player his hand is
        recorded in throw-down games (R23). A look may write: it is not a plain read.
        `record=False` records no look: his hand stays face down (the state says so, and
        every view redacts it), so he may still throw down.

        Nobody may look as a bot while the game runs (RuleViolation), nor as a player of a
        protected game without his token; once it is over every card is public, so neither
        holds. An imported running game (no secret seed here) is read-only: nothing is recorded
        and no bot moves.
        """
        with self.store.read() as tx:
            state, secret, _ = load_for_command(tx, game_id)
            if player is not None and state.status == "finished":
                require_player(state, player)  # every card is public now: no token, as for log and replay
            elif player is not None:
                authorize(tx, state, player, token)
                refuse_bot_viewer(state, player)
            if state.status != "finished" and secret is None:
                return state  # imported without its seed: read-only
            ends = turn_deadline(tx, state)
        if ends is not None and ends <= self.clock():
            claimed = self.claim_overdue(game_id)  # the turn of a player out of time first (R28)
            state = claimed.state if claimed is not None else state
        if next_bot_command(state) is not None:
            state = self.play_bots(game_id).state
        seat = state.seat_of(player) if player is not None else None
        if record and seat is not None and state.hand_unseen(seat) and not state.players[seat].out:
            state = self._record_look(game_id, state.players[seat].name)
        return state

    def _record_look(self, game_id: str, player: str) -> GameState:
        """Record that `player` is shown his hand (R23); a look never fails for a race."""
        for attempt in range(BOT_RETRIES + 1):
            try:
                with self.store.command() as tx:
                    state, secret, head = load_for_command(tx, game_id)
                    events, after = decide_and_evolve(state, ViewHand(player), chance_of(state, secret))
                    if events:
                        append(tx, state, events, after, head, self._now())
                    return after
            except ConcurrencyConflict:
                if attempt == BOT_RETRIES:
                    raise
        raise AssertionError("unreachable")

    def play_bots(self, game_id: str) -> Outcome:
        """Let bots make the moves they still owe, until a human must act or the game ends.

        Only an interrupted call leaves bots owing moves: a process killed between the
        commit of a new game and the commit of its bots' first moves (or, before one commit
        per move, between a human's move and the bots' answer).
        Without this the game would wait for a bot for ever. Nothing owed: nothing appended.
        """
        with self.store.read() as tx:
            state, secret, head = load_for_command(tx, game_id)
            if next_bot_command(state) is None:
                return Outcome(game_id, state, before=state)
            chance = chance_of(state, secret)
        outcome = self._run_bots(game_id, state, chance, head)
        return Outcome(game_id, outcome.state, outcome.events, before=state)

    def _bots_after_commit(self, game_id: str, state: GameState, chance: SeededChance, head: str) -> Outcome:
        """`_run_bots` once a new game is committed: a lost database leaves the game standing.

        The bots' replies then wait for the next command (`act` and `look` play owed moves).
        """
        try:
            return self._run_bots(game_id, state, chance, head)
        except StoreUnavailable as lost:
            return Outcome(game_id, state, bots_interrupted=str(lost))

    def _run_bots(self, game_id: str, state: GameState, chance: SeededChance, head: str) -> Outcome:
        """Bots act until a human must act or the game ends, in one durable transaction.

        If someone else changed the game meanwhile, the bots look again and retry.
        """
        for attempt in range(BOT_RETRIES + 1):
            events, after = bot_moves(state, chance)
            if not events:
                return Outcome(game_id, state)
            try:
                with self.store.command() as tx:
                    appended = append(tx, state, events, after, head, self._now())
                return Outcome(game_id, after, appended)
            except ConcurrencyConflict:
                if attempt == BOT_RETRIES:
                    raise
                with self.store.read() as tx:
                    state, _, head = load_for_command(tx, game_id)
        raise AssertionError("unreachable")

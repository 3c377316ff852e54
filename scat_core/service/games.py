"""The application service over the event store: every use case of the CLI is one method.

A command is handled as load -> fold -> decide -> append (with the read model) in one
transaction; afterwards the bots whose turn it is play, until a human must act, in one more
transaction (retried if someone else changed the game meanwhile).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from scat_core.domain import events as ev
from scat_core.domain import snapshot
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame, PlayerCommand, ViewHand
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.errors import (
    AuthFailed,
    BadInput,
    ConcurrencyConflict,
    CorruptHistory,
    NotFound,
    RuleViolation,
    StoreUnavailable,
)
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.names import SEED_RE, normalize_name
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance, new_salt, new_seed
from scat_core.domain.state import GameState
from scat_core.domain.views import redact
from scat_core.service.archive import ArchiveUseCases
from scat_core.service.finding import ReadingUseCases
from scat_core.service.read_model import snapshot_json, summarize
from scat_core.service.statistics import StatsUseCases
from scat_core.service.waiting import WaitingUseCases
from scat_core.store.database import open_engine
from scat_core.store.event_store import EventStore, GameRow, GameSecret, StoredEvent, StoreTransaction
from scat_core.store.tokens import hash_token, new_token, verify_token

BOT_MOVES_PER_CALL = 100_000  # a safety bound: a bot-only game ends long before
BOT_RETRIES = 5


@dataclass(frozen=True)
class Outcome:
    """What a call did: the game's state afterwards and the events it appended."""

    game_id: str
    state: GameState
    events: list[StoredEvent] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)
    before: GameState = field(default_factory=GameState)
    #: Why the bots' replies could not be saved after the command was (the next command plays them).
    bots_interrupted: str | None = None

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


def _bot_moves(state: GameState, chance: SeededChance) -> tuple[list[ev.Event], GameState]:
    """The events of the bots' moves from `state` until a human must act, and the state after."""
    events: list[ev.Event] = []
    for _ in range(BOT_MOVES_PER_CALL):
        command = next_bot_command(state)
        if command is None:
            break
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
    return events, state


#: What folding a history damaged outside scat may raise (a forged event no rule makes).
_UNPLAYABLE = (IndexError, KeyError, TypeError, ValueError, StopIteration)


def replay(game_id: str, stored: Sequence[StoredEvent]) -> GameState:
    """The state after the stored events; CorruptHistory when they cannot be replayed at all."""
    try:
        return fold(event.event for event in stored)
    except CorruptHistory:
        raise
    except _UNPLAYABLE as error:
        raise CorruptHistory(
            f"the stored history of game {game_id} cannot be replayed ({type(error).__name__}): it was "
            f"damaged; `scat audit {game_id}` names the first bad event"
        ) from error


def _require_player(state: GameState, name: str) -> int:
    """The seat of `name`; NotFound naming the players when there is none."""
    seat = state.seat_of(name)
    if seat is None:
        names = ", ".join(p.name for p in state.players)
        raise NotFound(f"no player {name!r} in game {state.game_id} (players: {names})")
    return seat


def _refuse_bot_viewer(state: GameState, name: str) -> None:
    """Nobody may look at a game as a bot while it runs: that would show the bot's hand."""
    seat = state.seat_of(name)
    if seat is not None and state.players[seat].is_bot and state.status != "finished":
        raise RuleViolation(
            f"{state.players[seat].name} is a bot: nobody may look at a bot's hand while the game runs"
        )


def _check_up_to(game_id: str, up_to: int, count: int) -> None:
    """BadInput (exit 2: a bad SEQ, the game exists) unless 1 <= `up_to` <= `count` (the events of the game)."""
    if not 1 <= up_to <= count:
        raise BadInput(f"game {game_id} has events 1 to {count}, not {up_to}")


class GameService(WaitingUseCases, ArchiveUseCases, ReadingUseCases, StatsUseCases):
    """Use cases over one event store (auditing, export and import come from ArchiveUseCases;
    game ids, news and results from ReadingUseCases; statistics from StatsUseCases)."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    @classmethod
    def open(cls, url: str | None = None) -> GameService:
        """The service over the database at `url` (or $SCAT_DB_URL, or the default file)."""
        return cls(EventStore(open_engine(url)))

    # ---- playing -------------------------------------------------------------------------

    def create_game(
        self,
        players: Sequence[ev.PlayerSeat],
        *,
        options: GameOptions | None = None,
        dealer: str | None = None,
        seed: int | str | None = None,
        deck: Sequence[str] | None = None,
        protect: bool = False,
    ) -> Outcome:
        """Create a game, deal its first hand, then let bots play until a human must.

        Names are normalised (NFKC, trimmed) first; a seed given here is recorded as chosen,
        since whoever chose it can know every hand.
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
            protected=protect,
            seed_chosen=seed is not None,
        )
        events, state = decide_and_evolve(GameState(), command, chance)
        tokens = {p.name: new_token() for p in state.players if protect and not p.is_bot}
        with self.store.transaction() as tx:
            stored = tx.append(command.game_id, 0, events, summarize(state), snapshot_json(state))
            tx.put_secret(command.game_id, chance.seed, chance.salt)
            for name, token in tokens.items():
                tx.put_token_hash(command.game_id, name, hash_token(token))
        outcome = self._bots_after_commit(command.game_id, state, chance, stored[-1].hash)
        return Outcome(command.game_id, outcome.state, stored + outcome.events, tokens,
                       bots_interrupted=outcome.bots_interrupted)

    def act(self, game_id: str, command: PlayerCommand, token: str | None = None) -> Outcome:
        """Carry out a human player's command, then let bots play until a human must."""
        with self.store.command() as tx:
            state, secret, head = self._load_for_command(tx, game_id)
            seat = self._authorize(tx, state, command.player, token)
            if state.players[seat].is_bot:
                raise RuleViolation(f"{state.players[seat].name} is a bot: bots play by themselves")
            chance = self._chance(state, secret)
            # Moves bots still owe (their writer was interrupted) come first.
            events, owed = _bot_moves(state, chance)
            mine, after = decide_and_evolve(owed, command, chance)
            events += mine
            stored = self._append(tx, state, events, after, head)
            before, state = state, after  # Outcome.before: the state before events[0]
        outcome = self._bots_after_commit(game_id, state, chance, stored[-1].hash if stored else head)
        return Outcome(game_id, outcome.state, stored + outcome.events, before=before,
                       bots_interrupted=outcome.bots_interrupted)

    def view(self, game_id: str, player: str | None = None, token: str | None = None) -> GameState:
        """The current state; showing a player his hand is recorded in throw-down games (R23).

        Nobody may look as a bot while the game runs (RuleViolation). An imported running
        game (no secret seed here) is read-only: nothing is recorded and no bot moves.
        """
        with self.store.read() as tx:
            state, secret, _ = self._load_for_command(tx, game_id)
            if player is not None:
                self._authorize(tx, state, player, token)
                _refuse_bot_viewer(state, player)
            if state.status != "finished" and secret is None:
                return state  # imported without its seed: read-only
        if next_bot_command(state) is not None:
            state = self.play_bots(game_id).state
        seat = state.seat_of(player) if player is not None else None
        if seat is not None and state.hand_unseen(seat) and not state.players[seat].out:
            state = self._record_look(game_id, state.players[seat].name)
        return state

    def _record_look(self, game_id: str, player: str) -> GameState:
        """Record that `player` is shown his hand (R23); a look never fails for a race."""
        for attempt in range(BOT_RETRIES + 1):
            try:
                with self.store.command() as tx:
                    state, secret, head = self._load_for_command(tx, game_id)
                    events, after = decide_and_evolve(state, ViewHand(player), self._chance(state, secret))
                    if events:
                        self._append(tx, state, events, after, head)
                    return after
            except ConcurrencyConflict:
                if attempt == BOT_RETRIES:
                    raise
        raise AssertionError("unreachable")

    def play_bots(self, game_id: str) -> Outcome:
        """Let bots make the moves they still owe, until a human must act or the game ends.

        Only an interrupted call leaves bots owing moves: a process killed between the
        commit of a human's move (or of a new game) and the commit of the bots' answer.
        Without this the game would wait for a bot for ever. Nothing owed: nothing appended.
        """
        with self.store.read() as tx:
            state, secret, head = self._load_for_command(tx, game_id)
            if next_bot_command(state) is None:
                return Outcome(game_id, state, before=state)
            chance = self._chance(state, secret)
        outcome = self._run_bots(game_id, state, chance, head)
        return Outcome(game_id, outcome.state, outcome.events, before=state)

    def _bots_after_commit(self, game_id: str, state: GameState, chance: SeededChance, head: str) -> Outcome:
        """`_run_bots` once a command is committed: a lost database leaves the command standing.

        The bots' replies then wait for the next command (`act` and `view` play owed moves).
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
            events, after = _bot_moves(state, chance)
            if not events:
                return Outcome(game_id, state)
            try:
                with self.store.command() as tx:
                    appended = self._append(tx, state, events, after, head)
                return Outcome(game_id, after, appended)
            except ConcurrencyConflict:
                if attempt == BOT_RETRIES:
                    raise
                with self.store.read() as tx:
                    state, _, head = self._load_for_command(tx, game_id)
        raise AssertionError("unreachable")

    # ---- reading -------------------------------------------------------------------------

    def list_games(self, status: str | None = None, waiting_for: str | None = None) -> list[GameRow]:
        """Games newest activity first, optionally only those with a status or waiting for a name.

        An imported running game waits for nobody here (read-only): `waiting_for` leaves it out.
        """
        return self.list_games_read_only(status, waiting_for)[0]

    def list_games_read_only(
        self, status: str | None = None, waiting_for: str | None = None
    ) -> tuple[list[GameRow], set[str]]:
        """`list_games`, and the ids of the games listed that are read-only here.

        Read-only: running, but imported without the secret seed (which stays where the game
        was created), so nobody can play it here and its turn waits for nobody.
        """
        with self.store.read() as tx:
            rows = tx.list_games(status=status, waiting_for=waiting_for)
            playable = tx.secret_game_ids()
            read_only = {row.game_id for row in rows if row.status != "finished" and row.game_id not in playable}
        if waiting_for is not None:  # it waits for nobody here
            return [row for row in rows if row.game_id not in read_only], set()
        return rows, read_only

    def chosen_chance(self, game_ids: Sequence[str]) -> dict[str, tuple[bool, bool]]:
        """For each game: (its seed was chosen at creation, its first deck was), from its first event.

        #14 item 4: whoever chose them can know every hand, so every list says so.
        """
        with self.store.read() as tx:
            created = tx.first_events(game_ids)
        flags = dict.fromkeys(game_ids, (False, False))
        for stored in created:
            event = stored.event
            if isinstance(event, ev.GameCreated):
                flags[stored.game_id] = (bool(event.seed_chosen), event.first_deck_stacked)
        return flags

    def history(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The stored events of a game, up to seq `up_to` (BadInput when it has no such event)."""
        with self.store.read() as tx:
            events = tx.load(game_id)
        if up_to is not None:
            _check_up_to(game_id, up_to, len(events))
            events = events[:up_to]
        return events

    def visible_history(
        self, game_id: str, viewer: str | None = None, token: str | None = None, up_to: int | None = None,
        as_then: bool = False,
    ) -> tuple[GameState, list[tuple[StoredEvent, ev.Event]]]:
        """The state after `up_to` and each event as `viewer` may see it (all, once the game ended).

        With `as_then`, events are shown as `viewer` saw them at `up_to`, even if the game has
        ended since (a replay); the state returned is always the true one.
        """
        with self.store.read() as tx:
            full = tx.load(game_id)
        final = replay(game_id, full)
        # Everything that can refuse is checked before `view`, which may write (R23, bots).
        if viewer is not None:
            _require_player(final, viewer)
        if up_to is not None:
            _check_up_to(game_id, up_to, len(full))
        if viewer is not None and final.status != "finished":
            _refuse_bot_viewer(final, viewer)
            shows_current_hand = up_to is None or fold(s.event for s in full[:up_to]).hand_number == final.hand_number
            if shows_current_hand:
                # Authorizes, and in throw-down games records that the viewer sees his hand (R23).
                if self.view(game_id, viewer, token).version != final.version:
                    with self.store.read() as tx:
                        full = tx.load(game_id)
                    final = replay(game_id, full)
            else:  # a past hand only: nothing of the current hand is shown, so no look is recorded
                with self.store.read() as tx:
                    self._authorize(tx, final, viewer, token)
        shown: list[tuple[StoredEvent, ev.Event]] = []
        state = GameState()
        revealed = final.status == "finished" and not (as_then and up_to is not None and up_to < len(full))
        for stored in full[:up_to]:
            event = stored.event
            shown.append((stored, event if revealed else redact(event, state, viewer)))
            state = evolve(state, event)
        return state, shown

    # ---- helpers -------------------------------------------------------------------------

    @staticmethod
    def _load_for_command(tx: StoreTransaction, game_id: str) -> tuple[GameState, GameSecret | None, str]:
        """The state to play on, the kept seed and the head's hash, from the snapshot and the
        events after it, checked against the recorded head (HistoryDamaged if they do not match)."""
        load = tx.load_for_command(game_id)
        state = GameState()
        if load.snapshot is not None:
            try:
                state = snapshot.decode(load.snapshot)
            except (ValueError, TypeError):  # unreadable: the events alone decide
                state = GameState()
            if state.version != load.snapshot_seq or state.game_id != game_id:
                load, state = tx.load_for_command(game_id, use_snapshot=False), GameState()
        try:
            return fold((stored.event for stored in load.events), state), load.secret, load.head_hash
        except _UNPLAYABLE as error:  # a forged event no rule makes (#14 item 7)
            raise CorruptHistory(
                f"the stored history of game {game_id} cannot be replayed ({type(error).__name__}): it was "
                f"damaged; `scat audit {game_id}` names the first bad event"
            ) from error

    @staticmethod
    def _append(
        tx: StoreTransaction, state: GameState, events: list[ev.Event], after: GameState, head: str
    ) -> list[StoredEvent]:
        """Append `events` (which lead from `state`, whose last event has hash `head`, to `after`)
        with the read model and the snapshot; the store forgets a revealed seed in the same write."""
        return tx.append(state.game_id, state.version, events, summarize(after), snapshot_json(after), head)

    @staticmethod
    def _chance(state: GameState, secret: GameSecret | None) -> SeededChance:
        if state.status == "finished":
            raise RuleViolation(f"the game is over: {state.winner} won")
        if secret is None:
            raise RuleViolation(
                f"game {state.game_id} was imported without its secret seed: it can be shown, "
                "replayed and audited, not played on"
            )
        return SeededChance(secret.seed, secret.salt)

    @staticmethod
    def _authorize(tx: StoreTransaction, state: GameState, player: str, token: str | None) -> int:
        seat = state.seat_of(player)
        if seat is None:
            names = ", ".join(p.name for p in state.players)
            raise NotFound(f"no player {player!r} in game {state.game_id} (players: {names})")
        if state.protected and not state.players[seat].is_bot:
            name = state.players[seat].name
            stored = tx.get_token_hash(state.game_id, name)
            if stored is None:  # only an imported game has no tokens here
                raise AuthFailed(
                    f"game {state.game_id} was imported and player tokens are not exported: "
                    f"nobody can act or look as {name} here (`scat show {state.game_id}` shows the table)"
                )
            if not token:
                raise AuthFailed(
                    f"game {state.game_id} is protected: give {name}'s token with --token or SCAT_TOKEN"
                )
            if not verify_token(token, stored):
                raise AuthFailed(f"wrong token for {name} in game {state.game_id}")
        return seat

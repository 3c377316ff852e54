"""What every write shares: loading a game to act on, appending it with its read model and snapshot,
the service's clock and move time (R28: when the turn to act began and ends), authorizing its player
(a token proven before the write, too), refusing viewers; and the states this process kept at a
game's head, so that a command need not fold again.

A command plays on the state at the head the last append wrote; when that append (or a load)
was this process's, the state it folded is kept, one per game, with its head (seq, hash of
event seq), beside the snapshot this process last wrote or verified (seq and hash of its
event). The next command names both to the store (`KeptHead`), which reads the log from that
snapshot's event on, re-hashed and chained as a load from the snapshot is, but not the
snapshot's state (the peer's "fast-forward"); only the events after the kept head (those
another process appended since) are folded onto the state kept. The hash of the kept head
chains every event before it, so the state kept is the fold of the log the games row
recorded. The snapshot seen also decides when a new one is due (`snapshot_due`). Both
bounded, oldest forgotten first, lock-free.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from scat_core.domain import events as ev
from scat_core.domain import snapshot
from scat_core.domain.decide import over
from scat_core.domain.errors import AuthFailed, BadInput, Hint, NotFound, RuleViolation, WrongToken
from scat_core.domain.evolve import fold
from scat_core.domain.names import normalize_name
from scat_core.domain.options import deadline, recorded_text, recorded_time
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.credentials import ActingAccount, Credential, proven_for, remember_proven, verify_token
from scat_core.records.errors import CorruptHistory, HistoryDamaged
from scat_core.records.games import GameRow, GameSummary
from scat_core.records.signing import BoundedMemo
from scat_core.records.stored_log import GameSecret, KeptHead, StoredEvent, utc_now
from scat_core.service.ports import Store, UnitOfWork
from scat_core.service.values import Creation, GameResult, creation_kept, game_result, kept_creation, kept_result

#: Why a game made signed (GameCreated.signed) whose head has no signature is damaged.
SIGNATURE_REMOVED = "its head signature was removed, but its first event says every head of it is signed"
#: States (and the snapshots seen) kept per process; the oldest forgotten first.
FOLDED_KEPT = 1024
_states: BoundedMemo[str, tuple[str, GameState]] = BoundedMemo(FOLDED_KEPT)
_snapshots: BoundedMemo[str, tuple[int, str]] = BoundedMemo(FOLDED_KEPT)


def keep_state(state: GameState, head_hash: str) -> None:
    """Keep `state`, the state of its game at event `state.version`, whose hash is `head_hash`
    (in place of the one kept before)."""
    _states.remember(state.game_id, (head_hash, state))


def kept_state(game_id: str) -> tuple[str, GameState] | None:
    """(the hash of its head, the state) kept for `game_id`, or None."""
    return _states.get(game_id)


def saw_snapshot(game_id: str, seq: int, head_hash: str) -> None:
    """Note that the usable snapshot of `game_id` is at event `seq`, of hash `head_hash` (0: it has none usable)."""
    _snapshots.remember(game_id, (seq, head_hash))


def snapshot_seen(game_id: str) -> int | None:
    """The event of the snapshot this process last saw of `game_id` (0: none usable), None if unknown."""
    seen = _snapshots.get(game_id)
    return None if seen is None else seen[0]


def forget_kept_states() -> None:
    """Forget every state and snapshot kept (the next command of each game folds its snapshot again)."""
    _states.clear()
    _snapshots.clear()


#: What folding a history damaged outside scat may raise (a forged event no rule makes).
UNPLAYABLE = (IndexError, KeyError, TypeError, ValueError, StopIteration)


def _damaged(game_id: str, error: Exception) -> CorruptHistory:
    return CorruptHistory(
        f"the stored history of game {game_id} cannot be replayed ({type(error).__name__}): it was "
        "damaged", game_id=game_id, hint=Hint.FIND_BAD_EVENT,
    )


def replay(game_id: str, stored: Sequence[StoredEvent]) -> GameState:
    """The state after the stored events; CorruptHistory when they cannot be replayed at all."""
    try:
        return fold(event.event for event in stored)
    except CorruptHistory:
        raise
    except UNPLAYABLE as error:
        raise _damaged(game_id, error) from error


def load_for_command(tx: UnitOfWork, game_id: str) -> tuple[GameState, GameSecret | None, str]:
    """The state to play on, the kept seed and the head's hash: the state this process kept
    (kept above) and the events after it folded onto it, else the snapshot and the events after
    it folded, the log checked against the recorded head either way (HistoryDamaged if they do
    not match)."""
    kept = kept_state(game_id)
    seen = _snapshots.get(game_id)
    resume = None if kept is None or seen is None else KeptHead(kept[1].version, kept[0], *seen)
    load = tx.load_for_command(game_id, after=resume)
    if load.resumed:
        assert kept is not None
        state = kept[1]
        if load.events:
            state = _folded(game_id, load.events, state)
            keep_state(state, load.head_hash)
        require_signed_head(state, load.head_signed)
        return state, load.secret, load.head_hash
    saw_snapshot(game_id, load.snapshot_seq, load.snapshot_hash)
    state = GameState()
    if load.snapshot is not None:
        try:
            state = snapshot.decode(load.snapshot)
        except (ValueError, TypeError):  # unreadable: the events alone decide
            state = GameState()
        if state.version != load.snapshot_seq or state.game_id != game_id:
            load, state = tx.load_for_command(game_id, use_snapshot=False), GameState()
            saw_snapshot(game_id, 0, "")
    state = _folded(game_id, load.events, state)
    require_signed_head(state, load.head_signed)
    keep_state(state, load.head_hash)
    return state, load.secret, load.head_hash


def _folded(game_id: str, events: Sequence[StoredEvent], state: GameState) -> GameState:
    """`state` with `events` folded onto it; CorruptHistory for a forged event no rule makes (#14 item 7)."""
    try:
        return fold((stored.event for stored in events), state)
    except UNPLAYABLE as error:
        raise _damaged(game_id, error) from error


def require_signed_head(state: GameState, head_signed: bool) -> None:
    """HistoryDamaged when a game made signed (its first event says so: GameCreated.signed) has
    lost its head's signature: removed outside scat, with or without a cut tail, never "unsigned"."""
    if state.signed and not head_signed:
        raise HistoryDamaged(state.game_id, SIGNATURE_REMOVED)


def append(tx: UnitOfWork, state: GameState, events: list[ev.Event], after: GameState,
           head: str, recorded_at: str | None = None) -> list[StoredEvent]:
    """Append `events` (which lead from `state`, whose last event has hash `head`, to `after`)
    with the read model and, when one is due (`snapshot_due`), a snapshot, recorded at
    `recorded_at` (the service's clock); the store forgets a revealed seed in the same write.
    Nothing is written before the unit of work ends well (ports: a command's write is its last act)."""
    kept = snapshot_json(after) if snapshot_due(after) else None
    recorded_at = recorded_at or utc_now()
    summary = summary_after(tx, state, events, after, recorded_at)
    stored = tx.append(state.game_id, state.version, events, summary, kept, head, recorded_at)
    if stored and stored[-1].seq == after.version:
        keep_state(after, stored[-1].hash)  # the state at the head just written (kept above)
        if kept is not None:
            saw_snapshot(after.game_id, after.version, stored[-1].hash)
    return stored


def summary_after(tx: UnitOfWork, state: GameState, events: Sequence[ev.Event], after: GameState,
                  recorded_at: str) -> GameSummary:
    """The games row after `events` lead from `state` to `after` at `recorded_at`: with the
    game's result when they end it (kept once, by the append that ends it) and its creation when
    they create it."""
    summary = summarize(after, deadline_after(tx, state, after, recorded_at), new=state.version == 0)
    if after.status == "finished" and state.status != "finished":
        summary = replace(summary, result=kept_result(ending_result(tx, state, events, recorded_at)))
    return summary


def ending_result(tx: UnitOfWork, state: GameState, events: Sequence[ev.Event], recorded_at: str) -> GameResult:
    """The result of the game that `events`, appended after `state` at `recorded_at`, end: from its
    whole log (read once, at its end) and those events."""
    before = tx.load(state.game_id, up_to=state.version) if state.version else []
    records = [(stored.seq, stored.recorded_at, stored.event) for stored in before]
    return game_result([*records, *((state.version + index, recorded_at, event)
                                     for index, event in enumerate(events, start=1))])


#: A command folds at most about this many events after the snapshot when its process has not
#: kept the state at the head (another process played last, or a new CLI process).
SNAPSHOT_EVERY = 16


def snapshot_due(after: GameState) -> bool:
    """Whether an append that leads to `after` writes a snapshot: when the game has none usable
    (or this process does not know of one), when SNAPSHOT_EVERY events or more came since the
    one it has, and when the game ends. Between them a command folds the few events after it."""
    seen = snapshot_seen(after.game_id)
    return not seen or after.version - seen >= SNAPSHOT_EVERY or after.status == "finished"


def chance_of(state: GameState, secret: GameSecret | None) -> SeededChance:
    """The chance to play `state` on: RuleViolation for a finished game or one imported without its seed."""
    if state.status in ("finished", "cancelled"):
        raise over(state)
    if secret is None:
        raise RuleViolation(
            f"game {state.game_id} was imported without its secret seed: it can be shown, "
            "replayed and audited, not played on"
        )
    return SeededChance(secret.seed, secret.salt)


def require_player(state: GameState, name: str) -> int:
    """The seat of `name`; NotFound naming the players when there is none."""
    seat = state.seat_of(name)
    if seat is None:
        raise NotFound.no_seat(state.game_id, name, [p.name for p in state.players])
    return seat


def authorize(tx: UnitOfWork, state: GameState, player: str, token: Credential) -> int:
    """The seat of `player`, once it is proven that he acts (AuthFailed if not): in a game whose
    seats are accounts, by a request his account's key signed; in a protected game, by his token."""
    seat = require_player(state, player)
    if state.players[seat].is_bot:
        return seat
    name = state.players[seat].name
    if state.signed_moves:
        if not isinstance(token, ActingAccount):
            raise AuthFailed(f"{name} plays game {state.game_id} with his account on this server: only "
                             f"requests signed by his key act or look as him", game_id=state.game_id, player=name)
        if token.name.casefold() != name.casefold():
            raise AuthFailed(f"you are {token.name} on this server, not {name}: you act and look as "
                             f"{token.name} only", game_id=state.game_id, player=name)
        return seat
    if state.protected:
        stored = tx.get_token_hash(state.game_id, name)
        if stored is None:  # only an imported game has no tokens here
            raise AuthFailed(
                f"game {state.game_id} was imported and player tokens are not exported: "
                f"nobody can act or look as {name} here", game_id=state.game_id, player=name, hint=Hint.SHOW_TABLE,
            )
        if not isinstance(token, str) or not token:
            raise AuthFailed(
                f"game {state.game_id} is protected", game_id=state.game_id, player=name, hint=Hint.GIVE_TOKEN,
            )
        if not verify_token(token, stored):
            raise wrong_token(name, state.game_id)
    return seat


def wrong_token(name: str, game_id: str) -> WrongToken:
    """The refusal of a token that is not `name`'s in `game_id`."""
    return WrongToken(f"wrong token for {name} in game {game_id}", game_id=game_id, player=name)


def refuse_bot_viewer(state: GameState, name: str) -> None:
    """Nobody may look at a game as a bot while it runs: that would show the bot's hand."""
    seat = state.seat_of(name)
    if seat is not None and state.players[seat].is_bot and state.status != "finished":
        raise RuleViolation(
            f"{state.players[seat].name} is a bot: nobody may look at a bot's hand while the game runs"
        )


def check_up_to(game_id: str, up_to: int, count: int) -> None:
    """BadInput (exit 2: a bad SEQ, the game exists) unless 1 <= `up_to` <= `count` (the events of the game)."""
    if not 1 <= up_to <= count:
        raise BadInput(f"game {game_id} has events 1 to {count}, not {up_to}")


def summarize(state: GameState, move_deadline: str | None = None, new: bool = False) -> GameSummary:
    """The games read-model row for `state`, whose player to act runs out of time at `move_deadline`
    (R28); a `new` row (the game created, or added whole) keeps what the game was created with too."""
    return GameSummary(
        status=state.status if state.status in ("pending", "finished", "cancelled") else "active",
        players=tuple(player.name for player in state.players),
        bots=tuple(player.name for player in state.players if player.is_bot),
        turn=state.name(state.turn),
        hand_number=state.hand_number,
        dealer=state.name(state.dealer) if state.dealer >= 0 else None,
        winner=state.winner,
        protected=state.protected,
        move_deadline=move_deadline,
        awaiting=state.awaiting,
        open_seats=state.open_seats,
        rematch_of=state.rematch_of,
        creation=kept_creation(Creation.of(state)) if new else None,
    )


def summarize_whole(state: GameState, log: Sequence[tuple[int, str, ev.Event]]) -> GameSummary:
    """The games row of a game added whole (imported) with `log` (seq, recorded_at, event), which
    folds to `state`: with its creation and, when it is finished, its result (as the append that
    ends a game keeps it)."""
    summary = summarize(state, new=True)
    return replace(summary, result=kept_result(game_result(log))) if state.status == "finished" else summary


def creations(tx: UnitOfWork, rows: Sequence[GameRow]) -> dict[str, Creation]:
    """What the games of `rows` were created with: kept in each games row, else (a game added before
    it was kept, migration 0019) from its first event, one read of the log for all of those."""
    made: dict[str, Creation] = {}
    unkept = []
    for row in rows:
        kept = None if row.creation is None else creation_kept(row.creation)
        if kept is None:
            unkept.append(row.game_id)
        else:
            made[row.game_id] = kept
    if unkept:
        for stored in tx.first_events(unkept):
            if isinstance(stored.event, ev.GameCreated):
                made[stored.game_id] = Creation.of(stored.event)
    return made


def snapshot_json(state: GameState) -> str | None:
    """The snapshot of `state` to keep beside the read model; None (no snapshot: the events are
    folded instead) if it holds a value a snapshot cannot (a property test keeps that from happening)."""
    try:
        return snapshot.encode(state)
    except TypeError:
        return None


#: A wrong token of a game whose tokens are kept as scrypt hashes (made by an earlier scat) costs a
#: scrypt (about 50 ms and 16 MiB, records/credentials.py): checked inside the command's unit of
#: work, it would hold SQLite's one writer or a PostgreSQL connection. So a token
#: this process has not proven yet is proven first (`prove_token_first`), with only a short read
#: behind it; the command still checks it in its transaction (`authorize`): one SHA-256 then.
def prove_token_first(store: Store, game_id: str, player: str | None, token: Credential) -> None:
    """AuthFailed when `token` is not `player`'s in the protected game `game_id`; anything else
    (no token, no such game or player, an unprotected game) is left to the command's own checks."""
    if player is None or not isinstance(token, str) or not token or proven_for(game_id, player, token):
        return
    with store.read() as tx:
        row = tx.get_game(game_id)
        name = _seated(row.players, player) if row is not None and row.protected else None
        stored = tx.get_token_hash(game_id, name) if row is not None and name is not None else None
    if name is None or stored is None:
        return
    if not verify_token(token, stored):
        raise wrong_token(name, game_id)
    remember_proven(game_id, player, token)


def _seated(players: tuple[str, ...], player: str) -> str | None:
    """The name of the seat `player` names, matched as GameState.seat_of matches it, or None."""
    wanted = {player.casefold(), normalize_name(player).casefold()}
    return next((name for name in players if name.casefold() in wanted), None)


#: The service's clock: "now" for every event it appends (recorded_at) and for every claim (R28).
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)


def turn_began_at(tx: UnitOfWork, state: GameState) -> datetime | None:
    """The recorded time of the event that made it the player to act's turn (None: nobody is to act)."""
    if state.turn is None or not state.in_hand or state.turn_began < 1:
        return None
    began = tx.load_between(state.game_id, state.turn_began - 1, state.turn_began)
    return recorded_time(began[0].recorded_at) if began else None


def turn_deadline(tx: UnitOfWork, state: GameState) -> datetime | None:
    """When the player to act runs out of time (R28); None without a move time or a player to act."""
    if state.options.move_time is None or state.status != "active":
        return None
    began = turn_began_at(tx, state)
    return None if began is None else deadline(began, state.options.move_time)


def deadline_after(tx: UnitOfWork, before: GameState, after: GameState, recorded_at: str) -> str | None:
    """The games read model's move deadline once the events from `before` to `after` are
    recorded at `recorded_at`: counted from then if they began the turn, else as it was; for a
    game waiting for its players, when its invitations expire (counted from its creation)."""
    if after.status == "pending" and after.expires is not None:
        created = recorded_at if before.version == 0 else invitations_sent(tx, after)
        return None if created is None else recorded_text(recorded_time(created) + timedelta(seconds=after.expires))
    if after.options.move_time is None or after.status != "active" or after.turn is None or not after.in_hand:
        return None
    if after.turn_began > before.version:
        return recorded_text(deadline(recorded_time(recorded_at), after.options.move_time))
    ends = turn_deadline(tx, after)
    return None if ends is None else recorded_text(ends)


def invitations_sent(tx: UnitOfWork, state: GameState) -> str | None:
    """When the game of `state` was created (its invitations sent): its first event's recorded time."""
    first = tx.load_between(state.game_id, 0, 1)
    return first[0].recorded_at if first else None


def invitations_expire(tx: UnitOfWork, state: GameState) -> datetime | None:
    """When a pending game's invitations expire (None: it is no such game)."""
    if state.status != "pending" or state.expires is None:
        return None
    sent = invitations_sent(tx, state)
    return None if sent is None else recorded_time(sent) + timedelta(seconds=state.expires)


def seconds_left(ends: datetime, now: datetime) -> int:
    """Whole seconds left before `ends` at `now`, rounded up: 0 once the time ran out (R28)."""
    return max(0, math.ceil((ends - now).total_seconds()))


def move_clock(ends: datetime | str | None, now: datetime) -> tuple[str | None, int | None]:
    """(the deadline as recorded_at text, the seconds left at `now`) of a turn; (None, None) without one."""
    if ends is None:
        return None, None
    moment = recorded_time(ends) if isinstance(ends, str) else ends
    return recorded_text(moment), seconds_left(moment, now)

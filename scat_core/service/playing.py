"""Playing: creating a game, a player's move, a claim (R28), abandoning, a look at one's hand, the bots.

Every command is one unit of work: load -> fold -> decide (his move, then the bots' replies
until a human must act or the game ends) -> append (with the read model), its events and the
game's head written together or not at all, and the front end's answer built from its records
before they are written (`Tell`), so nothing can fail after the commit. The bots play in units
of BOT_MOVES_PER_UNIT moves: the first in the command's own unit of work, any more in units of
their own after it, each committed, and at most BOT_UNITS_PER_COMMAND per command. A signed
move (a server's accounts) is checked against the position its player saw (its tag) and
recorded in a MoveSigned event; the signed request's nonce is spent in the command's own unit
of work, so a replay finds it there, and a refused command spends it apart
(`spent_even_if_refused`, in memory when the database itself refused).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.audit_report import AuditReport
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import (
    AbandonGame,
    AcceptSeat,
    ClaimTime,
    CreateGame,
    DeclineSeat,
    ExpireInvitations,
    JoinGame,
    PlayerCommand,
    Say,
    ViewHand,
    move_fields,
    signer_of,
)
from scat_core.domain.decide import decide_and_evolve, not_running
from scat_core.domain.errors import AuthFailed, BadInput, RequestRefused, RuleViolation, ScatError, Unavailable
from scat_core.domain.evolve import evolve
from scat_core.domain.names import SEED_RE, normalize_name
from scat_core.domain.options import GameOptions, deadline, recorded_text
from scat_core.domain.shuffle import SeededChance, new_salt, new_seed
from scat_core.domain.state import GameState
from scat_core.domain.views import redact
from scat_core.records.credentials import (
    ActingAccount,
    Credential,
    RequestNonce,
    hash_token,
    new_token,
    remember_proven,
)
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.signing import MoveSignature, position_tag, verifies
from scat_core.records.stored_log import GameSecret, StoredEvent
from scat_core.service.loading import (
    Clock,
    append,
    authorize,
    chance_of,
    creations,
    invitations_expire,
    keep_state,
    load_for_command,
    move_clock,
    prove_token_first,
    refuse_bot_viewer,
    require_player,
    saw_snapshot,
    snapshot_json,
    summary_after,
    system_clock,
    turn_began_at,
    turn_deadline,
)
from scat_core.service.ports import Store, UnitOfWork

if TYPE_CHECKING:
    from scat_core.domain.accounts import Account


def tag_of(secret: GameSecret | None, head: str) -> str:
    """The position tag of the game's last event (hash `head`); "" without its seed (no move is made then)."""
    return position_tag(secret.seed, secret.salt, head) if secret is not None else ""


#: The position tag of the game's event `seq` when only talk (messages) came after it, else None:
#: a move signed there still stands (a message never fails a move), a message at any `seq`.
TagAt = Callable[[int, bool], str | None]


def signed_move(state: GameState, tag: str, command: cmd.Command, token: Credential,
                signature: MoveSignature | None, tag_at: TagAt | None = None) -> ev.MoveSigned | None:
    """The MoveSigned that must precede `command`'s events in `state` (the position tag of its
    last event: `tag`, records/signing.py); None when
    the command needs no signature. AuthFailed when it lacks one or it does not verify under the
    acting account's key; ConcurrencyConflict when it was made at another position than the game's
    (but for one followed by talk only, or any earlier position for a message: `tag_at`)."""
    signer = signer_of(state, command)
    move = move_fields(command)
    if signer is None or move is None:
        return None
    if not isinstance(token, ActingAccount):
        raise AuthFailed(f"{signer}'s moves in game {state.game_id} are signed with his account's key",
                         game_id=state.game_id, player=signer)
    if signature is None:
        raise AuthFailed(f"the moves of game {state.game_id} are signed by their players, and this one carries "
                         "no signature (a scat that signs moves sends one)", game_id=state.game_id, player=signer)
    if signature.key_id != token.key_id:
        raise AuthFailed(f"the move is signed with the key {signature.key_id[:16]}, not with {token.key_id}, "
                         f"the key of the account {token.name}", game_id=state.game_id, player=signer)
    talk = isinstance(command, cmd.Say)
    earlier = tag_at is not None and 0 < signature.seq < state.version and tag_at(signature.seq, talk) == signature.tag
    if (signature.seq, signature.tag) != (state.version, tag) and not earlier:
        raise ConcurrencyConflict(f"game {state.game_id} moved on since the move was signed at event {signature.seq} "
                               f"(it is at event {state.version}): look at it again and move anew")
    if not verifies(token.public_key, state.game_id, signature, move):
        raise AuthFailed(f"the signature of {signer}'s move does not verify under the key of his account",
                         game_id=state.game_id, player=signer)
    return ev.MoveSigned(player=signer, move=move, at_seq=signature.seq, at_tag=signature.tag,
                         key_id=token.key_id, public_key=token.public_key, signature=signature.signature)


def held_then(account: Account, key_id: str, at: str) -> bool:
    """Whether the key `key_id` acted for `account` at the recorded time `at` (added before it, and
    neither revoked nor replaced by a rekey until after it)."""
    period = account.period(key_id)
    return period is not None and period.held_at(at)


def with_signers(report: AuditReport, records: Sequence[Mapping[str, Any]],
                 account_of: Callable[[str], Account | None]) -> AuditReport:
    """`report`, failed at the first signed move whose key was not its player's account's key when
    it was recorded (the signatures themselves verified: scat_core/records/chain.py)."""
    if not report.ok or not report.moves_signed:
        return report
    for record in records:
        if record["type"] != ev.MoveSigned.model_fields["type"].default:
            continue
        seq, player, key_id = record["seq"], record["data"]["player"], record["data"]["key_id"]
        account = account_of(player)
        if account is None:
            problem = f"event {seq} is signed by {player}, who has no account on this server"
        elif not held_then(account, key_id, record["recorded_at"]):
            problem = (f"event {seq} is signed with the key {key_id}, which did not act for {player}'s account then "
                       "(not yet added, or revoked or replaced before it)")
        else:
            continue
        return replace(report, ok=False, first_bad_seq=seq, problems=[problem])
    return report


#: The nonces of requests the database refused (busy, lost) before they could be remembered:
#: (key id, nonce) -> when it expires. Bounded (the expired ones go first, then all).
_REFUSED: dict[tuple[str, str], int] = {}
_REFUSED_MAX = 10_000
_REFUSED_LOCK = threading.Lock()


def nonce_of(credential: Credential) -> RequestNonce | None:
    """The unspent nonce of the signed request `credential` came in, if any."""
    return credential.nonce if isinstance(credential, ActingAccount) else None


def spend(tx: UnitOfWork, credential: Credential, again: bool = False) -> None:
    """Remember the request's unspent nonce in `tx`; RequestRefused when it was spent already (a replay).
    `again`: the same request's command tried once more (a message came first): its own nonce, kept
    by the first try (PostgreSQL spends it by a statement of its own), is no replay."""
    nonce = nonce_of(credential)
    if nonce is None:
        return
    with _REFUSED_LOCK:
        refused = (nonce.key_id, nonce.nonce) in _REFUSED
    if (refused or not tx.use_nonce(nonce)) and not again:
        raise RequestRefused.replayed()


@contextmanager
def spent_even_if_refused(store: Store, credential: Credential) -> Iterator[None]:
    """Around a command that `spend`s the nonce of `credential`: if it fails, the nonce is spent
    apart (already there, as a replay's, is as good), or kept in memory when the database
    refused the command; a failure to spend it changes nothing of the command's own error."""
    try:
        yield
    except RequestRefused:
        raise  # the replay of a request whose nonce is known
    except Unavailable:
        nonce = nonce_of(credential)
        if nonce is not None:
            _keep_refused(nonce)
        raise
    except BaseException:
        nonce = nonce_of(credential)
        if nonce is not None:
            try:
                with store.transaction() as tx:
                    tx.use_nonce(nonce)
            except ScatError:
                _keep_refused(nonce)
        raise


def _keep_refused(nonce: RequestNonce) -> None:
    with _REFUSED_LOCK:
        if len(_REFUSED) >= _REFUSED_MAX:
            for key in [key for key, until in _REFUSED.items() if until < nonce.now]:
                del _REFUSED[key]
            if len(_REFUSED) >= _REFUSED_MAX:
                _REFUSED.clear()
        _REFUSED[(nonce.key_id, nonce.nonce)] = nonce.expires_at

#: The bots' moves decided and written in one unit of work (R17b makes every hand, so every game,
#: finite; a game of older rules may not end: its bots play in units of this size, each committed).
BOT_MOVES_PER_UNIT = 500
#: The units of bots' moves one command plays at most (BOT_MOVES_PER_UNIT each); then it says so
#: (`Outcome.bots_owe`) and the next command, or a look, lets them go on.
BOT_UNITS_PER_COMMAND = 20
BOT_RETRIES = 5
#: How many times a command is made again when only talk (a message) came between its load and its write.
TALK_RETRIES = 3
#: What one account may ask of others on a server (bounds per sender and per sender and invitee,
#: never a cap on the invitee): games of its making waiting for players at once; of them, games
#: inviting one same account; messages in one game in MESSAGE_WINDOW seconds.
PENDING_MADE = 20
PENDING_PER_INVITEE = 3
MESSAGES_IN_WINDOW, MESSAGE_WINDOW = 20, 600
#: Builds a front end's answer to a command from its outcome within the command's unit of work (a
#: result may be read from it), before it ends: whatever fails in it fails with nothing written.
Tell = Callable[["Outcome", UnitOfWork], None]


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
    #: Why the bots' later moves could not be saved after the command's own were (the next command plays them).
    bots_interrupted: str | None = None
    #: The bots still owe moves: the command played as many as one command may (BOT_UNITS_PER_COMMAND
    #: units); the next command, or a look, lets them go on.
    bots_owe: bool = False
    #: The position tag after these events, in a running game whose moves are signed ("" otherwise):
    #: what its next move is signed at, unless someone moves first (service/playing.py).
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


def bot_moves(state: GameState, chance: SeededChance, limit: int | None = None) -> tuple[list[ev.Event], GameState]:
    """The events of the bots' moves from `state` until a human must act, the game ends or
    `limit` moves (default BOT_MOVES_PER_UNIT) are made, and the state after them."""
    events: list[ev.Event] = []
    for _ in range(BOT_MOVES_PER_UNIT if limit is None else limit):
        command = next_bot_command(state)
        if command is None:
            break
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
    return events, state


def revealed(state: GameState) -> GameSecret | None:
    """The seed a finished game revealed at its end (GameWon, GameAbandoned), or None."""
    return GameSecret(state.seed, state.seed_salt) if state.seed is not None and state.seed_salt is not None else None


def joiner(state: GameState, player: str, token: Credential) -> None:
    """AuthFailed unless `player` may take an open seat as himself: the account that signed the request
    (open seats are a server's; its accounts sign each request)."""
    if not state.signed_moves or not isinstance(token, ActingAccount):
        raise AuthFailed("open seats are taken by a server's accounts: register one, and join as yourself",
                         game_id=state.game_id, player=player)
    if token.name.casefold() != player.casefold():
        raise AuthFailed(f"you are {token.name} on this server, not {player}: you join as {token.name} only",
                         game_id=state.game_id, player=player)


def tag_at(tx: UnitOfWork, state: GameState, secret: GameSecret | None) -> TagAt:
    """The position tags of earlier events of `state`'s game (`TagAt`): of event `seq`
    when nothing but talk came after it (or, for a message, whatever came)."""

    def at(seq: int, talk: bool) -> str | None:
        since = tx.load_between(state.game_id, seq - 1, state.version)
        if secret is None or not since or since[0].seq != seq:
            return None
        if not talk and not all(isinstance(stored.event, ev.TALK) for stored in since[1:]):
            return None
        return tag_of(secret, since[0].hash)

    return at


def within_message_bounds(tx: UnitOfWork, state: GameState, player: str, now: datetime) -> None:
    """RuleViolation when `player` said MESSAGES_IN_WINDOW lines in the game in the last MESSAGE_WINDOW
    seconds (read from the log's end: one indexed read)."""
    said = tx.load_between(state.game_id, 0, state.version, ("MessageSaid",), newest_first=True,
                           limit=MESSAGES_IN_WINDOW * 4)
    since = recorded_text(now - timedelta(seconds=MESSAGE_WINDOW))
    key = player.casefold()
    lately = [stored for stored in said if stored.recorded_at >= since
              and stored.event.player.casefold() == key]  # type: ignore[union-attr]
    if len(lately) >= MESSAGES_IN_WINDOW:
        raise RuleViolation(f"{player} said {len(lately)} lines in this game in the last {MESSAGE_WINDOW // 60} "
                            "minutes, the most one player may: wait a little")


def claimed_in(events: Sequence[ev.Event]) -> bool:
    """Whether `events` hold a claim of a turn whose move time ran out (R28), or the expiry of a
    game's invitations: what stands even if the command that found it due is refused."""
    return any((isinstance(event, ev.Resigned) and event.cause is not None)
               or (isinstance(event, ev.GameCancelled) and event.reason == "expired") for event in events)


class Playing:
    """The use cases that change a game: create, act, claim, abandon, look (R23), the bots' moves.

    Each is one unit of work: the command's events, the bots' replies (a first unit of them) and
    the game's head are written together or not at all, and the front end's answer (`tell`) is
    built before the write. Bots owing more moves play on in further units, each committed.
    `server`: the service of a server, where the server itself claims a turn out of move time
    (R28); on a local database, a command naming another player still in the game claims it.
    """

    def __init__(self, store: Store, clock: Clock = system_clock, server: bool = False) -> None:
        self.store = store
        self.clock = clock
        self.server = server

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
        tell: Tell | None = None,
        creator: str | None = None,
        consent: bool = False,
        open_seats: int = 0,
        expires: int | None = None,
        rematch_of: str | None = None,
    ) -> Outcome:
        """Create a game, deal its first hand and let bots play until a human must: one unit of work.

        Names are normalised (NFKC, trimmed) first; a seed given here is recorded as chosen,
        since whoever chose it can know every hand. `signed_moves`: its humans are a server's
        accounts, who sign each move with their keys (no tokens are made). `consent`: its humans but
        its `creator` accept their seats first, and `open_seats` are taken (`join`) before it is
        dealt (R28); its invitations expire after `expires` seconds (default 7 days).
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
            signed=True,  # every store signs each head from the first on (records/signing.py)
            creator=normalize_name(creator) if creator is not None else None,
            consent=consent,
            open_seats=open_seats,
            expires=expires,
            rematch_of=rematch_of,
        )
        created, state = decide_and_evolve(GameState(), command, chance)
        if state.status == "pending" and state.creator is not None:
            self._within_invitation_bounds(state.creator, state.awaiting)
        replies, after = bot_moves(state, chance)
        tokens = {p.name: new_token() for p in state.players if protect and not signed_moves and not p.is_bot}
        secret = GameSecret(chance.seed, chance.salt)
        now = self._now()
        with self.store.transaction() as tx:
            summary = summary_after(tx, GameState(), created + replies, after, now)
            kept = snapshot_json(after)
            stored = tx.append(command.game_id, 0, created + replies, summary, kept, recorded_at=now)
            if after.status != "finished":  # a game its bots played out has revealed its seed: none kept
                tx.put_secret(command.game_id, chance.seed, chance.salt)
            for name, token in tokens.items():
                tx.put_token_hash(command.game_id, name, hash_token(token))
            outcome = _told(Outcome(command.game_id, after, stored, tokens, before=GameState(),
                                    position_tag=position_after(after, secret, stored)), tx, tell)
        if kept is not None:
            saw_snapshot(command.game_id, after.version, stored[-1].hash)
        keep_state(after, stored[-1].hash)
        for name, token in tokens.items():
            remember_proven(command.game_id, name, token)  # issued here: its first use reads nothing first
        return self.bots_go_on(outcome, chance, secret, tell)

    def _within_invitation_bounds(self, creator: str, invited: Sequence[str]) -> None:
        """RuleViolation when `creator` has PENDING_MADE games waiting for players already, or
        PENDING_PER_INVITEE of them inviting one of `invited`: bounds per sender and per pair,
        never a cap on the invitee that strangers could fill."""
        key = creator.casefold()
        with self.store.read() as tx:
            rows = [row for row in tx.games_of(creator, "9999") if row.status == "pending"]  # "9999": none ended
            made = [game_id for game_id, creation in creations(tx, rows).items()
                    if (creation.creator or "").casefold() == key]
        if len(made) >= PENDING_MADE:
            raise RuleViolation(f"{creator} has {len(made)} games waiting for their players already, the most one "
                                "account may have: let them be answered, or withdraw one (decline it)")
        mine = [row for row in rows if row.game_id in made]
        for name in invited:
            if sum(name.casefold() in (n.casefold() for n in row.awaiting) for row in mine) >= PENDING_PER_INVITEE:
                raise RuleViolation(f"{creator} invites {name} to {PENDING_PER_INVITEE} games already, the most "
                                    f"one account may: let {name} answer them first")

    def act(self, game_id: str, command: PlayerCommand, token: Credential = None,
            signature: MoveSignature | None = None, tell: Tell | None = None) -> Outcome:
        """Carry out a human player's command and the bots' replies until a human must act, in
        one unit of work (ConcurrencyConflict, nothing written, if the game moved meanwhile); in a
        game whose moves are signed, `signature` is the player's (below). The nonce of
        the signed request it came in, if left to it, is spent in the same unit (nonces.py);
        a token not proven yet is proven before it (`loading.prove_token_first`)."""
        prove_token_first(self.store, game_id, command.player, token)
        for attempt in range(TALK_RETRIES + 1):
            try:
                return self._act(game_id, command, token, signature, tell, attempt > 0)
            except _Conflict as conflict:
                if attempt == TALK_RETRIES or not self._only_talk_since(game_id, conflict.seen):
                    raise conflict.conflict from None
        raise AssertionError("unreachable")

    def _only_talk_since(self, game_id: str, seen: int) -> bool:
        """Whether what came after event `seen` (the head a command loaded, and met another at
        its write) is talk only: a message never fails a move, which is then made again."""
        with self.store.read() as tx:
            since = tx.load_between(game_id, seen, seen + 1_000)
        return bool(since) and all(isinstance(stored.event, ev.TALK) for stored in since)

    def _act(self, game_id: str, command: PlayerCommand, token: Credential, signature: MoveSignature | None,
             tell: Tell | None, again: bool) -> Outcome:
        seen: list[int] = []
        try:
            return self._act_at(game_id, command, token, signature, tell, again, seen)
        except ConcurrencyConflict as conflict:
            if seen:
                raise _Conflict(conflict, seen[0]) from conflict
            raise

    def _act_at(self, game_id: str, command: PlayerCommand, token: Credential, signature: MoveSignature | None,
                tell: Tell | None, again: bool, seen: list[int]) -> Outcome:
        with spent_even_if_refused(self.store, token), self.store.command() as tx:
            spend(tx, token, again)
            state, secret, head = load_for_command(tx, game_id)
            seen.append(state.version)
            seat = authorize(tx, state, command.player, token)
            if state.players[seat].is_bot:
                raise RuleViolation(f"{state.players[seat].name} is a bot: bots play by themselves")
            chance = chance_of(state, secret)
            # Moves bots still owe (their writer was interrupted) come first, then a claim of a
            # turn whose move time ran out (R28): both stand even if the command is refused.
            now = self.clock()
            events, owed = self._owed(tx, state, chance, now, state.players[seat].name)
            refused: ScatError | None = None
            signed = signed_move(state, tag_of(secret, head), command, token, signature, tag_at(tx, state, secret))
            try:
                mine, after = decide_and_evolve(evolve(owed, signed) if signed else owed, command, chance)
                mine = [signed, *mine] if signed else mine
            except ScatError as error:
                if not claimed_in(events):
                    raise
                refused, mine, after = error, [], owed
            replies, after = bot_moves(after, chance)  # the bots' replies: the same unit of work
            outcome = self._written(tx, state, events + mine + replies, after, head, recorded_text(now), secret,
                                    None if refused else tell)
        if refused is not None:
            raise refused
        return self.bots_go_on(outcome, chance, secret, tell)

    def say(self, game_id: str, player: str, text: str, token: Credential = None,
            signature: MoveSignature | None = None, tell: Tell | None = None) -> Outcome:
        """`player` says one line at the game's table (a player of it, also out of it or after its end,
        his token or key proving it; signed like a move where moves are signed). Not a move: it
        changes no turn and no clock, and is written at the head whatever came meanwhile."""
        prove_token_first(self.store, game_id, player, token)
        for attempt in range(TALK_RETRIES + 1):
            try:
                with spent_even_if_refused(self.store, token), self.store.command() as tx:
                    spend(tx, token, attempt > 0)
                    state, secret, head = load_for_command(tx, game_id)
                    if state.seat_of(player) is not None:  # one with no seat is refused by decide (exit 3)
                        authorize(tx, state, player, token)
                    secret = secret or revealed(state)
                    if secret is None:  # imported running, without its seed: read-only here
                        chance_of(state, secret)
                    assert secret is not None
                    chance = SeededChance(secret.seed, secret.salt)  # a message draws on no chance
                    command = Say(player, text)
                    if self.server:
                        within_message_bounds(tx, state, player, self.clock())
                    signed = signed_move(state, tag_of(secret, head), command, token, signature,
                                         tag_at(tx, state, secret))
                    mine, after = decide_and_evolve(evolve(state, signed) if signed else state, command, chance)
                    return self._written(tx, state, [signed, *mine] if signed else mine, after, head, self._now(),
                                         secret, tell)
            except ConcurrencyConflict:
                if attempt == TALK_RETRIES:
                    raise
        raise AssertionError("unreachable")

    def _written(self, tx: UnitOfWork, state: GameState, events: list[ev.Event], after: GameState, head: str,
                 recorded_at: str, secret: GameSecret | None, tell: Tell | None,
                 earlier: Outcome | None = None) -> Outcome:
        """Append `events` (from `state`, at head `head`, to `after`) in `tx` and tell their outcome
        (with the `earlier` units' of the same command, if any) before the unit of work ends."""
        stored = append(tx, state, events, after, head, recorded_at)
        if earlier is not None:
            stored = [*earlier.events, *stored]
        outcome = Outcome(state.game_id, after, stored, earlier.tokens if earlier is not None else {},
                          before=earlier.before if earlier is not None else state,
                          position_tag=position_after(after, secret, stored))
        return _told(outcome, tx, tell)

    def _owed(self, tx: UnitOfWork, state: GameState, chance: SeededChance, now: datetime,
              actor: str | None, by_server: bool = False) -> tuple[list[ev.Event], GameState]:
        """The events owed before a command of `actor` (None: nobody named) at `now`: the bots'
        moves, then, if the player to act ran out of move time and `actor` may claim it (R28:
        `claimer`; `by_server`: the server claims, whoever acts), the claim of his turn and the
        bots' moves after it. A game waiting for its players whose invitations expired is
        cancelled first (R28), whoever acts."""
        if state.status == "pending":
            ends = invitations_expire(tx, state)
            if ends is None or ends > now:
                return [], state
            cancelled, after = decide_and_evolve(state, ExpireInvitations(now, ends - timedelta(
                seconds=state.expires or 0)), chance)
            return cancelled, after
        events, owed = bot_moves(state, chance)
        if next_bot_command(owed) is not None or owed.options.move_time is None or owed.status != "active" \
                or owed.turn_began > state.version:
            return events, owed
        allowed, claimer = (True, None) if by_server else self.claimer(owed, actor)
        if not allowed:
            return events, owed
        began = turn_began_at(tx, owed)
        if began is None or deadline(began, owed.options.move_time) > now:
            return events, owed
        claimed, owed = decide_and_evolve(owed, ClaimTime(claimer, now, began), chance)
        more, owed = bot_moves(owed, chance)
        return events + claimed + more, owed

    def claimer(self, state: GameState, actor: str | None) -> tuple[bool, str | None]:
        """(whether the turn of the player to act, once out of move time, is claimed on a command of
        `actor`, and by whom) (R28): until a claim is recorded the late player may still move, so
        never on his own; on a server by the server itself (None); on a local database by `actor`,
        when he is another player still in the game (bots never claim)."""
        late = state.turn
        seat = state.seat_of(actor) if actor is not None else None
        if late is None or (seat is not None and seat == late):
            return False, None
        if self.server:
            return True, None
        if seat is None or state.players[seat].out or state.players[seat].is_bot:
            return False, None
        return True, state.players[seat].name

    def claim_overdue(self, game_id: str) -> Outcome | None:
        """The server's claim (R28): the turn of the player to act is claimed by the server itself
        if his move time ran out; None when it has not (or the game cannot be played here, or
        someone else acted first)."""
        try:
            with self.store.command() as tx:
                state, secret, head = load_for_command(tx, game_id)
                if (state.options.move_time is None and state.status != "pending") or secret is None \
                        or state.status not in ("active", "pending"):
                    return None
                chance = SeededChance(secret.seed, secret.salt)
                now = self.clock()
                events, after = self._owed(tx, state, chance, now, None, by_server=True)
                if not claimed_in(events):
                    return None
                stored = append(tx, state, events, after, head, recorded_text(now))
        except ConcurrencyConflict:
            return None
        return Outcome(game_id, after, stored, before=state)

    def claim(self, game_id: str, claimer: str | None, token: Credential = None,
              signature: MoveSignature | None = None, tell: Tell | None = None) -> Outcome:
        """Claim the turn of the player to act once his move time ran out (R28): he is resigned,
        then the bots play, in the same unit of work. `claimer`: a player still in the game (his token
        checked as for any move), or None for the server itself. Refused (RuleViolation R28, nothing written) before."""
        prove_token_first(self.store, game_id, claimer, token)
        with spent_even_if_refused(self.store, token), self.store.command() as tx:
            spend(tx, token)
            state, secret, head = load_for_command(tx, game_id)
            if claimer is not None:
                seat = authorize(tx, state, claimer, token)
                if state.players[seat].is_bot:
                    raise RuleViolation(f"{state.players[seat].name} is a bot: bots never claim", "R28")
            chance = chance_of(state, secret)
            events, owed = bot_moves(state, chance)  # moves bots still owe come first, as in `act`
            now = self.clock()
            began = now if owed.turn_began > state.version else turn_began_at(tx, owed)
            if began is None or owed.options.move_time is None:
                began = now  # no turn to claim: decide says why (R28)
            claim = ClaimTime(claimer, now, began)
            signed = signed_move(state, tag_of(secret, head), claim, token, signature)
            mine, after = decide_and_evolve(evolve(owed, signed) if signed else owed, claim, chance)
            replies, after = bot_moves(after, chance)  # the bots' replies: the same unit of work
            outcome = self._written(tx, state, events + ([signed, *mine] if signed else mine) + replies, after,
                                    head, recorded_text(now), secret, tell)
        return self.bots_go_on(outcome, chance, secret, tell)

    def abandon(self, game_id: str, player: str | None, token: Credential = None,
                signature: MoveSignature | None = None, tell: Tell | None = None) -> Outcome:
        """Give the game up without a winner (GameAbandoned, its seed revealed), in any rules
        version: `player`, the one human still in it (his token or key proving it, his signature
        where moves are signed), or None, the owner of a local database, when no human is in it."""
        prove_token_first(self.store, game_id, player, token)
        with spent_even_if_refused(self.store, token), self.store.command() as tx:
            spend(tx, token)
            state, secret, head = load_for_command(tx, game_id)
            if player is not None:
                authorize(tx, state, player, token)
            elif self.server:
                raise AuthFailed(f"on a server a game is abandoned by the last human in it, as himself (--as NAME): "
                                 f"game {game_id} has no owner here but its players", game_id=game_id)
            chance = chance_of(state, secret)
            command = AbandonGame(player)
            signed = signed_move(state, tag_of(secret, head), command, token, signature)
            mine, after = decide_and_evolve(evolve(state, signed) if signed else state, command, chance)
            return self._written(tx, state, [signed, *mine] if signed else mine, after, head, self._now(), secret,
                                 tell)

    def seat(self, game_id: str, command: AcceptSeat | DeclineSeat | JoinGame, token: Credential = None,
             signature: MoveSignature | None = None, tell: Tell | None = None) -> Outcome:
        """Accept a seat (the last acceptance deals, R28), decline it (the game is cancelled; for
        its creator, withdrawn) or take an open seat (joining is accepting): in one unit of work,
        with the bots' first moves if it dealt. A seat is taken by the account that asks (its
        signature where moves are signed), in a transaction of its own: the game's seats change."""
        prove_token_first(self.store, game_id, command.player, token)
        joining = isinstance(command, JoinGame)
        with spent_even_if_refused(self.store, token), (self.store.transaction() if joining
                                                        else self.store.command()) as tx:
            spend(tx, token)
            state, secret, head = load_for_command(tx, game_id)
            if joining:
                joiner(state, command.player, token)
            elif state.seat_of(command.player) is not None:
                authorize(tx, state, command.player, token)
            chance = chance_of(state, secret)
            now = self.clock()
            events, owed = self._owed(tx, state, chance, now, None)
            signed = signed_move(state, tag_of(secret, head), command, token, signature, tag_at(tx, state, secret))
            try:
                mine, after = decide_and_evolve(evolve(owed, signed) if signed else owed, command, chance)
            except ScatError:
                if not claimed_in(events):
                    raise
                mine, after = [], owed  # the expiry stands; the command is refused below
            replies, after = bot_moves(after, chance)
            mine = ([signed] if signed and mine else []) + mine + replies
            if joining:
                outcome = self._written_whole(tx, state, events + mine, after, recorded_text(now), secret, tell)
            else:
                outcome = self._written(tx, state, events + mine, after, head, recorded_text(now), secret, tell)
        if not mine:
            raise not_running(outcome.state)
        return self.bots_go_on(outcome, chance, secret, tell)

    def _written_whole(self, tx: UnitOfWork, state: GameState, events: list[ev.Event], after: GameState,
                       recorded_at: str, secret: GameSecret | None, tell: Tell | None) -> Outcome:
        """`_written`, through the store's whole append (its games row and seats written afresh), in a
        transaction: for a command that changes the game's seats."""
        summary = summary_after(tx, state, events, after, recorded_at)
        stored = tx.append(state.game_id, state.version, events, summary, snapshot_json(after), recorded_at=recorded_at)
        keep_state(after, stored[-1].hash)
        saw_snapshot(after.game_id, after.version, stored[-1].hash)
        outcome = Outcome(state.game_id, after, stored, before=state,
                          position_tag=position_after(after, secret, stored))
        return _told(outcome, tx, tell)

    def rematch(self, game_id: str, player: str, token: Credential = None, tell: Tell | None = None) -> Outcome:
        """The rematch of the finished game `game_id`, asked by its player `player`: the same players
        and options, the first dealer one seat to the left of its first dealer (R6, R8), and on a
        server a game waiting for its other humans to accept (R28). Asked again, by anyone of
        them, it is that same game (one rematch a game: the store refuses a second)."""
        with self.store.read() as tx:
            state, _, _ = load_for_command(tx, game_id)
            seat = require_player(state, player)
            if state.players[seat].is_bot:
                raise RuleViolation(f"{state.players[seat].name} is a bot: bots ask for nothing")
            authorize(tx, state, player, token)
            if state.status != "finished" or state.winner is None:
                raise RuleViolation(f"game {game_id} has not been won: a rematch follows the end of a game played out")
            found = tx.find_rematch(game_id)
            first = tx.load_between(game_id, 0, 1)[0].event
        if found is None:
            assert isinstance(first, ev.GameCreated)
            old_dealer = next(p.seat for p in state.players if p.name == first.dealer)
            dealer = state.players[(old_dealer + 1) % len(state.players)].name  # one seat to the left (R6)
            seats = [ev.PlayerSeat(name=p.name, is_bot=p.is_bot) for p in state.players]
            try:
                return self.create_game(seats, options=state.options, dealer=dealer, tell=tell,
                                        protect=state.protected and not state.signed_moves,
                                        signed_moves=state.signed_moves, creator=state.players[seat].name,
                                        consent=state.signed_moves, rematch_of=game_id)
            except ConcurrencyConflict:  # another player asked at the same time: his is the one
                with self.store.read() as tx:
                    found = tx.find_rematch(game_id)
                if found is None:
                    raise
        with self.store.read() as tx:
            again, _, _ = load_for_command(tx, found)
            return _told(Outcome(found, again, before=again), tx, tell)

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
        """The current state, after what is owed: the bots' moves, and a claim of a turn out of move
        time that this look may make (R28: `claimer`); showing a player his hand is recorded in
        throw-down games (R23). What it writes is one unit of work (see `_catch_up`).
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
            expires = invitations_expire(tx, state)
        seat = state.seat_of(player) if player is not None else None
        looks = record and seat is not None and state.hand_unseen(seat) and not state.players[seat].out
        overdue = ends is not None and ends <= self.clock() and self.claimer(state, player)[0]
        overdue = overdue or (expires is not None and expires <= self.clock())  # anyone's look records it
        if not looks and not overdue and next_bot_command(state) is None:
            return state
        return self._catch_up(game_id, player, looks).state

    def _catch_up(self, game_id: str, player: str | None, looks: bool) -> Outcome:
        """Write what a look of `player` owes in one unit of work: the bots' moves, a claim (R28)
        and, with `looks`, his look at his hand (R23); retried if someone else moved meanwhile."""
        for attempt in range(BOT_RETRIES + 1):
            try:
                with self.store.command() as tx:
                    state, secret, head = load_for_command(tx, game_id)
                    if state.status == "finished" or secret is None:  # over, or imported: nothing owed here
                        return Outcome(game_id, state, before=state)
                    chance = chance_of(state, secret)
                    now = self.clock()
                    events, after = self._owed(tx, state, chance, now, player)
                    seat = after.seat_of(player) if player is not None else None
                    if looks and seat is not None and after.hand_unseen(seat) and not after.players[seat].out:
                        viewed, after = decide_and_evolve(after, ViewHand(after.players[seat].name), chance)
                        events += viewed
                    if not events:
                        return Outcome(game_id, state, before=state)
                    outcome = self._written(tx, state, events, after, head, recorded_text(now), secret, None)
                return self.bots_go_on(outcome, chance, secret, None)
            except ConcurrencyConflict:
                if attempt == BOT_RETRIES:
                    raise
        raise AssertionError("unreachable")

    def play_bots(self, game_id: str) -> Outcome:
        """Let bots make the moves they still owe, until a human must act, the game ends or a
        command's bound is met (`Outcome.bots_owe`). Bots owe moves only when a command met its
        bound, or a process was killed between two of its units. Nothing owed: nothing appended."""
        return self._catch_up(game_id, None, False)

    def bots_go_on(self, outcome: Outcome, chance: SeededChance, secret: GameSecret | None,
                    tell: Tell | None) -> Outcome:
        """After a command's first unit (`outcome`), the bots' further moves, a unit of work each
        (the answer told again before each write), until a human must act, the game ends or the
        command played BOT_UNITS_PER_COMMAND units (then `bots_owe`). A unit that cannot be
        written (the database lost, someone moved) ends them: the outcome says why, and the
        next command plays them."""
        units = 1
        while next_bot_command(outcome.state) is not None:
            if units == BOT_UNITS_PER_COMMAND:
                return replace(outcome, bots_owe=True)
            units += 1
            try:
                with self.store.command() as tx:
                    state, _, head = load_for_command(tx, outcome.game_id)
                    if state.version != outcome.state.version:
                        raise ConcurrencyConflict(f"game {outcome.game_id} moved on meanwhile")
                    events, after = bot_moves(state, chance)
                    written = self._written(tx, state, events, after, head, self._now(), secret, tell, outcome)
            except (ConcurrencyConflict, Unavailable) as stopped:
                return replace(outcome, bots_interrupted=str(stopped))
            outcome = written
        return outcome


class _Conflict(Exception):
    """A command's ConcurrencyConflict, with the head it had loaded (`seen`): to tell talk from a move."""

    def __init__(self, conflict: ConcurrencyConflict, seen: int) -> None:
        super().__init__(str(conflict))
        self.conflict, self.seen = conflict, seen


def _told(outcome: Outcome, tx: UnitOfWork, tell: Tell | None) -> Outcome:
    """`outcome`, told by `tell` (if any) within its unit of work `tx`, before the unit ends."""
    if tell is not None:
        tell(outcome, tx)
    return outcome

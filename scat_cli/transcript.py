"""Words for what happened: one sentence per event, a whole transcript, the news since a player's last move, outcomes.

Everything here is a pure function over events or the plain values of scat_core.service.values.
It prints exactly the cards the events it is given contain, so events redacted for a viewer
(hidden cards are `views.HIDDEN`) are described without leaking anything; a full history gives
a full transcript. Long runs of moves are told one line per hand, the detail left to `scat log`;
a hand's outcome and a finished game's result are worded here too.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

from scat_cli.render import local_text
from scat_core.domain import events as ev
from scat_core.domain.shuffle import deal
from scat_core.domain.state import GameState
from scat_core.domain.views import HIDDEN, PublicSeat, PublicState, public_evolve, public_of

if TYPE_CHECKING:
    from scat_core.service.values import GameResult, HandOutcome


@dataclass
class PublicTable:
    """What anyone watching the table knows, followed event by event (the rules: `domain.public`)."""

    now: PublicState = field(default_factory=PublicState)

    @classmethod
    def of(cls, state: GameState) -> PublicTable:
        """The public part of a game state."""
        return cls(public_of(state))

    @property
    def seats(self) -> tuple[PublicSeat, ...]:
        """The players in seat order, with their pennies and whether they are out."""
        return self.now.seats

    @property
    def kitty(self) -> int:
        """The pennies in the kitty (R24)."""
        return self.now.kitty

    @property
    def no_dole(self) -> bool:
        """Whether a player is out with his last penny (R25 option)."""
        return self.now.no_dole

    @property
    def rules_version(self) -> int:
        """The rules version of the game (R26 differs between versions)."""
        return self.now.rules_version

    def in_seat_order(self, names: Iterable[str]) -> list[str]:
        """`names` in the order the players sit (the order every list of players is told in)."""
        return self.now.in_seat_order(names)

    def seat(self, name: str) -> PublicSeat:
        """The seat of `name` (case-insensitive)."""
        return self.now.seat(name)

    def deal_order(self, dealer: str) -> list[str]:
        """Active players clockwise from the dealer's left, the order cards are dealt (R9)."""
        return self.now.deal_order(dealer)

    def apply(self, event: ev.Event) -> None:
        """Follow one (possibly redacted) event."""
        self.now = public_evolve(self.now, event)


#: What a signed move's line ends with: its MoveSigned (the key, the signature) is no line of its
#: own in the human views (`log`, `watch`, `show`, `play`, the text export); `--json` and the
#: exports' fields keep it, with its key id.
SIGNED_MARK = "✓ signed"


def marked(text: str, signed: bool) -> str:
    """`text`, with the signed mark when the move it tells was signed by its player."""
    return f"{text}  {SIGNED_MARK}" if signed else text


def quiet(events: Iterable[ev.Event]) -> Iterable[tuple[ev.Event, bool]]:
    """Each event but the MoveSigned ones, with whether a MoveSigned came just before it (its move
    was signed by its player). A MoveSigned changes no public table (`views.PUBLIC_TYPES`)."""
    signed = False
    for event in events:
        if isinstance(event, ev.MoveSigned):
            signed = True
            continue
        yield event, signed
        signed = False


def _be(name: str) -> str:
    """"is", or "are" after a player called "you" ("you are out of the game")."""
    return "are" if name.casefold() == "you" else "is"


def cards_text(cards: Iterable[str]) -> str:
    """Cards separated by spaces, hidden ones left out."""
    return " ".join(card for card in cards if card != HIDDEN)


def deal_text(event: ev.HandDealt, table: PublicTable) -> str:
    """Who was dealt what (as far as the event shows) and the first discard (R9, R10)."""
    order = table.deal_order(event.dealer)
    laid = deal(event.deck, len(order))
    shown = [f"{name} {cards_text(cards)}" for name, cards in zip(order, laid.hands, strict=True) if cards_text(cards)]
    dealt = f": {', '.join(shown)}" if shown else ""
    stacked = " (stacked deck)" if event.stacked else ""
    top = f"; the discard pile starts with {laid.discard}" if laid.discard != HIDDEN else ""
    return f"{event.dealer} dealt hand {event.hand_number}{stacked}{dealt}{top}"


def describe(event: ev.Event, table: PublicTable) -> str:
    """One sentence for `event`; `table` is the public table just before it."""
    match event:
        case ev.GameCreated():
            players = ", ".join(p.name + (" (bot)" if p.is_bot else "") for p in event.players)
            options = "; ".join(event.options.describe()) or "standard rules"
            drawn = " (drawn by lot)" if event.dealer_drawn else ""
            protected = ("; each move signed by its player's key" if event.signed_moves
                         else "; protected by player tokens" if event.protected else "")
            return f"game {event.game_id} created for {players}; dealer {event.dealer}{drawn}; {options}{protected}"
        case ev.HandDealt():
            return deal_text(event, table)
        case ev.HandViewed():
            return f"{event.player} looked at the hand dealt to {event.player}"
        case ev.MoveSigned():  # the human views mark the move instead (`quiet`); --json keeps the key id
            return f"{event.player} signed the move that follows"
        case ev.StockReshuffled():
            return (f"the stock ran out: the discard pile, all but its top card, was shuffled into a new "
                    f"stock of {len(event.stock)} cards")
        case ev.CardDrawn():
            card = "" if event.card == HIDDEN else f" {event.card}"
            where = "the stock" if event.source == "stock" else "the discard pile"
            return f"{event.player} drew{card} from {where}"
        case ev.CardDiscarded():
            return f"{event.player} discarded {event.card}"
        case ev.Knocked():
            return f"{event.player} knocked"
        case ev.ThirtyOneDeclared():
            return f"{event.player} declared 31 with {cards_text(event.hand)}"
        case ev.ThrowDownCalled():
            return f"{event.player} called a throw down"
        case ev.StockRanOut():
            return "the third stock ran out: the hand is dead and ends in a showdown (R17b)"
        case ev.ShowdownHeld():
            return _showdown_text(event, table)
        case ev.PennyPaid():
            left = table.seat(event.player).pennies - 1
            dole = f"{left} left" if left else "none left" if table.no_dole else "none left: on the dole"
            return f"{event.player} paid a penny into the kitty ({dole}; kitty {table.kitty + 1})"
        case ev.PlayerEliminated():
            return f"{event.player} {_be(event.player)} out of the game"
        case ev.Resigned() if event.cause == "move time":
            by = f"on {event.claimed_by}'s claim" if event.claimed_by else "on scat's own claim"
            return f"{event.player} ran out of move time and {_be(event.player)} out of the game {by} (R28)"
        case ev.Resigned():
            return f"{event.player} resigned and {_be(event.player)} out of the game (R27)"
        case ev.GameWon():
            if table.rules_version >= 2:
                total = table.seat(event.winner).pennies + event.kitty
                return (f"{event.winner} won the game with {total} {'penny' if total == 1 else 'pennies'}, "
                        f"the kitty of {event.kitty} included (R26); the seed was {event.seed}")
            return f"{event.winner} won the game and the kitty of {event.kitty}; the seed was {event.seed}"
        case ev.MessageSaid():
            return f"{event.player} said: {event.text}"
        case ev.SeatAccepted():
            return f"{event.player} accepted a seat in the game (R28)"
        case ev.SeatTaken():
            return f"{event.player} took an open seat (seat {len(table.seats) + 1})"
        case ev.GameCancelled():
            why = {"declined": f"{event.by} declined a seat", "withdrawn": f"{event.by}, who created it, withdrew it",
                   "expired": "its invitations were not all answered in time"}[event.reason]
            return f"the game was cancelled before its first deal: {why}; the seed was {event.seed}"
        case ev.GameAbandoned():
            by = f"by {event.by}" if event.by else "by the owner of the database"
            return f"the game was abandoned {by}, without a winner; the seed was {event.seed}"
        case _:
            assert_never(event)


def _showdown_text(event: ev.ShowdownHeld, table: PublicTable) -> str:
    hands = ", ".join(
        f"{name} {event.values[name]} ({cards_text(event.hands[name])})" for name in table.in_seat_order(event.hands)
    )
    lost = ", ".join(
        f"{name} {event.lives_lost[name]} {'life' if event.lives_lost[name] == 1 else 'lives'}"
        for name in table.in_seat_order(event.lives_lost)
    )
    called = f"called by {event.caller}" if event.caller else "of the dead hand"
    return f"showdown {called}: {hands}; lost: {lost or 'nothing'}"


def narrate(events: Iterable[ev.Event], table: PublicTable) -> list[str]:
    """Sentences for `events`, a draw and the discard after it told as one turn, a signed move
    marked (`SIGNED_MARK`) rather than told in a line of its own.

    `table` is the public table before the first event; it is moved along.
    """
    lines: list[str] = []
    pending: tuple[ev.CardDrawn, bool] | None = None
    for event, signed in quiet(events):
        if pending is not None and isinstance(event, ev.CardDiscarded) and event.player == pending[0].player:
            lines.append(marked(f"{describe(pending[0], table)} and discarded {event.card}", pending[1] or signed))
            pending = None
            table.apply(event)
            continue
        if pending is not None:
            lines.append(marked(describe(pending[0], table), pending[1]))
            pending = None
        if isinstance(event, ev.CardDrawn):
            pending = (event, signed)
        else:
            lines.append(marked(describe(event, table), signed))
        table.apply(event)
    if pending is not None:
        lines.append(marked(describe(pending[0], table), pending[1]))
    return lines


def _header(records: Sequence[Mapping[str, Any]], events: Sequence[ev.Event]) -> list[str]:
    created = events[0]
    assert isinstance(created, ev.GameCreated)
    won = ev.ending_of(events)
    players = ", ".join(p.name + (" (bot)" if p.is_bot else "") for p in created.players)
    tags = [
        ("Event", "Scat (Thirty-One)"),
        ("Game", created.game_id),
        ("Date", local_text(str(records[0]["recorded_at"]))),
        ("Players", players),
        ("Options", "; ".join(created.options.describe()) or "standard rules"),
        ("Rules", f"version {created.rules_version}"),
        ("Dealer", created.dealer + (" (drawn by lot)" if created.dealer_drawn else "")),
        ("Shuffle", created.shuffle),
        ("SeedCommitment", created.seed_commitment),
        ("Seed", won.seed if won else "secret until the game ends"),
        ("Events", str(len(events))),
        ("LastHash", str(records[-1]["hash"])),
        ("Result", _result(won)),
    ]
    return [f'[{name} "{value}"]' for name, value in tags]


def transcript(records: Sequence[Mapping[str, Any]]) -> str:
    """A readable transcript of a whole game, hand by hand, with a PGN-like header; a signed
    move is marked on its line (the key and signature are the json and jsonl exports' fields)."""
    events = [ev.from_record(r["type"], r["schema_version"], dict(r["data"])) for r in records]
    lines = _header(records, events)
    table = PublicTable()
    table.apply(events[0])
    turn = 0
    body: list[str] = []
    told = list(quiet(events[1:]))
    for index, (event, signed) in enumerate(told):
        if isinstance(event, ev.HandDealt):
            body += ["", f"Hand {event.hand_number} (dealer {event.dealer})"]
            turn = 0
        if isinstance(event, ev.CardDiscarded) and index and isinstance(told[index - 1][0], ev.CardDrawn):
            table.apply(event)
            continue  # told with the draw
        if isinstance(event, ev.CardDrawn):
            turn += 1
            following = told[index + 1] if index + 1 < len(told) else None
            if following is not None and isinstance(following[0], ev.CardDiscarded):
                text, signed = narrate([event, following[0]], _copy(table))[0], signed or following[1]
            else:
                text = narrate([event], _copy(table))[0]
            body.append(f"  {turn}. {marked(text, signed)}")
        elif isinstance(event, ev.Knocked):
            turn += 1
            body.append(f"  {turn}. {marked(describe(event, table), signed)}")
        else:
            body.append(f"  {marked(describe(event, table), signed)}")
        table.apply(event)
    ended = ev.ending_of(events)
    return "\n".join([*lines, *body, "", f"Result: {_result(ended)}"]) + "\n"


def _result(ended: ev.GameWon | ev.GameAbandoned | ev.GameCancelled | None) -> str:
    """The transcript's result: who won and the kitty, abandoned, cancelled, or still running."""
    if isinstance(ended, ev.GameWon):
        return f"{ended.winner} wins (kitty {ended.kitty})"
    if isinstance(ended, ev.GameCancelled):
        return "cancelled before its first deal, no winner"
    return "abandoned, no winner" if ended is not None else "* (game in progress)"


def _copy(table: PublicTable) -> PublicTable:
    return PublicTable(table.now)  # the public state is immutable: sharing it is a copy


#: A finished hand told move by move when it took at most this many lines, else in one line.
DETAIL_LIMIT = 8
#: The hand under way: at most this many of its latest lines, the rest counted.
CURRENT_LIMIT = 12


def _lives(count: int) -> str:
    return f"{count} {'life' if count == 1 else 'lives'}"


def _seated(names: Sequence[str], order: Sequence[str]) -> list[str]:
    rank = {name: index for index, name in enumerate(order)}
    return sorted(names, key=lambda name: rank.get(name, len(rank)))


def outcome_text(hand: HandOutcome, order: Sequence[str], partial: bool = False) -> str:
    """One hand in one line: how it ended, the values shown, who lost what, who went out.

    `partial`: only the end of the hand is told (its turns are those since then).
    """
    parts = [f"{hand.turns} {'more ' if partial else ''}{'turn' if hand.turns == 1 else 'turns'}"]
    if hand.knocked_by:  # a 31 after a knock too: the knocker pays like the others (R21)
        parts.append(f"{hand.knocked_by} knocked")
    parts += [f"{name} resigned" for name in hand.resigned]
    parts += [f"{name} ran out of move time (R28)" for name in hand.out_of_time]
    if hand.ended_by == "declaration":
        parts.append(f"{hand.by} declared 31")
    elif hand.ended_by == "throw_down":
        parts.append(f"{hand.by} threw down")
    elif hand.ended_by == "dead_hand":
        parts.append("the third stock ran out: a dead hand (R17b)")
    elif hand.ended_by == "abandoned":
        parts.append(f"the game was abandoned by {hand.by or 'the owner of the database'}")
    if hand.ended_by in ("showdown", "dead_hand", "throw_down") and hand.values:
        shown = ", ".join(f"{name} {hand.values[name]}" for name in _seated(list(hand.values), order))
        parts.append(f"showdown {shown}")
    lost = [f"{name} {_lives(hand.lives_lost[name])}" for name in _seated(list(hand.lives_lost), order)]
    if hand.ended_by == "declaration" and hand.knocked_by in hand.lives_lost:
        at = _seated(list(hand.lives_lost), order).index(hand.knocked_by)
        lost[at] += " (the knocker too, R21)"
    if hand.ended_by in ("showdown", "dead_hand", "throw_down", "declaration"):
        parts.append("lost: " + (", ".join(lost) if lost else "nothing"))
    parts += [f"{name} out" for name in hand.out]
    if hand.ended_by is None:
        parts.append("still being played")
    return f"hand {hand.number} (dealer {hand.dealer}): " + "; ".join(parts)


def news_lines(events: Sequence[tuple[int, ev.Event]], before: GameState, game_id: str, scat: str) -> list[str]:
    """Sentences for `events` (already redacted), a long finished hand in one line, the rest in full.

    `before`: the state before the first event (for the public table and the hand under way).
    """
    from scat_core.service.values import hand_outcomes

    table = PublicTable.of(before)
    dealer = (before.name(before.dealer) or "") if before.dealer >= 0 else ""
    segments: list[list[tuple[int, ev.Event]]] = []
    for pair in events:
        if not segments or isinstance(pair[1], ev.HandDealt):
            segments.append([])
        segments[-1].append(pair)
    lines: list[str] = []
    for index, segment in enumerate(segments):
        outcomes = hand_outcomes(segment, before.hand_number, dealer)
        outcome = outcomes[0] if outcomes else None
        told = narrate([event for _, event in segment], table)
        order = [seat.name for seat in table.seats]  # seat order, known once the game is created
        last = index == len(segments) - 1
        if outcome is not None and outcome.ended_by is not None and len(told) > DETAIL_LIMIT:
            partial = not isinstance(segment[0][1], ev.HandDealt)
            lines.append(outcome_text(outcome, order, partial))  # the moves: `scat log`
        elif last and len(told) > CURRENT_LIMIT:
            skipped = len(told) - CURRENT_LIMIT + 2
            lines += [told[0], f"… {skipped} more moves (`{scat} log {game_id}` tells every one)",
                      *told[-(CURRENT_LIMIT - 2):]]
        else:
            lines += told
    return lines


def duration_text(seconds: int) -> str:
    """"45 seconds", "12 minutes", "3 hours 5 minutes", "2 days 4 hours"."""
    minutes, hours, days = seconds // 60, seconds // 3600, seconds // 86_400
    if days:
        return f"{days} day{'s' * (days != 1)} {hours % 24} hour{'s' * (hours % 24 != 1)}"
    if hours:
        return f"{hours} hour{'s' * (hours != 1)} {minutes % 60} minute{'s' * (minutes % 60 != 1)}"
    if minutes:
        return f"{minutes} minute{'s' * (minutes != 1)}"
    return f"{seconds} second{'s' * (seconds != 1)}"


def result_headline(result: GameResult) -> str:
    """The one line that says who won, with what (R26), after how many hands and how long."""
    if result.winner is None:
        won = "abandoned without a winner"
    elif result.rules_version >= 2:
        pennies = f"{result.winner_pennies} {'penny' if result.winner_pennies == 1 else 'pennies'}"
        won = f"{result.winner} won with {pennies}, the kitty of {result.kitty} included (R26)"
    else:
        won = f"{result.winner} won and took the kitty of {result.kitty}"
    hands = f"{result.hands_played} {'hand' if result.hands_played == 1 else 'hands'}"
    return f"Game over: {won}, after {hands} in {duration_text(result.duration_seconds)}."


def standings_rows(result: GameResult) -> list[list[str]]:
    """Place, player, pennies and how his game ended, the winner first."""
    rows = []
    for standing in result.standings:
        if standing.winner:
            note = "winner"
        elif standing.out_of_time:
            note = f"out of time in hand {standing.out_in_hand}"
        elif standing.resigned:
            note = f"resigned in hand {standing.out_in_hand}"
        else:
            note = f"out in hand {standing.out_in_hand}"
        label = standing.name + (" (bot)" if standing.is_bot else "")
        rows.append([f"{standing.place}.", label, str(standing.pennies), note])
    return rows


def hand_lines(result: GameResult) -> list[str]:
    """Every hand of the game, one line each."""
    return [outcome_text(hand, result.seats) for hand in result.hands]

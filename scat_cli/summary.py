"""Words for what happened: moves since a player's last one, hand outcomes, a finished game's result.

The facts come from scat_core.service.outcomes (plain values); the sentences are made here.
Long runs of moves are told one line per hand, the detail left to `scat log`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scat_core.domain import events as ev
    from scat_core.domain.state import GameState
    from scat_core.service.outcomes import GameResult, HandOutcome

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
    from scat_cli.transcript import PublicTable, narrate
    from scat_core.domain import events as ev
    from scat_core.service.outcomes import hand_outcomes

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

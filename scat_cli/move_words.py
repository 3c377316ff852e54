"""The CLI's words for each kind of move, in one table: the command that makes it, why the hints
offer it, and the keys of `play`'s screen that send it.

The moves offered are the domain's (`legal.legal_moves`, through the service's answers); this
table only names them. Every kind of player command has its row (tests/cli/test_move_words.py
checks it, and `words_of` raises for a kind without one), so a new move cannot be left unsaid.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scat_core.domain.commands import LegalMove, PlayerCommand


@dataclass(frozen=True)
class MoveKey:
    """One key of `play`'s screen for a kind of move: its label ({top}: the top of the discard pile;
    {card}: the card), why the hints offer that move ({top}; None: they do not offer it), and the
    arguments it sends, or the place (1 to 4) in the hand of the card it sends."""

    key: str
    label: str
    why: str | None
    arguments: tuple[str, ...] = ()
    place: int | None = None

    def sends(self, move: LegalMove, hand: list[str]) -> bool:
        """Whether this key makes `move` (its arguments, or the card at its place in `hand`)."""
        if self.place is not None:
            return len(hand) >= self.place and move.arguments == (hand[self.place - 1],)
        return move.arguments == self.arguments


@dataclass(frozen=True)
class MoveWords:
    """How the CLI says one kind of move: its command (`scat COMMAND GAME --as NAME ARGUMENTS`,
    then `options`), its keys, the hints' title when it is offered ({line}: its command line) and,
    for a move of many arguments (a card), the word the hints put for them, in one line."""

    command: str
    keys: tuple[MoveKey, ...]
    options: tuple[str, ...] = ()
    title: str | None = None
    many: str | None = None

    def key_for(self, move: LegalMove, hand: list[str]) -> MoveKey | None:
        """The key that sends `move` (None: no key does, a card not in the hand shown)."""
        return next((key for key in self.keys if key.sends(move, hand)), None)


_PLACES = tuple(MoveKey(str(place), "discard {card}", "{many} one of {cards}", place=place) for place in (1, 2, 3, 4))

#: Each kind of player command, by its verb (its class's; the table loads no command: `--help` stays
#: light), in the CLI's words.
MOVE_WORDS: dict[str, MoveWords] = {
    "view-hand": MoveWords("show", (MoveKey("l", "look at your hand (R23)",
                                         "look at your hand (then you may no longer throw down)"),),
                            options=("--look",)),
    "throw-down": MoveWords("throw-down", (MoveKey("t", "throw down, unseen (R23)",
                                                "show every hand at once, unseen (R23)"),)),
    "declare": MoveWords("declare", (MoveKey("e", "declare 31 (R21)", "everyone else loses a life (R21)"),),
                             title="You hold 31: run `{line}`"),
    "draw": MoveWords("draw", (MoveKey("s", "draw from the stock", "take the top card of the stock", ("stock",)),
                                 MoveKey("d", "take {top} from the discard pile", "take {top} from the discard pile",
                                     ("discard",)))),
    "knock": MoveWords("knock", (MoveKey("k", "knock", "keep your hand: the others get one more turn each"),)),
    "discard": MoveWords("discard", _PLACES, many="CARD"),
    "resign": MoveWords("resign", (MoveKey("r", "resign (R27)", None),)),  # asks first on the screen; no hint
}


def words_of(kind: type[PlayerCommand]) -> MoveWords:
    """The CLI's words for moves of `kind`; a kind without them is a bug, said aloud."""
    try:
        return MOVE_WORDS[kind.verb]
    except KeyError:
        raise LookupError(f"{kind.__name__} has no row in scat_cli/move_words.py: the CLI cannot offer it") from None


def keyed(key: str) -> tuple[type[PlayerCommand], MoveKey] | None:
    """The kind of move `key` makes on `play`'s screen and its row, or None for no move's key."""
    from scat_core.domain.commands import PLAYER_COMMANDS

    return next(((PLAYER_COMMANDS[verb], row) for verb, words in MOVE_WORDS.items() for row in words.keys
                 if row.key == key), None)

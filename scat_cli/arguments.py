"""The arguments and options the commands share: GAME, --as, --token, --json, their completion, cards as typed.

Command-line words are turned here into cards and draw sources (the notation of cli.md).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from scat_core.domain.cards import parse_card, parse_deck


def _complete_game(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
    """Shell completion of a game id (see scat_cli.completion; imported only when completing)."""
    from scat_cli.completion import complete_game

    return complete_game(ctx, incomplete)


def complete_card(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a card name (see scat_cli.completion; imported only when completing)."""
    from scat_cli.completion import complete_card as cards

    return cards(ctx, incomplete)


GameArg = Annotated[str, typer.Argument(
    metavar="GAME", help="The game id, or any unique start of it (see `scat games`).", show_default=False,
    autocompletion=_complete_game)]


AsName = Annotated[
    str, typer.Option("--as", metavar="NAME", help="The player acting.", show_default=False)
]


Look = Annotated[bool, typer.Option(
    "--look", help="In a throw-down game, turn your new hand up (recorded: then you may no longer throw down, "
                   "R23); without it a hand you have not looked at stays face down. Elsewhere it changes nothing.")]


AsViewer = Annotated[
    str | None,
    typer.Option("--as", metavar="NAME", help="See the game as this player (that player's own hand too).",
                 show_default=False),
]


def ask_token(value: str | None) -> str | None:
    """`--token -`: read the token from a prompt that does not echo it (or one line of stdin).

    A token given on the command line is visible to every user of the machine in `ps`;
    SCAT_TOKEN or `--token -` keep it out of the process list.
    """
    if value != "-":
        return value
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("token: ").strip() or None
    return sys.stdin.readline().strip() or None


_TOKEN_HELP = ("The token of the --as player, for a protected game{}. Prefer SCAT_TOKEN or `--token -` "
               "(asks for it): a token written on the command line shows in `ps` to other users.")


Token = Annotated[
    str | None,
    typer.Option("--token", envvar="SCAT_TOKEN", metavar="TOKEN", show_default=False,
                 help=_TOKEN_HELP.format("")),
]


ViewerToken = Annotated[
    str | None,
    typer.Option("--token", envvar="SCAT_TOKEN", metavar="TOKEN", show_default=False,
                 help=_TOKEN_HELP.format("; without --as none is needed, and one given is not used")),
]


Json = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of the human view.")]


class Source(StrEnum):
    """Where a card is drawn from (R12)."""

    stock = "stock"
    discard = "discard"


def card_argument(text: str) -> str:
    """One card as typed (AS, 10h, td, Q♦); BadInput (exit 2) when it is not a card."""
    return parse_card(text)


def deck_option(text: str | None) -> list[str] | None:
    """The 52 cards of a stacked deck, top first, separated by spaces or commas."""
    return None if text is None else parse_deck(text)

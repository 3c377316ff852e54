"""Each kind of move is said once by the CLI (scat_cli/presenter.py): its command, its hint, its key
on `play`'s screen and the completion of its arguments; a kind forgotten there fails here (and
aloud when offered), never silently.

The moves themselves are the domain's legal moves (tests/domain/test_legal.py); here only their words.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, get_args

import pytest
import typer

from scat_cli.app import app
from scat_cli.command_lines import COMMANDS
from scat_cli.presenter import MOVE_WORDS, words_of
from scat_cli.screen.keys import MOVE_KEYS, SEAT_KEYS, command_of_key
from scat_core.domain import commands as cmd
from scat_core.domain.cards import DECK
from scat_core.domain.commands import LegalMove, PlayerCommand
from tests.support.domain import command_space

#: Keys of `play`'s screen that are no move: say a line, quit.
OTHER_KEYS = {"m", "q"}


def built(command: str) -> Any:
    """The click command `scat COMMAND` runs (its Typer app built, as when it runs)."""
    return typer.main.get_command(typer.main.get_command(app).get_command(None, command).single())


def test_every_kind_of_player_command_has_its_cli_words() -> None:
    assert set(MOVE_WORDS) == {kind.verb for kind in get_args(PlayerCommand)}


def test_a_kind_of_move_without_cli_words_is_refused_aloud() -> None:
    @dataclass(frozen=True)
    class Juggle:
        player: str

    Juggle.verb = "juggle"  # type: ignore[attr-defined]
    with pytest.raises(LookupError, match="Juggle has no row"):
        words_of(Juggle)  # type: ignore[arg-type]


def test_each_kind_of_move_is_made_by_a_cli_command_taking_its_arguments_and_options() -> None:
    for kind in get_args(PlayerCommand):
        words = words_of(kind)
        assert words.command in COMMANDS, kind
        params = built(words.command).params
        options = {option for param in params for option in param.opts if option.startswith("-")}
        assert set(words.options) <= options, (kind, words.options)
        arguments = [param.name for param in params if not param.opts[0].startswith("-") and param.name != "game"]
        names = [part.name for part in fields(kind) if part.name != "player"]
        assert arguments == names, (kind, arguments)  # the command's words after GAME are the move's arguments


def test_every_argument_of_every_move_completes_in_the_shell() -> None:
    """Without a game to see (R12, R13: the completion of a game offers only its legal moves, see
    tests/cli/test_completion.py), each command completes every value its move's arguments can take."""
    for command in command_space("you"):
        move = LegalMove.of(command)
        if not move.arguments:
            continue
        click_command = built(words_of(move.kind).command)
        context = click_command.make_context(words_of(move.kind).command, [], resilient_parsing=True)
        names = [part.name for part in fields(move.kind) if part.name != "player"]
        for name, value in zip(names, move.arguments, strict=True):
            param = next(param for param in click_command.params if param.name == name)
            assert value in [item.value for item in param.shell_complete(context, "")], (command, name)


def test_each_move_has_one_key_on_plays_screen_that_sends_exactly_it() -> None:
    """A key for every move of the command space (a discard: the card's place in the hand shown)."""
    keys = [key.key for words in MOVE_WORDS.values() for key in words.keys]
    assert len(keys) == len(set(keys)) and not set(keys) & (set(SEAT_KEYS) | OTHER_KEYS)
    assert set(MOVE_KEYS) == set(keys) | set(SEAT_KEYS)
    hand = ["AS", "10H", "7C", "QD"]
    for command in command_space("you"):
        move = LegalMove.of(command)
        held = [move.card, *[card for card in DECK if card != move.card][:3]] if move.card else hand
        key = words_of(move.kind).key_for(move, held)
        assert key is not None, command
        assert command_of_key(key.key, "you", held) == command, (command, key)


def test_each_move_is_hinted_with_a_reason_but_a_resignation() -> None:
    """The hints of `show` offer every move but a resignation (R27), which `play` asks about first."""
    unhinted = {verb for verb, words in MOVE_WORDS.items() if any(key.why is None for key in words.keys)}
    assert unhinted == {cmd.Resign.verb}

"""`--help` reads plainly: click-style placeholders, summaries that fit (the new-user QA pass)."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.common import COMMANDS

EVERY_COMMAND = [*COMMANDS, "db", "db upgrade", "db check"]


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_help_has_no_typer_type_labels_nor_a_doubled_metavar(command: str) -> None:
    result = CliRunner().invoke(app, [*command.split(), "--help"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert not re.search(r"<(int|str|path|float|bool|int range|[a-z]+\|[a-z|]+)>", text), text
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and line.startswith("  "):
            # "GAME <str>", "stock|discard <stock|discard>": a parameter's name followed by its type again
            assert not re.fullmatch(r"<.*>", words[1]), line
            assert words[0] != words[1].strip("<>"), line


def test_new_help_names_the_values() -> None:
    text = CliRunner().invoke(app, ["new", "--help"]).stdout
    assert re.search(r"^  --seed INT\s", text, re.MULTILINE), text
    assert re.search(r"^  --lives N\s", text, re.MULTILINE), text


def test_draw_help_names_the_source_once() -> None:
    text = CliRunner().invoke(app, ["draw", "--help"]).stdout
    assert re.search(r"^  GAME\s{2,}The game id", text, re.MULTILINE), text
    assert re.search(r"^  stock\|discard\s{2,}Where to draw from", text, re.MULTILINE), text


@pytest.mark.parametrize("group", [[], ["db"], ["key"]])
def test_command_summaries_are_not_cut(group: list[str]) -> None:
    text = CliRunner().invoke(app, [*group, "--help"]).stdout
    listing = text[text.index("Commands:"):]
    assert "..." not in listing, listing

"""Every command teaches with an example, has its line in the README's list and its row in the command
reference (docs/commands.md), every option in that row; `--help` reads plainly.

The commands are read from the Typer app itself (groups and their sub-commands), so a new
command is checked here without being listed here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from scat_cli.app import app

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
#: Every command in full, one row each (the README keeps one line per command and links here).
COMMAND_REFERENCE = REPO / "docs" / "commands.md"
CONTRACT_COMMANDS = ["new", "games", "show", "draw", "discard", "knock", "declare", "throw-down", "resign", "log",
                     "replay", "audit", "export", "import", "db upgrade", "stats", "serve", "wait", "watch",
                     "play", "claim", "account register", "account show", "account rekey", "account keys",
                     "account add-key", "account revoke-key", "say", "accept", "decline", "join", "rematch", "status",
                     "ratings"]
#: Beyond the contract.
EXTRA_COMMANDS = ["rules", "db check", "key show", "key trust", "key forget", "config show", "config set",
                  "config unset", "version", "abandon", "account invite"]


def commands_of(group: Any, prefix: str = "") -> list[tuple[str, bool]]:
    """Each command of a click group as ("group sub", is_group), sub-commands of its groups included."""
    found = []
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        is_group = hasattr(command, "list_commands")
        found.append((f"{prefix}{name}", is_group))
        if is_group:
            found += commands_of(command, f"{prefix}{name} ")
    return found


APP_COMMANDS = commands_of(typer.main.get_command(app))
#: Every command a user runs ("db upgrade", not "db"), as the app declares them.
ALL_COMMANDS = [name for name, is_group in APP_COMMANDS if not is_group]
#: The commands and the groups, each of which has a --help.
EVERY_COMMAND = [name for name, _ in APP_COMMANDS]
#: The commands at the top level (what `scat --help` lists).
TOP_LEVEL = [name for name, _ in APP_COMMANDS if " " not in name]


def all_commands() -> list[str]:
    """Every command of the CLI, subcommands of groups as "group sub"."""
    return ALL_COMMANDS


def section(path: Path, heading: str) -> str:
    """The section of a Markdown file from its `## heading` line to the next `## ` heading."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n## {heading}\n")
    following = text.find("\n## ", start + 1)
    return text[start: following if following != -1 else None]


def command_reference() -> str:
    """The table of every command in full: docs/commands.md, "## Every command"."""
    return section(COMMAND_REFERENCE, "Every command")


def readme_command_list() -> str:
    """The README's one line per command: its "## Every command" section."""
    return section(README, "Every command")


def test_the_cli_has_exactly_the_contract_commands() -> None:
    assert sorted(all_commands()) == sorted(CONTRACT_COMMANDS + EXTRA_COMMANDS)


def test_the_commands_read_from_the_app_include_its_groups_sub_commands() -> None:
    assert {"db upgrade", "db check", "key show", "key trust"} <= set(ALL_COMMANDS)
    assert {"db", "key"} <= set(EVERY_COMMAND) - set(ALL_COMMANDS)


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = CliRunner().invoke(app, [*command.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert re.search(rf"Example: scat (--(db|server) \S+ )?{re.escape(command)}\b", result.stdout), result.stdout


def test_the_main_help_lists_every_command() -> None:
    listed = CliRunner().invoke(app, ["--help"]).stdout
    for command in TOP_LEVEL:
        assert re.search(rf"^  {re.escape(command)}\s", listed, re.MULTILINE), command


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_is_in_the_command_reference(command: str) -> None:
    assert f"| `scat {command}" in command_reference()


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_has_its_line_in_the_readme_command_list(command: str) -> None:
    # A list item of its own, or after another form of the same line ("`scat config show` / `scat config set`").
    line = rf"^- (`scat [^`]*` / )*`scat {re.escape(command)}[ `]"
    assert re.search(line, readme_command_list(), re.MULTILINE), command


def test_the_readme_command_list_names_every_command_and_group_of_the_command_table() -> None:
    from scat_cli.command_lines import COMMANDS, GROUPS

    listed = readme_command_list()
    assert not [name for name in [*COMMANDS, *GROUPS] if f"`scat {name}" not in listed]
    assert not [line for line in listed.splitlines()
                if line.startswith("- `scat ") and not any(f"`scat {command}" in line for command in ALL_COMMANDS)]


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_option_of_a_command_is_in_its_command_reference_row(command: str) -> None:
    rows = [line for line in command_reference().splitlines() if line.startswith(f"| `scat {command}")]
    result = CliRunner().invoke(app, [*command.split(), "--help"])
    spellings = re.findall(r"^\s+(?:(-\w), )?(--[a-z][\w-]*)", result.stdout, re.MULTILINE)
    documented = " ".join(rows)
    missing = [long for short, long in spellings
               if long not in {"--help", "--json", "--token", "--as"}
               and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", documented) for o in (short, long) if o)]
    assert not missing, rows


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


@pytest.mark.parametrize("group", [[], ["db"], ["key"], ["config"]])
def test_command_summaries_are_not_cut(group: list[str]) -> None:
    text = CliRunner().invoke(app, [*group, "--help"]).stdout
    listing = text[text.index("Commands:"):]
    assert "..." not in listing, listing

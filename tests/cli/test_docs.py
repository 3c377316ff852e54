"""Every command teaches with an example and is in the README's command reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.common import COMMANDS

README = Path(__file__).resolve().parents[2] / "README.md"
CONTRACT_COMMANDS = ["new", "games", "show", "draw", "discard", "knock", "declare", "throw-down", "resign", "claim",
                     "log", "replay", "audit", "export", "import", "db upgrade", "stats", "serve", "wait", "watch"]
EXTRA_COMMANDS = ["rules", "key show", "key trust"]  # beyond the contract


def all_commands() -> list[str]:
    """Every command of the CLI, subcommands of groups as "group sub"."""
    return [*COMMANDS, "db upgrade", "key show", "key trust"]


def command_reference() -> str:
    """The README's "## Command reference" section."""
    text = README.read_text(encoding="utf-8")
    start = text.index("## Command reference")
    following = text.find("\n## ", start + 1)
    return text[start: following if following != -1 else None]


def test_the_cli_has_exactly_the_contract_commands() -> None:
    assert sorted(all_commands()) == sorted(CONTRACT_COMMANDS + EXTRA_COMMANDS)


@pytest.mark.parametrize("command", CONTRACT_COMMANDS + EXTRA_COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = CliRunner().invoke(app, [*command.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert re.search(rf"Example: scat (--db \S+ )?{re.escape(command)}\b", result.stdout), result.stdout


def test_the_main_help_lists_every_command() -> None:
    listed = CliRunner().invoke(app, ["--help"]).stdout
    for command in COMMANDS:
        assert re.search(rf"^  {re.escape(command)}\s", listed, re.MULTILINE), command


@pytest.mark.parametrize("command", CONTRACT_COMMANDS + EXTRA_COMMANDS)
def test_every_command_is_in_the_readme_command_reference(command: str) -> None:
    assert f"| `scat {command}" in command_reference()


@pytest.mark.parametrize("command", [c for c in CONTRACT_COMMANDS if c != "db upgrade"])
def test_every_option_of_a_command_is_in_its_readme_row(command: str) -> None:
    rows = [line for line in command_reference().splitlines() if line.startswith(f"| `scat {command}")]
    result = CliRunner().invoke(app, [command, "--help"])
    spellings = re.findall(r"^\s+(?:(-\w), )?(--[a-z][\w-]*)", result.stdout, re.MULTILINE)
    documented = " ".join(rows)
    missing = [long for short, long in spellings
               if long not in {"--help", "--json", "--token", "--as"}
               and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", documented) for o in (short, long) if o)]
    assert not missing, rows

"""`scat rules`: the rules of Scat as this program plays them, numbered (R1 ...)."""

from __future__ import annotations

import re
from importlib import resources
from typing import Annotated

import typer

from scat_cli.common import Json, print_json
from scat_core.domain.errors import NotFound


def rules_text() -> str:
    """The rules document shipped with scat (rules.md: R1-R26, options, decisions)."""
    return resources.files("scat_cli").joinpath("rules.md").read_text(encoding="utf-8")


def rule_lines(text: str, number: str) -> list[str]:
    """The bullet of rule `number` (e.g. "R19") with its continuation lines and sub-rules."""
    wanted = number.strip().upper()
    if not wanted.startswith("R"):
        wanted = "R" + wanted
    found: list[str] = []
    taking = False
    for line in text.splitlines():
        starts = re.match(r"^\s*- \*\*(R\d+[a-z]?)\b", line)
        if starts:
            taking = starts.group(1).upper() == wanted or (
                taking and starts.group(1).upper().startswith(wanted) and line.startswith("  ")
            )
        elif not line.startswith("  ") or not line.strip():
            taking = False
        if taking:
            found.append(line)
    return found


def rules(
    rule: Annotated[
        str | None,
        typer.Argument(metavar="[RULE]", help="One rule to show, e.g. R19, R19a or 15b.", show_default=False),
    ] = None,
    as_json: Json = False,
) -> None:
    """Print the rules of Scat, or one rule by its number (the numbers errors cite).

    --json prints {"rules": TEXT}, or with RULE {"rule": "R19", "text": TEXT}.

    Example: scat rules R19
    """
    text = rules_text()
    if rule is None:
        if as_json:
            print_json({"rules": text.rstrip()})
        else:
            typer.echo(text.rstrip())
        return
    lines = rule_lines(text, rule)
    if not lines:
        raise NotFound(f"no rule {rule!r}: rules are numbered R1 to R26 (see `scat rules`)")
    if as_json:
        number = re.match(r"^\s*- \*\*(R\d+[a-z]?)", lines[0])
        print_json({"rule": number.group(1) if number else rule, "text": "\n".join(lines)})
        return
    typer.echo("\n".join(lines))

"""`scat rules`: the rules of Scat as this program plays them, numbered (R1 ...).

The rules ship as light Markdown (headings, `- ` bullets, **bold**, *italics*, `code`). On a
terminal they are shown with bold headings and emphasis; in a pipe as plain text with the
markers taken out; `--json` gives the Markdown source.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import re
from importlib import resources
from typing import Annotated

import typer

from scat_cli.render import print_json, stdout_is_terminal
from scat_cli.typer_glue import Json
from scat_core.domain.errors import BadInput

_INLINE = re.compile(r"\*\*(?P<bold>[^*]+)\*\*|`(?P<code>[^`]+)`|(?<![\w*])\*(?P<italic>[^*\s][^*]*)\*(?![\w*])")
_STYLES = {"bold": "bold", "code": "cyan", "italic": "italic"}
_RULE_START = re.compile(r"^\s*- \*\*(R\d+[a-z]?)\b")


def rules_text() -> str:
    """The rules document shipped with scat (Markdown: R1-R27, options, decisions, versions)."""
    return resources.files("scat_cli").joinpath("rules.md").read_text(encoding="utf-8")


def last_rule(text: str) -> str:
    """The number of the last rule in `text` (R28 in this version's rules)."""
    numbers = [int(found.group(1)[1:].rstrip("abcdefghijklmnopqrstuvwxyz"))
               for found in map(_RULE_START.match, text.splitlines()) if found]
    return f"R{max(numbers)}"


def rule_lines(text: str, number: str) -> list[str]:
    """The bullet of rule `number` (e.g. "R19") with its continuation lines and sub-rules."""
    wanted = number.strip().upper()
    if not wanted.startswith("R"):
        wanted = "R" + wanted
    found: list[str] = []
    taking = False
    for line in text.splitlines():
        starts = _RULE_START.match(line)
        if starts:
            taking = starts.group(1).upper() == wanted or (
                taking and starts.group(1).upper().startswith(wanted) and line.startswith("  ")
            )
        elif not line.startswith("  ") or not line.strip():
            taking = False
        if taking:
            found.append(line)
    return found


def _inline(text: str, terminal: bool) -> str:
    """Emphasis and code: rich markup on a terminal, the bare words otherwise."""
    return _markup(text.replace("[", "\\[") if terminal else text, terminal)


def _markup(text: str, terminal: bool) -> str:
    def replace(match: re.Match[str]) -> str:
        kind = match.lastgroup or "bold"
        words = match.group(kind) if kind == "code" else _markup(match.group(kind), terminal)  # `code` in **bold**
        return f"[{_STYLES[kind]}]{words}[/]" if terminal else words

    return _INLINE.sub(replace, text)


def render_lines(markdown: str, terminal: bool) -> list[str]:
    """The rules for reading: headings set apart, bullets as •, no Markdown markers left."""
    lines: list[str] = []
    for line in markdown.rstrip().splitlines():
        heading = re.match(r"^(#+)\s+(.*)$", line)
        if heading:
            level, title = len(heading.group(1)), _inline(heading.group(2), False)
            if terminal:
                lines.append(f"[bold underline]{title.upper() if level == 1 else title}[/]")
            else:
                lines += [title, ("=" if level == 1 else "-") * len(title)]
            continue
        bullet = re.match(r"^(\s*)- (.*)$", line)
        if bullet:
            line = f"{bullet.group(1)}• {bullet.group(2)}"
        lines.append(_inline(line, terminal))
    return lines


def _show(markdown: str) -> None:
    terminal = stdout_is_terminal()
    lines = render_lines(markdown, terminal)
    if not terminal:
        typer.echo("\n".join(lines))
        return
    from rich.console import Console

    console = Console(highlight=False, emoji=False, force_terminal=True)
    for line in lines:
        console.print(line, soft_wrap=True)


def rules(
    rule: Annotated[
        str | None,
        typer.Argument(metavar="[RULE]", help="One rule to show, e.g. R19, R19a or 15b.", show_default=False),
    ] = None,
    as_json: Json = False,
) -> None:
    """Print the rules of Scat, or one rule by its number.

    Rules are numbered R1 to R28: the numbers errors cite.

    On a terminal with bold headings and emphasis, plain text in a pipe. --json prints the
    Markdown source: {"rules": TEXT}, or with RULE {"rule": "R19", "text": TEXT}.

    Example: scat rules R19
    """
    text = rules_text()
    if rule is None:
        if as_json:
            print_json({"rules": text.rstrip()})
        else:
            _show(text)
        return
    lines = rule_lines(text, rule)
    if not lines:
        raise BadInput(f"no rule {rule!r}: rules are numbered R1 to {last_rule(text)} (see `scat rules`)")
    if as_json:
        number = _RULE_START.match(lines[0])
        print_json({"rule": number.group(1) if number else rule, "text": "\n".join(lines)})
        return
    _show("\n".join(lines))

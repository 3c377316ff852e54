"""The human view: rich tables and coloured suits on a terminal, plain text in a pipe.

On a terminal, output goes through `rich`: tables, bold, cards with their suit as a symbol
(red for hearts and diamonds). When stdout is a pipe or a file, the same lines are written
as plain text, cards in plain notation (AS, 10H), without ANSI codes and without importing
rich at all. Everything rendered comes from a view dict (`public_view`/`player_view`) or
from sentences built from redacted events, so it shows nothing the JSON output would not.
Times, as a person reads them, are the user's local time with its offset (`TZ`, else
`timezone` in config.toml, else the system's zone); JSON keeps the recorded UTC times (ISO
8601), only human output is turned here. Every answer is written here too (lines, JSON, one
clean line on failure), and no string from a history reaches a terminal raw: `terminal_safe`,
the one escaping function of human output, shows ESC, newlines and bidi overrides as visible
escapes (`\\x1b`, `\\n`, `\\u202e`) where a line is printed, so an imported name cannot recolour the
terminal or forge a `scat:` line.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, tzinfo
from functools import cache
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from scat_cli.command_lines import runnable
from scat_cli.settings import config_path, read_config, zone_problem
from scat_core.domain.cards import SUIT_SYMBOLS, SUITS
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from scat_core.service.values import Listing


# C0 controls, DEL and C1 controls; bidi embeddings, overrides, isolates and marks; line and
# paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def terminal_safe(text: str) -> str:
    """`text` with every control, bidi and line-breaking character shown as a visible escape."""
    return _UNSAFE.sub(_visible, text)


def escape_strings(value: Any) -> Any:
    """A copy of a JSON-like value with `terminal_safe` applied to every string in it."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, dict):
        return {terminal_safe(str(key)): escape_strings(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [escape_strings(item) for item in value]
    return value


def say(text: str, err: bool = False) -> None:
    """Print one human line (on stderr with `err`), escaped."""
    typer.echo(terminal_safe(text), err=err)


#: What JSON leaves raw with ensure_ascii=False but a terminal may obey: C1 controls and bidi.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_safe(document_text: str) -> str:
    """A JSON text with C1 and bidi characters written as \\uXXXX (the same JSON value)."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document_text)


def fail(error: ScatError) -> NoReturn:
    """Stop the command with one line on stderr and the error type's exit code (see scat_cli.errors)."""
    from scat_cli.errors import exit_code, wording

    say(f"scat: error: {runnable(wording(error))}", err=True)
    raise typer.Exit(exit_code(error))


def is_output_error(error: OSError) -> bool:
    """Whether writing to stdout failed (a full disk, a closed pipe), as opposed to any other OSError."""
    import errno

    return error.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG) and error.filename is None


def recorded(ctx: typer.Context, note: str) -> None:
    """Remember what this command has stored for good, told should its output then fail (see `output_failed`).

    `note` names the command to see it, e.g. "your move was recorded; see `scat show G --as you`".
    """
    ctx.meta["scat.recorded"] = note


def output_failed(error: OSError, ctx: typer.Context | None = None) -> NoReturn:
    """Stop with one line on stderr when the output cannot be written (exit 2): nothing more is tried on it.

    When the command had already stored its change (see `recorded`), the line says so; a read
    whose reader closed the pipe early stops quietly (exit 0).
    """
    import errno
    import os

    try:  # later flushes (at exit) go nowhere instead of failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    note = ctx.meta.get("scat.recorded") if ctx is not None else None
    if error.errno == errno.EPIPE and not note:
        raise typer.Exit(0)  # the reader stopped (`scat log G | head -1`): nothing went wrong here
    told = f"; {note}" if note else ""
    typer.echo(runnable(f"scat: error: cannot write the output: {error.strerror}{told}"), err=True)
    raise typer.Exit(2)


def failed_unexpectedly(error: Exception, ctx: typer.Context | None = None) -> NoReturn:
    """Stop with one line on stderr (exit 1) for a failure that is a defect of scat's, never a traceback
    (cli.md); with SCAT_DEBUG=1 in the environment the traceback is shown instead, for its report.

    A command writes all or nothing, its answer made before its write: the line says that nothing
    was written, unless the command had stored its change already (see `recorded`).
    """
    import os

    if os.environ.get("SCAT_DEBUG") == "1":
        raise error
    note = ctx.meta.get("scat.recorded") if ctx is not None else None
    what = str(error).splitlines()[0] if str(error) else ""
    told = note if note else "nothing was written"
    typer.echo(runnable(f"scat: error: scat failed unexpectedly ({type(error).__name__}{': ' if what else ''}{what}); "
                        f"{told}. This is a fault of scat's: SCAT_DEBUG=1 shows the details to report"), err=True)
    raise typer.Exit(1)


def print_json(document: Any) -> None:
    """Print one JSON document on stdout."""
    typer.echo(json_safe(json.dumps(document, indent=2, ensure_ascii=False)))


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colours and suit symbols) or a pipe/file (plain text)."""
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars)."""
    return sys.stderr.isatty()

CARD_RE = re.compile(rf"(?<![\w?])(10|[2-9JQKA])([{''.join(SUITS)}])(?![\w?])")
_RED = {"D", "H"}


def _escape(text: str) -> str:
    return text.replace("[", "\\[")


def _colour_card(match: re.Match[str]) -> str:
    rank, suit = match.groups()
    return f"[{'bold red' if suit in _RED else 'bold'}]{rank}{SUIT_SYMBOLS[suit]}[/]"


class Out:
    """One invocation's output: markup for rich on a terminal, plain text otherwise."""

    def __init__(self) -> None:
        self.terminal = stdout_is_terminal()
        self._console: Any = None

    def text(self, text: str) -> str:
        """`text` ready to print (control characters escaped), its cards coloured on a terminal."""
        text = terminal_safe(text)
        return CARD_RE.sub(_colour_card, _escape(text)) if self.terminal else text

    def typeable(self, text: str) -> str:
        """`text` whose cards the user may have to type: `KC (K♣)` on a terminal, `KC` otherwise."""
        if not self.terminal:
            return text
        return CARD_RE.sub(lambda match: f"{match.group(0)} ({_colour_card(match)})", _escape(text))

    def style(self, text: str, style: str) -> str:
        """`text` in a rich style on a terminal (bold, dim, bold red ...), as is otherwise."""
        return f"[{style}]{self.text(text)}[/]" if self.terminal else text

    def line(self, *parts: str) -> None:
        """Print parts already passed through `text`/`style`, as one line."""
        line = terminal_safe("".join(parts))  # markup has no control characters: only data is escaped
        if self.terminal:
            self.console().print(line, soft_wrap=True)
        else:
            typer.echo(line)

    def table(self, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        """A table: rich on a terminal, columns aligned with spaces otherwise."""
        rows = [[terminal_safe(str(cell)) for cell in row] for row in rows]
        if self.terminal:
            from rich import box
            from rich.table import Table

            table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
            for column in columns:
                table.add_column(column)
            for row in rows:
                table.add_row(*row)
            self.console().print(table)
            return
        widths = [max(len(str(cell)) for cell in column) for column in zip(columns, *rows, strict=True)]
        for row in (columns, *rows):
            typer.echo("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())

    def console(self) -> Any:
        """The rich console (terminal only)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(highlight=False, emoji=False, force_terminal=True)
        return self._console


def ago(moment: str, now: datetime | None = None) -> str:
    """A stored ISO time as "just now", "2 minutes ago", "3 days ago"."""
    try:
        then = datetime.strptime(moment.rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return moment
    seconds = int(((now or datetime.now(UTC)) - then).total_seconds())
    if seconds < 10:
        return "just now"
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60), ("second", 1)):
        if seconds >= size:
            count = seconds // size
            if unit == "day" and count > 60:
                return f"on {local(then):%Y-%m-%d}"
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def time_left(seconds: int) -> str:
    """Seconds left as its two largest units: `1d11h`, `59m59s`, `30s`."""
    from scat_core.domain.options import format_duration

    return "".join(re.findall(r"\d+[dhms]", format_duration(seconds))[:2])


def deadline_text(moment: str) -> str:
    """A recorded time as the user's local time with its offset: `2026-12-02 11:33:20 +01:00`."""
    return local_text(moment)


def move_time_line(game_id: str, turn: str | None, you: str | None, deadline: str | None, left: int | None) -> None:
    """What the move time (R28) means now: to the player to act, how long he has; to the others,
    how long is left; once out, since when, and that any other player may `scat claim`."""
    if turn is None or deadline is None or left is None:
        return
    out, since = Out(), deadline_text(deadline)
    if left > 0:
        who = "You have" if turn == you else f"{turn} has"
        text = f"{who} {time_left(left)} left to move (until {since}, R28)."
        out.line(out.style(text, "bold") if turn == you else out.text(text))
        return
    who = "You are" if turn == you else f"{turn} is"
    claim = f"`scat claim {game_id}" + (f" --as {you}`" if you and you != turn else "`")
    out.line(out.style(runnable(f"{who} out of time since {since} (R28): any other player may {claim}."),
                       "bold yellow"))


def print_lines(lines: Iterable[str], prefix: str = "") -> None:
    """Sentences, one per line, cards coloured on a terminal."""
    out = Out()
    for line in lines:
        out.line(out.text(prefix + line))


def plain(text: str) -> None:
    """One line of text, cards coloured on a terminal."""
    out = Out()
    out.line(out.text(text))


def _player_notes(view: dict[str, Any], player: dict[str, Any]) -> list[str]:
    name, finished = player["name"], view["status"] == "finished"
    notes = []
    if name == view["turn"]:
        notes.append(f"to {view['phase']}")
    if name == view["knocked_by"]:
        notes.append("knocked")
    if player.get("out_reason") == "out_of_time":
        notes.append("out of time (R28)")
    elif player.get("resigned"):
        notes.append("resigned")
    elif player["out"]:
        notes.append("out")
    elif player["on_dole"]:
        notes.append("on the dole")
    if name == view["dealer"] and not finished:
        notes.append("dealer")
    if name == view.get("winner"):
        notes.append("winner")
    return notes


def chosen_chance_note(seed_chosen: bool | None, first_deck_stacked: bool | None) -> str:
    """#14 item 4: a warning that the creator chose the deal, or "" when chance was fair."""
    if seed_chosen and first_deck_stacked:
        return ("Warning: created with a chosen seed and deck (--seed, --deck): "
                "its creator can know every hand and the stock.")
    if seed_chosen:
        return "Warning: created with a chosen seed (--seed): its creator can know every hand and the stock."
    if first_deck_stacked:
        return "Warning: hand 1 was dealt from a deck chosen at creation (--deck): its creator knows every hand of it."
    return ""


def result(view: dict[str, Any], headline: str, standings: Sequence[Sequence[str]], hands: Sequence[str]) -> None:
    """A finished game: who won (said once), the standings, every hand, the seed."""
    out = Out()
    out.line(out.style(headline, "bold green"))
    out.table(["", "player", "pennies", ""], standings)
    out.line(out.style("Hands:", "bold"))
    for line in hands:
        out.line("  ", out.text(line))
    out.line(out.text(runnable(f"Seed: {view.get('seed')} (check every deal with `scat audit {view['game_id']}`)")))


def view_table(view: dict[str, Any], finished_result: tuple[str, Sequence[Sequence[str]], Sequence[str]] | None = None,
               ) -> None:
    """The table of a game: players, pennies, turn, piles, the viewer's hand, the result.

    `finished_result`: (headline, standings rows, hand lines) of a finished game, shown instead
    of the seat table.
    """
    out = Out()
    you = view.get("you")
    finished = view["status"] == "finished"
    undealt = not finished and (view.get("stage") == "new" or not view.get("hand_number"))  # as created (replay)
    status = ("finished" if finished else "cancelled before its first deal" if view["status"] == "cancelled"
              else "waiting for its players" if view["status"] == "pending"
              else "before the first deal" if undealt else f"hand {view['hand_number']}")
    who = f" · you are {out.style(you, 'bold')}" if you else ""
    from scat_core.domain.events import RULES_VERSION  # loaded with the view's state already

    older = view.get("rules_version", RULES_VERSION) != RULES_VERSION  # a game of older rules says so
    version = f" · rules version {view['rules_version']}" if older else ""
    out.line(out.style(f"Game {view['game_id']}", "bold"), f" · {status} · dealer {view['dealer']}{version}", who)
    note = chosen_chance_note(view.get("seed_chosen"), view.get("first_deck_stacked"))
    if note:
        out.line(out.style(note, "bold yellow"))
    if finished and finished_result is not None:
        result(view, *finished_result)
        return
    rows = []
    for player in view["players"]:
        name = player["name"]
        # "(you)" only where it says something: not after "you", nor after "(bot)" (the title names you)
        label = name + (" (bot)" if player["is_bot"] else " (you)" if name == you and name != "you" else "")
        rows.append([
            "▶" if name == view["turn"] else "",
            str(player["seat"]),  # counted from 1, as in the JSON
            out.style(label, "bold") if name == you else out.text(label),
            f"{'●' * player['pennies']} {player['pennies']}".strip(),
            "-" if player["out"] else str(player["cards"]),
            ", ".join(_player_notes(view, player)),
        ])
    out.table(["", "seat", "player", "pennies", "cards", ""], rows)
    if view["status"] == "pending":  # R28: dealt once every seat is taken and accepted
        out.line(out.style(f"Not dealt yet: {waiting_text(view['awaiting'], view['open_seats'])} (R28).", "bold"))
        return
    if view["status"] == "cancelled":
        out.line("Never dealt: the game was cancelled.")
        return
    if undealt:
        out.line("No cards dealt yet: the dealer deals with the next event.")
        return
    if not finished:
        top = view["discard_top"] or "-"
        left = view.get("draws_before_dead_hand")
        dead = f" ({left} {'draw' if left == 1 else 'draws'} before a dead hand, R17b)" if left is not None else ""
        out.line(out.text(f"Discard pile: {top}    Stock: {view['stock_count']} cards{dead}    Kitty: {view['kitty']}"))
        viewer = next((player for player in view["players"] if player["name"] == you), None)
        if viewer is not None and viewer["out"]:
            left = {"resigned": "You resigned: you are out of the game.",
                    "out_of_time": "You ran out of move time (R28): you are out of the game."}.get(
                viewer.get("out_reason") or "", "You are out of the game.")
            out.line(out.style(left, "bold"))
        elif view.get("hand"):
            out.line("Your hand: ", out.style(" ".join(view["hand"]), "bold"), f"   (worth {view.get('hand_value')})")
        elif view.get("hand_hidden"):
            out.line("Your hand: ", out.style("face down (you have not looked at it: --look turns it up, and then "
                                              "you may no longer throw down, R23)", "dim"))
        revealed, values = view.get("revealed") or {}, view.get("revealed_values") or {}
        if revealed:
            seated = [p["name"] for p in view["players"] if p["name"] in revealed]  # in seat order
            shown = ", ".join(f"{name} {' '.join(revealed[name])} ({values.get(name, '?')})" for name in seated)
            out.line(out.text(f"Last hand shown: {shown}"))
        return
    if view.get("rules_version", 1) >= 2:  # R26: the winner's final pennies include the kitty
        pennies = next(p["pennies"] for p in view["players"] if p["name"] == view["winner"])
        out.line(out.style(f"Game over: {view['winner']} won with {pennies} pennies, the kitty included.",
                           "bold green"))
    else:
        out.line(out.style(f"Game over: {view['winner']} won the kitty of {view['kitty']} pennies.", "bold green"))
    hands = view.get("hands") or {}
    shown = ", ".join(f"{name} {' '.join(cards)}" for name, cards in hands.items() if cards)
    if shown:
        out.line(out.text(f"Final hands: {shown}"))
    out.line(out.text(runnable(f"Seed: {view.get('seed')} (check every deal with `scat audit {view['game_id']}`)")))


def hints(lines: Sequence[tuple[str, str]], title: str | None = None) -> None:
    """What the player may do next: a title and (command, explanation) pairs."""
    out = Out()
    if title:
        out.line(out.style(title, "bold yellow" if "31" in title else "bold"))
    width = max((len(command) for command, _ in lines), default=0)
    for command, why in lines:  # commands exactly as typed; cards in the reasons typeable too
        typed = f"[bold cyan]{_escape(command)}[/]" if out.terminal else command
        out.line("  ", typed, " " * (width - len(command) + 3), out.typeable(why))


def games_table(rows: Sequence[Listing], filtered: bool = False, lobby: bool = False) -> None:
    """The games list: id, players (bots starred), turn, hand, status, last activity.

    `filtered`: the rows are those matching --status/--waiting-for (none: "No games match").
    A read-only row (running, imported without its seed) waits for nobody; a seed or first
    deck chosen at creation says "(chosen seed)" in the status.
    """
    out = Out()
    if lobby:
        _lobby(out, rows)
        return
    if not rows and filtered:
        out.line(runnable("No games match. `scat games` lists them all."))
        return
    if not rows:
        out.line(runnable("No games yet. Start one: `scat new --player you --bot ann --bot bob`"))
        return
    table = []
    timed = any(row.move_deadline is not None for row in rows)
    for row in rows:
        players = ", ".join(name + ("*" if name in row.bots else "") for name in row.players)
        imported = row.read_only
        status = (f"won by {row.winner}" if row.status == "finished" and row.winner
                  else "abandoned" if row.status == "finished" else "cancelled" if row.status == "cancelled"
                  else waiting_text(row.awaiting, row.open_seats) if row.status == "pending"
                  else "active (imported, read-only)" if imported else "active")
        chosen = (row.seed_chosen, row.first_deck_stacked)
        if chosen != (False, False):
            status += " (chosen " + " and ".join(
                kind for kind, flag in zip(("seed", "deck"), chosen, strict=True) if flag) + ")"
        cells = [out.text(row.game_id), out.text(players), out.text("-" if imported else row.turn or "-"),
                 str(row.hand_number), status, ago(row.last_activity)]
        if timed:
            cells.insert(3, _left_cell(row.move_time_left))
        table.append(cells)
    columns = ["game", "players", "turn", "hand", "status", "last activity"]
    out.table(columns[:3] + ["time left"] + columns[3:] if timed else columns, table)
    if any(row.bots for row in rows):
        out.line(out.style("* bot", "dim"))
    late = [row for row in rows if row.move_time_left == 0]
    if late:
        games = ", ".join(row.game_id for row in late[:3]) + (" ..." if len(late) > 3 else "")
        claim = f"`scat claim {late[0].game_id}`" if len(late) == 1 else "`scat claim GAME`"
        out.line(out.style(runnable(f"Out of time (R28) in {games}: any other player may {claim}."),
                           "bold yellow"))


def waiting_text(awaiting: Sequence[str], open_seats: int) -> str:
    """Who a pending game waits for: "waiting for bob, cy and 1 open seat" (R28)."""
    parts = [", ".join(awaiting)] if awaiting else []
    if open_seats:
        parts.append(f"{open_seats} open seat{'s' if open_seats > 1 else ''}")
    return "waiting for " + " and ".join(parts)


def _lobby(out: Out, rows: Sequence[Listing]) -> None:
    """`scat games --open`: the games with a seat any account may take, its options and who sits."""
    if not rows:
        out.line(runnable("No game has an open seat now. Make one: `scat new --player you --open 1` (on a server)."))
        return
    def sitting(row: Listing) -> str:
        return ", ".join(name + ("*" if name in row.bots else "")
                         + (f" ({row.ratings[name]:.1f})" if name in row.ratings else "") for name in row.players)

    table = [[out.text(row.game_id), out.text(sitting(row)),
              str(row.open_seats), out.text("; ".join(row.options) or "standard rules"), ago(row.created_at)]
             for row in rows]
    out.table(["game", "who sits (rating)", "open", "options", "made"], table)
    if any(row.bots for row in rows):
        out.line(out.style("* bot", "dim"))
    out.line(runnable(f"Take a seat: `scat join {rows[0].game_id}`."))


def _left_cell(left: int | None) -> str:
    """The games table's time left (R28): `1d11h`, `out of time`, or `-` without a move time."""
    return "-" if left is None else "out of time" if left == 0 else time_left(left)


def tokens(tokens_by_name: dict[str, str]) -> None:
    """The tokens of a protected game, with the warning that they are shown only once."""
    out = Out()
    out.line(out.style("Player tokens, shown only this once (only their hashes are stored): "
                       "give each player that player's own and keep them secret.", "bold yellow"))
    for name, token in tokens_by_name.items():
        out.line(f"  {name}: {token}")
    out.line("A player gives the token with --token TOKEN or the SCAT_TOKEN environment variable.")


@contextmanager
def progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A callback the service tells (games done, games in all), drawing a progress bar on stderr
    when stderr is a terminal and there are two games or more; None otherwise."""
    if not stderr_is_terminal():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, TaskID

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task: list[TaskID] = []

        def told(done: int, total: int) -> None:
            if total < 2:
                return
            if not task:
                task.append(bar.add_task(label, total=total))
            bar.update(task[0], completed=done)

        yield told


def zone() -> tzinfo | None:
    """The zone times are shown in: `TZ` (an IANA name), else config.toml's `timezone`, else None (the
    system's local zone). A zone that cannot be used falls back to the next (a `TZ` that is not an
    IANA name is left to the system, as other programs leave it). Worked out once per setting."""
    path = config_path()
    try:
        changed = path.stat().st_mtime_ns
    except OSError:
        changed = 0
    return _zone(os.environ.get("TZ", "").lstrip(":"), str(path), changed)


@cache
def _zone(environment: str, path: str, changed: int) -> tzinfo | None:
    from zoneinfo import ZoneInfo

    for name in (environment, _configured(path) if changed else ""):
        if name and zone_problem(name) is None:
            return ZoneInfo(name.strip())
    return None


def _configured(path: str) -> str:
    from pathlib import Path

    from scat_core.domain.errors import BadInput

    try:
        return read_config(Path(path)).get("timezone", "")
    except BadInput:  # the command itself says what is wrong with the file
        return ""


def local(moment: datetime) -> datetime:
    """`moment` (aware) in the zone times are shown in."""
    return moment.astimezone(zone())


def local_text(recorded: str, seconds: bool = True) -> str:
    """A recorded UTC time (`2026-12-05T07:46:19.123456Z`) as local time with its offset,
    `2026-12-05 08:46:19 +01:00`; the text itself when it is no such time."""
    try:
        moment = datetime.strptime(recorded.rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return recorded
    shown = local(moment)
    offset = shown.strftime("%z")
    return f"{shown:%Y-%m-%d %H:%M{':%S' if seconds else ''}} {offset[:3]}:{offset[3:]}"

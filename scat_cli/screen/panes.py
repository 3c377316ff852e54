"""The words of the play screen, from a `Shown`: the table, the moves since your last, the title.

Each is what `scat show --as NAME` prints, made by the same pieces (render.view_table,
presenter.news_block, presenter.next_steps) and captured as plain text: the screen says exactly
what the command says, and colours its cards itself (see `coloured`).
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import TYPE_CHECKING

from scat_cli import render
from scat_cli.presenter import finished_parts, news_block, next_steps, read_only_note, viewer_view

if TYPE_CHECKING:
    import typer
    from rich.text import Text

    from scat_core.service.values import Shown


def captured(draw: Callable[[], None]) -> str:
    """What `draw` prints through scat_cli.render, as plain text (stdout is not a terminal within)."""
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        draw()
    return buffer.getvalue().rstrip("\n")


def table_text(shown: Shown) -> str:
    """The table as `scat show --as` prints it: seats, pennies, cards, dealer, turn, piles, your hand; or the result."""
    view = viewer_view(shown.state, shown.viewer)
    return captured(lambda: render.view_table(view, finished_parts(shown.result)))


def clock_text(shown: Shown, left: int) -> str:
    """The move time line of `scat show` (R28): how long the player to act has `left`, or that he is out of time."""
    view = viewer_view(shown.state, shown.viewer)
    you = str(view["you"]) if view.get("you") else shown.viewer
    return captured(lambda: render.move_time_line(shown.game_id, view["turn"], you, shown.move_deadline, left))


def news_text(ctx: typer.Context, shown: Shown) -> str:
    """The moves since the viewer's last one, as `scat show --as` tells them ("" when none, or once over)."""
    news = shown.news
    if news is None or shown.result is not None:
        return ""
    title = "Since your last move:" if len(news.events) < news.state.version - 1 else "So far:"
    return captured(lambda: news_block(ctx, shown.game_id, news.events, news.before, title))


def talk_text(shown: Shown) -> str:
    """The last messages said at the table, as `scat show` tells them ("" when none)."""
    from scat_cli.presenter import messages_block

    return captured(lambda: messages_block(shown.messages)) if shown.messages else ""


def title_text(ctx: typer.Context, shown: Shown) -> str:
    """Whose turn it is ("Your turn.", "Waiting for ann.", "You hold 31 ..."), as the hints of `scat show` say."""
    if shown.read_only:
        return read_only_note(shown.game_id)
    if shown.viewer is None:
        return ""
    return next_steps(ctx, shown.state, shown.viewer, shown.moves, shown.read_only)[0]


def coloured(text: str, colour: bool = True) -> Text:
    """`text` as rich Text, its cards bold (hearts and diamonds red too, unless `colour` is off)."""
    from rich.text import Text

    rich_text = Text(text)
    for match in render.CARD_RE.finditer(text):
        red = colour and match.group(2) in ("H", "D")
        rich_text.stylize("bold red" if red else "bold", match.start(), match.end())
    return rich_text

"""`scat stats`: figures per player and overall, from the stats projection."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli.command_lines import runnable
from scat_cli.render import print_json
from scat_cli.typer_glue import Json
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.records.stats import StatsFigures, StatsReport


OnePlayer = Annotated[str | None, typer.Option("--player", metavar="NAME", show_default=False,
                                               help="Only this player (his name in any case).")]
Rebuild = Annotated[bool, typer.Option("--rebuild", help="Drop the statistics and fold every event again "
                                                         "first (the result is the same).")]


def stats(
    ctx: typer.Context,
    player: OnePlayer = None,
    rebuild: Rebuild = False,
    as_json: Json = False,
) -> None:
    """Statistics per player and overall, over every game.

    Games played and won, hands played and lost, knocks and how they ended (saved: the
    knocker lost no life; lost one; lost two, R19b), 31s declared (R20), throw downs and
    the average hand value at showdowns (R18). Games played count finished games; a game in
    progress counts only its finished hands. Imported games count. A player is his name,
    in any case. The figures are a projection of the event log, brought up to date before
    they are shown; --rebuild computes them again from every event.

    Example: scat stats --player you
    """
    with service(ctx) as games:
        report = games.stats(player=player, rebuild=rebuild)
    if as_json:
        print_json(stats_document(report))
        return
    render_stats(report)


def figures_document(figures: StatsFigures) -> dict[str, Any]:
    """The JSON fields of one player's (or everyone's) figures: the names are stable."""
    average = figures.average_showdown_value
    longest = figures.longest_game
    return {
        "name": figures.name,
        "games_played": figures.games_played,
        "games_won": figures.games_won,
        "games_in_progress": figures.games_in_progress,
        "hands_played": figures.hands_played,
        "hands_lost": figures.hands_lost,
        "lives_lost": figures.lives_lost,
        "knocks": figures.knocks,
        "knocks_saved": figures.knocks_saved,
        "knocks_lost_one": figures.knocks_lost_one,
        "knocks_lost_two": figures.knocks_lost_two,
        "throw_downs": figures.throw_downs,
        "thirty_ones": figures.thirty_ones,
        "showdowns": figures.showdowns,
        "average_showdown_value": None if average is None else round(average, 2),
        "longest_game": None if longest is None else {"game_id": longest.game_id, "hands": longest.hands},
        "resigned": figures.resigned,
        "timeouts": figures.timeouts,
    }


def stats_document(report: StatsReport) -> dict[str, Any]:
    """`scat stats --json`: {"players": [...], "overall": {...}}."""
    return {"players": [figures_document(p) for p in report.players], "overall": figures_document(report.overall)}


def render_stats(report: StatsReport) -> None:
    """The figures as a table: one row per player, then `all` together; the longest game below."""
    from scat_cli.render import Out

    out = Out()
    overall = report.overall
    if overall.hands_played == 0 and overall.games_played == 0 and not report.players:
        out.line(runnable("No games yet. Start one: `scat new --player you --bot ann --bot bob`"))
        return
    columns = ["player", "games", "won", "hands", "lost", "knocks", "saved", "lost1", "lost2", "31s", "tds", "res",
               "time", "avg", "longest"]
    rows = [_row(out, figures) for figures in report.players]
    if len(report.players) != 1:
        rows.append(_row(out, overall))
    _table(out, columns, rows)
    shown = report.players[0] if len(report.players) == 1 else overall
    longest = shown.longest_game
    if longest is not None:
        out.line(f"Longest game: {longest.game_id}, {longest.hands} hand{'' if longest.hands == 1 else 's'}.")
    whose = f"{shown.name}: " if shown.name is not None else ""
    lost = ("lost: hands lost (in the all row, a hand counts once under hands and once for each player who lost "
            "it under lost: one hand can have several losers)." if len(report.players) != 1 else "lost: hands lost.")
    out.line(out.style(f"{whose}{_games(shown.games_played)} finished, {shown.games_in_progress} in progress "
                       f"(+N: only their finished hands count). {lost}", "dim"))
    out.line(out.style("saved, lost1, lost2: knocks after which the knocker lost 0, 1, 2 lives (R19). "
                       "tds: throw downs called (R23). res: games resigned (R27). time: games left out of move time "
                       "(R28). avg: hand value at showdowns.",
                       "dim"))


def _games(count: int) -> str:
    """"1 game", "2 games"."""
    return f"{count} game" if count == 1 else f"{count} games"


def _table(out: Any, columns: list[str], rows: list[list[str]]) -> None:
    """Fourteen narrow columns: on a terminal with one space between them, so they fit 80 columns."""
    if not out.terminal:
        out.table(columns, rows)
        return
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True)
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right", no_wrap=index > 0)
    for row in rows:
        table.add_row(*row)
    out.console().print(table)


def _row(out: Any, figures: StatsFigures) -> list[str]:
    average = figures.average_showdown_value
    longest = figures.longest_game
    name = out.style("all", "bold") if figures.name is None else out.text(figures.name)
    played = f"{figures.games_played}" + (f"+{figures.games_in_progress}" if figures.games_in_progress else "")
    return [
        name, played, str(figures.games_won), str(figures.hands_played), str(figures.hands_lost),
        str(figures.knocks), str(figures.knocks_saved), str(figures.knocks_lost_one), str(figures.knocks_lost_two),
        str(figures.thirty_ones), str(figures.throw_downs), str(figures.resigned), str(figures.timeouts),
        "-" if average is None else f"{average:.1f}",
        "-" if longest is None else str(longest.hands),
    ]


def ratings(
    ctx: typer.Context,
    player: OnePlayer = None,
    rebuild: Rebuild = False,
    as_json: Json = False,
) -> None:
    """A rating per player, over every game played out.

    A multiplayer Bayesian rating (Weng-Lin, the openskill package): in each game won, the
    winner places first, then whoever went out in the latest hand, and players out in the same
    hand tie. Games are taken in the order they were won; cancelled, abandoned and running
    games count for nothing. Bots are rated too, never in a human's row of the same name. The
    rating is conservative (mu - 3 sigma): it grows as results make a player's skill known.
    Kept as a projection of the events, brought up to date before it is shown.

    Example: scat ratings --player you
    """
    with service(ctx) as games:
        rated = games.ratings(player=player, rebuild=rebuild)
    if as_json:
        print_json({"players": [{"name": row.name, "rating": row.rating, "games": row.games, "is_bot": row.is_bot,
                                 "mu": row.mu, "sigma": row.sigma} for row in rated.players]})
        return
    from scat_cli.render import Out

    out = Out()
    if not rated.players:
        out.line(runnable("No game played out yet: ratings follow the end of a game (`scat new ...`)."))
        return
    out.table(["", "player", "rating", "games", "mu ± sigma"],
              [[f"{place}.", out.text(row.name + (" (bot)" if row.is_bot else "")), f"{row.rating:.1f}",
                str(row.games), f"{row.mu:.1f} ± {row.sigma:.1f}"] for place, row in enumerate(rated.players, 1)])

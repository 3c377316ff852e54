"""`scat stats`: figures per player and overall, from the stats projection."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli.common import Json, print_json, service

if TYPE_CHECKING:
    from scat_core.store.stats_projection import StatsFigures, StatsReport


def stats(
    ctx: typer.Context,
    player: Annotated[str | None, typer.Option("--player", metavar="NAME", show_default=False,
                                               help="Only this player (his name in any case).")] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the statistics and fold every event "
                                                            "again first (the result is the same).")] = False,
    as_json: Json = False,
) -> None:
    """Statistics over every game in the database, per player and overall.

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
    }


def stats_document(report: StatsReport) -> dict[str, Any]:
    """`scat stats --json`: {"players": [...], "overall": {...}}."""
    return {"players": [figures_document(p) for p in report.players], "overall": figures_document(report.overall)}


def render_stats(report: StatsReport) -> None:
    """The figures as a table: one row per player, then everyone together."""
    from scat_cli.render import Out

    out = Out()
    if report.overall.hands_played == 0 and report.overall.games_played == 0 and not report.players:
        out.line("No games yet. Start one: scat new --player you --bot ann --bot bob")
        return
    columns = ["player", "games", "won", "hands", "lost", "knocks", "saved", "lost 1", "lost 2",
               "31s", "avg showdown", "longest game"]
    rows = [_row(out, figures) for figures in report.players]
    if len(report.players) != 1:
        rows.append(_row(out, report.overall))
    out.table(columns, rows)
    overall = report.overall
    out.line(f"{overall.games_played} games finished, {overall.games_in_progress} in progress; "
             "a game in progress counts its finished hands only.")


def _row(out: Any, figures: StatsFigures) -> list[str]:
    average = figures.average_showdown_value
    longest = figures.longest_game
    name = out.style("everyone", "bold") if figures.name is None else out.text(figures.name)
    played = f"{figures.games_played}" + (f" (+{figures.games_in_progress})" if figures.games_in_progress else "")
    return [
        name, played, str(figures.games_won), str(figures.hands_played), str(figures.hands_lost),
        str(figures.knocks), str(figures.knocks_saved), str(figures.knocks_lost_one), str(figures.knocks_lost_two),
        str(figures.thirty_ones), "-" if average is None else f"{average:.1f}",
        "-" if longest is None else f"{longest.hands} hands ({longest.game_id})",
    ]

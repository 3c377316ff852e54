"""What a player is shown after a command: the view, what the bots did, and the next moves.

The moves offered come from the domain (legal moves, refusals); nothing here decides a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from scat_cli import render
from scat_cli.common import command_line, print_json, scat_prefix

if TYPE_CHECKING:
    from scat_core.domain.state import GameState
    from scat_core.service.games import Outcome
    from scat_core.service.outcomes import GameResult


def viewer_view(state: GameState, viewer: str | None) -> dict[str, Any]:
    """The JSON view for `viewer` (his hand only once he has looked at it, R23), or the public's."""
    from scat_core.domain.views import player_view, public_view

    return public_view(state) if viewer is None else player_view(state, viewer)


def next_steps(ctx: typer.Context, state: GameState, viewer: str,
               read_only: bool = False) -> tuple[str, list[tuple[str, str]]]:
    """A title and (command, why) pairs: what `viewer` may do now, from the domain's legal moves.

    Commands are quoted for the shell (names with spaces or quotes); `read_only`: an imported
    running game, which nobody can play here.
    """
    from scat_core.domain import commands as cmd
    from scat_core.domain.decide import throw_down_refusal
    from scat_core.domain.legal import play_moves

    scat, game = scat_prefix(ctx), state.game_id
    seat = state.seat_of(viewer)
    if state.status == "finished":  # who won is said once, with the result
        return "", [
            (f"{scat} {command_line('export', game, '--format', 'text')}", "the whole game, hand by hand"),
            (f"{scat} {command_line('audit', game)}", "check the game from its events"),
        ]
    if read_only:
        return read_only_note(game), []
    if seat is None:
        return "", []
    name = state.players[seat].name

    def act(command: str, *more: str) -> str:
        return f"{scat} {command_line(command, game, '--as', name, *more)}"

    if state.players[seat].out:  # the table says "You are out of the game."
        return "", [(f"{scat} {command_line('show', game)}", "watch the others")]
    steps: list[tuple[str, str]] = []
    if state.hand_unseen(seat):  # R23
        steps.append((act("show"), "look at your hand (then you may no longer throw down)"))
    if throw_down_refusal(state, seat) is None:
        steps.append((act("throw-down"), "show every hand at once, unseen (R23)"))
    title = ""
    discards: list[str] = []
    for move in play_moves(state, seat):
        if isinstance(move, cmd.Declare31):
            title = f"You hold 31: run `{act('declare')}`"
            steps.append((act("declare"), "everyone else loses a life (R21)"))
        elif isinstance(move, cmd.Draw) and move.source == "stock":
            steps.append((act("draw", "stock"), "take the top card of the stock"))
        elif isinstance(move, cmd.Draw):
            steps.append((act("draw", "discard"), f"take {state.discard[-1]} from the discard pile"))
        elif isinstance(move, cmd.Knock):
            steps.append((act("knock"), "keep your hand: the others get one more turn each"))
        elif isinstance(move, cmd.Discard):
            discards.append(move.card)
    if discards:
        steps.append((act("discard") + " CARD", "CARD one of " + " ".join(discards)))
    if not title:
        if state.turn == seat:
            title = "Your turn."
        elif state.turn is not None:
            title = f"Waiting for {state.name(state.turn)}."
    if state.protected and steps and _token_unknown(ctx, game, name):
        title += " (Protected game: give your token with --token or SCAT_TOKEN.)"
    return title, steps


def _token_unknown(ctx: typer.Context, game: str, name: str) -> bool:
    """Whether this scat has not remembered `name`'s token for the game (then the hint says how to give it)."""
    from scat_cli.token_store import token_for

    return token_for(ctx, game, name, None) is None


def read_only_note(game: str) -> str:
    """What an imported running game is: shown, never played here."""
    return (f"Game {game} was imported without its secret seed: it is read-only here "
            "(show, log, replay, audit, export); play it on where it was created.")


def result_json(result: GameResult) -> dict[str, Any]:
    """A finished game's result as JSON."""
    from dataclasses import asdict

    return asdict(result)


def events_json(seen: list[tuple[Any, Any]], before: GameState) -> list[dict[str, Any]]:
    """Events (as the viewer may see them) as JSON: seq, type, recorded_at, data and a sentence."""
    from scat_core.domain.events import to_record
    from scat_core.service.transcript import PublicTable, describe

    table = PublicTable.of(before)
    shown = []
    for stored, event in seen:
        _, _, data = to_record(event)
        shown.append({"seq": stored.seq, "type": stored.type, "recorded_at": stored.recorded_at,
                      "data": data, "text": describe(event, table)})
        table.apply(event)
    return shown


def finished_parts(result: GameResult | None) -> tuple[str, list[list[str]], list[str]] | None:
    """The headline, standings and hand lines of a finished game's result, for render.view_table."""
    from scat_cli.summary import hand_lines, result_headline, standings_rows

    return None if result is None else (result_headline(result), standings_rows(result), hand_lines(result))


def news_block(ctx: typer.Context, game_id: str, seen: list[tuple[Any, Any]], before: GameState,
               title: str = "") -> None:
    """The moves told (redacted already), a long finished hand in one line; under `title` if any."""
    from scat_cli.summary import news_lines

    lines = news_lines([(stored.seq, event) for stored, event in seen], before, game_id, scat_prefix(ctx))
    if lines and title:
        render.plain(title)
    render.print_lines(lines, "· ")


def report(ctx: typer.Context, outcome: Outcome, viewer: str | None, as_json: bool,
           extra: dict[str, Any] | None = None, result: GameResult | None = None) -> None:
    """Print what happened (redacted for `viewer`), the new state and what to do next.

    `extra` adds fields to the JSON document; its "tokens" are printed before the hints.
    `result`: the game's result, when this command ended it.
    """
    if outcome.bots_interrupted:  # #14 item 8: the command stands; say so, once, on stderr
        from scat_cli.escape import say

        say(f"scat: note: your move was recorded, but the bots' replies could not be saved "
            f"({outcome.bots_interrupted}): the next command plays them", err=True)
    view = viewer_view(outcome.state, viewer)
    seen = outcome.seen_by(viewer)
    if view.get("hand_hidden"):  # R23: a deal is told as the public saw it until you look
        public = outcome.seen_by(None)
        seen = [shown if shown[1].type != "HandDealt" else hidden for shown, hidden in zip(seen, public, strict=True)]
    title, steps = next_steps(ctx, outcome.state, viewer) if viewer else ("", [])
    if as_json:
        moves = [command for command, _ in steps]
        finished = {"result": result_json(result)} if result is not None else {}
        print_json({**view, **(extra or {}), "events": events_json(seen, outcome.before), "moves": moves,
                    **finished})
        return
    if result is None:  # a game this command ended: its result tells every hand, once
        news_block(ctx, outcome.game_id, seen, outcome.before)
    render.view_table(view, finished_parts(result))
    if extra and extra.get("tokens"):
        render.tokens(extra["tokens"])
    if title or steps:
        render.hints(steps, title)

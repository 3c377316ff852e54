"""Playing: `new`, `games`, `show`, `draw`, `discard`, `knock`, `declare`, `throw-down`.

Each command calls one service method and renders its result; the rules live in scat_core.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli import render
from scat_cli.command_lines import as_words, command_line, runnable, scat_prefix
from scat_cli.presenter import (
    events_json,
    finished_parts,
    messages_block,
    messages_json,
    news_block,
    next_steps,
    read_only_note,
    report,
    result_json,
    viewer_view,
)
from scat_cli.remembered import remember, token_for
from scat_cli.render import print_json, recorded, terminal_safe
from scat_cli.typer_glue import (
    AsName,
    AsViewer,
    GameArg,
    Json,
    Look,
    Source,
    Token,
    ViewerToken,
    card_argument,
    complete_card,
    deck_option,
    seat_order,
)
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.domain.commands import PlayerCommand
    from scat_core.service.values import Shown


class Status(StrEnum):
    """A game's status in the games list: waiting for its players (R28), being played, over, or cancelled."""

    pending = "pending"
    active = "active"
    finished = "finished"
    cancelled = "cancelled"


def _act(ctx: typer.Context, game: str, player: str, token: str | None, command: PlayerCommand,
         as_json: bool) -> None:
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        played = games.move(game, command, token_for(ctx, game, player, token))
        again = command_line("show", played.game_id, *as_words(ctx, player))
        recorded(ctx, f"your move was recorded; see `scat {again}`")
    if token and played.state.protected:
        remember(ctx, game, {player: token})
    report(ctx, played, as_json)


def _flag(name: str, text: str) -> Any:
    return typer.Option(name, help=text)


Players = Annotated[list[str] | None, typer.Option(
    "--player", "-p", metavar="NAME", show_default=False, help="A human player (repeat; seated in the order given).")]
Bots = Annotated[list[str] | None, typer.Option(
    "--bot", "-b", metavar="NAME", show_default=False, help="A bot player (repeat; interleaves with --player).")]
Dealer = Annotated[str | None, typer.Option(
    metavar="NAME", show_default=False, help="The first dealer (default: drawn from the seed, R8).")]
Seed = Annotated[int | None, typer.Option(
    metavar="INT", show_default=False, help="Seed every shuffle (default: random; revealed when the game ends).")]
Deck = Annotated[str | None, typer.Option(
    metavar="CARDS", show_default=False, help="The 52 cards of the first deck, top first (a stacked deck).")]
Lives = Annotated[int, typer.Option(min=1, max=9, metavar="N", help="Pennies each player starts with (R7).")]
MinKnock = Annotated[int | None, typer.Option(
    min=1, max=30, metavar="N", show_default=False, help="Knock only with a hand worth N or more (R15).")]
ThreeOfAKind = Annotated[bool, _flag("--three-of-a-kind", "Three of a rank are worth 30 (R4).")]
StraightFlush = Annotated[bool, _flag("--straight-flush", "A suited run is worth 30, A-K-Q 31 (R5).")]
NoFirstRoundKnock = Annotated[bool, _flag("--no-first-round-knock", "Nobody knocks before all had a turn (R15b).")]
ThrowDownOption = Annotated[bool, _flag("--throw-down", "Allow throw downs (R23).")]
NoDole = Annotated[bool, _flag("--no-dole", "Out as soon as the last penny is paid (R25).")]
MoveTime = Annotated[str | None, typer.Option(
    metavar="DURATION", show_default=False,
    help="Time each player has for his turn, e.g. 90s, 30m, 36h, 2d, 1d12h; then it may be claimed (R28).")]
Protect = Annotated[bool, _flag("--protect", "Give every human a secret token, printed once.")]
Quiet = Annotated[bool, typer.Option(
    "--quiet", "-q", help="Print only the game id (with --protect, then one NAME<TAB>TOKEN line per human).")]


def new(
    ctx: typer.Context,
    players: Players = None,
    bots: Bots = None,
    dealer: Dealer = None,
    seed: Seed = None,
    deck: Deck = None,
    lives: Lives = 3,
    three_of_a_kind: ThreeOfAKind = False,
    straight_flush: StraightFlush = False,
    min_knock: MinKnock = None,
    no_first_round_knock: NoFirstRoundKnock = False,
    throw_down: ThrowDownOption = False,
    no_dole: NoDole = False,
    move_time: MoveTime = None,
    protect: Protect = False,
    quiet: Quiet = False,
    as_json: Json = False,
    open_seats: Annotated[int, typer.Option(
        "--open", min=0, max=8, metavar="N",
        help="On a server: N more seats any account may take (`scat join`).")] = 0,
    expires: Annotated[str | None, typer.Option(
        metavar="DURATION", show_default=False,
        help="On a server: how long the invitations stay open (default 7d); unanswered, the game is "
             "cancelled.")] = None,
) -> None:
    """Create a game and deal; bots play until a human must.

    Players sit in the order given; --player and --bot interleave (R6). Prints the game id,
    the table and the command to play next; with --protect, each human's token, once. On a
    server the game waits until every other seated human accepts (`scat accept`) and every
    open seat (--open N) is taken (`scat join`): nothing is dealt before (R28).

    Example: scat new --player you --bot ann --bot bob --seed 7
    """
    from scat_core.domain.errors import BadInput
    from scat_core.domain.events import PlayerSeat
    from scat_core.domain.options import GameOptions, parse_duration

    if not players and not bots:
        raise BadInput("name the players with --player NAME (people) and --bot NAME (bots), in seat order: "
                       f"{scat_prefix(ctx)} new --player you --bot ann --bot bob")
    try:
        seconds = None if move_time is None else parse_duration(move_time)
    except ValueError as error:
        raise BadInput(f"--move-time: {error} (R28)") from error
    try:
        open_for = None if expires is None else parse_duration(expires)
    except ValueError as error:
        raise BadInput(f"--expires: {error}") from error
    seats = [PlayerSeat(name=name, is_bot=is_bot) for name, is_bot in seat_order(ctx, players or [], bots or [])]
    options = GameOptions(
        lives=lives, three_of_a_kind=three_of_a_kind, straight_flush=straight_flush, min_knock=min_knock,
        no_first_round_knock=no_first_round_knock, throw_down=throw_down, no_dole=no_dole, move_time=seconds,
    )
    cards = deck_option(deck)
    humans = [seat.name for seat in seats if not seat.is_bot]
    viewer = humans[0] if len(humans) == 1 and not throw_down else None
    with service(ctx) as games:  # a server protects every game
        outcome = games.new_game(seats, options=options, dealer=dealer, seed=seed, deck=cards, protect=protect,
                                 viewer=viewer, open_seats=open_seats, expires=open_for)
        protected = protect or bool(outcome.tokens)
        recorded(ctx, f"game {outcome.game_id} was created; see `scat show {outcome.game_id}`"
                 + (" (its tokens were in the output: `scat new --protect` again for new ones)" if protected else ""))
    protect = protect or bool(outcome.tokens)
    remember(ctx, outcome.game_id, outcome.tokens)
    if quiet and not as_json:
        typer.echo(outcome.game_id)
        for name, token in outcome.tokens.items():  # shown only this once: never thrown away
            typer.echo(f"{name}\t{token}")
        return
    extra: dict[str, Any] = {"tokens": outcome.tokens} if protect else {}
    if not as_json:
        render.plain(f"Created game {outcome.game_id}.")
    report(ctx, outcome, as_json, extra)
    state = outcome.state
    if not as_json and viewer is None and humans and state.status != "finished" and state.turn is not None:
        first, scat = state.players[state.turn].name, scat_prefix(ctx, others=True)  # maybe not the creator
        token = " (with --token or SCAT_TOKEN)" if protect else ""

        def act(*words: str) -> str:
            return f"{scat} {command_line(words[0], outcome.game_id, *as_words(ctx, first), *words[1:])}"

        steps: list[tuple[str, str]] = [(act("show", *(["--look"] if throw_down else [])), "look at your hand" + token),
                                         (act("draw", "stock"), "or draw straight away")]
        if throw_down:  # R23: nobody has looked yet
            steps.append((act("throw-down"), "or show every hand at once, unseen (R23)"))
        render.hints(steps, f"To play: {first}.")


#: How many games `scat games` lists without --limit or --all: a screenful.
PAGE = 20


def games(
    ctx: typer.Context,
    status: Annotated[Status | None, typer.Option(metavar="pending|active|finished|cancelled",
                                                  help="Only the games of one status.",
                                                  case_sensitive=False, show_default=False)] = None,
    waiting_for: Annotated[str | None, typer.Option(metavar="NAME", show_default=False,
                                                    help="Only games where NAME is to play.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=1_000_000, metavar="N",
                                       help="Show the N games of newest activity.")] = PAGE,
    every: Annotated[bool, typer.Option("--all", help="Show every game (no --limit).")] = False,
    as_json: Json = False,
    lobby: Annotated[bool, typer.Option("--open", help="The lobby: games waiting for players to take their "
                                                       "open seats (`scat join GAME`).")] = False,
) -> None:
    """List games, newest activity first, with whose turn it is.

    A screenful (the 20 of newest activity) unless --limit N or --all says otherwise.
    A running game imported without its secret seed is read-only here: it waits for
    nobody (turn "-"; in --json "turn": null and "read_only": true). --open lists the
    games with a seat any account may take: their options, move time and who sits.

    Example: scat games --status active --waiting-for you
    """
    from scat_core.domain.errors import BadInput

    if lobby and status is not None:
        raise BadInput("--open lists pending games with an open seat: give it without --status")
    chosen = "open" if lobby else status.value if status else None
    with service(ctx) as games:
        page = games.games_page(status=chosen, waiting_for=waiting_for, limit=None if every else limit)
    rows = page.games
    filtered = chosen is not None or waiting_for is not None
    if as_json:
        print_json({"total": page.total, **({"total_at_least": True} if page.total_at_least else {}), "games": [
            {"game_id": r.game_id, "status": r.status, "players": r.players, "bots": r.bots, "turn": r.turn,
             "hand_number": r.hand_number, "dealer": r.dealer, "winner": r.winner, "created_at": r.created_at,
             "last_activity": r.last_activity, "last_seq": r.head_seq, "protected": r.protected,
             "read_only": r.read_only, "seed_chosen": r.seed_chosen, "first_deck_stacked": r.first_deck_stacked,
             "move_deadline": r.move_deadline, "move_time_left": r.move_time_left, "awaiting": r.awaiting,
             "open_seats": r.open_seats, "options": r.options, "ratings": r.ratings}
            for r in rows
        ]})
        return
    render.games_table(rows, filtered, lobby=lobby)
    if page.total > len(rows):
        filters = [*(["--status", status.value] if status else []), *(["--waiting-for", waiting_for] if waiting_for
                                                                     else [])]
        again = command_line("games", *filters)
        counted = f"at least {page.total}" if page.total_at_least else str(page.total)
        render.plain(runnable(f"Showing the newest {len(rows)} of {counted} games: "
                              f"`scat {again} --limit {min(page.total, 2 * len(rows))}` for more, "
                              f"`scat {again} --all` for every one."))


def show(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
         as_json: Json = False, look: Look = False) -> None:
    """Show a game; with --as, that player's own hand too.

    Never anyone else's cards before a showdown reveals them. In a throw-down game a hand you
    have not looked at stays face down ("hand": null, "looked": false) unless --look turns it
    up, which is recorded: then you may no longer throw down (R23).

    Example: scat show 3f2a1b9c0d --as you
    """
    from scat_cli.seats import seated

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        shown = seated(ctx, "show", player,
                       lambda viewer: games.show(game, viewer, token_for(ctx, game, viewer, token), look),
                       lambda answer: answer.state)
    print_shown(ctx, shown, as_json)
    if token and player and shown.state.protected:
        remember(ctx, game, {player: token})


def print_shown(ctx: typer.Context, shown: Shown, as_json: bool) -> None:
    """What `scat show` prints of the service's `show`: the news since the viewer's last move,
    the table (with the result of a finished game) and his next moves."""
    game, player, news, result = shown.game_id, shown.viewer, shown.news, shown.result
    view = viewer_view(shown.state, player)
    if as_json:
        extra: dict[str, Any] = {}
        if news is not None:  # what happened since the viewer's last move, as he may see it
            extra["since_last_move"] = events_json(news.events, news.before)
        if result is not None:
            extra["result"] = result_json(result)
        # As `games --json`: a game imported while running is read-only here, nobody's turn comes.
        extra["read_only"] = shown.read_only
        if shown.read_only:
            extra["turn"] = None
        extra["move_deadline"], extra["move_time_left"] = shown.move_deadline, shown.move_time_left  # R28
        extra["messages"] = messages_json(shown.messages)  # the last few said at the table
        print_json({**view, **extra})
        return
    if news is not None and result is None:
        title = "Since your last move:" if len(news.events) < news.state.version - 1 else "So far:"
        news_block(ctx, game, news.events, news.before, title)
    render.view_table(view, finished_parts(result))
    render.move_time_line(game, view["turn"], player, shown.move_deadline, shown.move_time_left)
    messages_block(shown.messages)
    title, steps = next_steps(ctx, shown.state, player, shown.moves, shown.read_only) if player else ("", [])
    if shown.read_only:
        title = read_only_note(game)  # for the public view too
    if title or steps:
        render.hints(steps, title)


def draw(ctx: typer.Context, game: GameArg,
         source: Annotated[Source, typer.Argument(metavar="stock|discard", case_sensitive=False,
                                                  help="Where to draw from (R12).")],
         player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Draw the top card of the stock or of the discard pile (R12).

    Example: scat draw 3f2a1b9c0d --as you stock
    """
    from scat_core.domain.commands import Draw

    _act(ctx, game, player, token, Draw(player, source.value), as_json)


def discard(ctx: typer.Context, game: GameArg,
            card: Annotated[str, typer.Argument(metavar="CARD", help="The card to discard: AS, 10H, qd, 7♣.",
                                                autocompletion=complete_card)],
            player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Discard a card from your hand (R12, R13).

    Not the card you just took from the discard pile (R13).

    Example: scat discard 3f2a1b9c0d --as you 7C
    """
    from scat_core.domain.commands import Discard

    _act(ctx, game, player, token, Discard(player, card_argument(card)), as_json)


def knock(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Knock instead of drawing (R14-R16).

    Every other player gets one more turn, then the hands are shown.

    Example: scat knock 3f2a1b9c0d --as you
    """
    from scat_core.domain.commands import Knock

    _act(ctx, game, player, token, Knock(player), as_json)


def declare(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Declare 31: everyone else loses a life (R20-R22).

    Allowed any time during the hand while you hold 3 cards worth 31, even out of turn.

    Example: scat declare 3f2a1b9c0d --as you
    """
    from scat_core.domain.commands import Declare31

    _act(ctx, game, player, token, Declare31(player), as_json)


def throw_down(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None,
               as_json: Json = False) -> None:
    """Call a throw down, unseen: all hands are shown (R23).

    Only in games created with --throw-down, by a player who has not looked at the hand dealt.

    Example: scat throw-down 3f2a1b9c0d --as you
    """
    from scat_core.domain.commands import ThrowDown

    _act(ctx, game, player, token, ThrowDown(player), as_json)


def resign(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False,
           yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first (it asks only on a terminal).")]
           = False) -> None:
    """Leave the game for good, at any time, in turn or not (R27).

    You are out at once: your cards are set aside face down, your pennies stay yours, the
    others play on without you (a knock you made stands). The last player left wins. On a
    terminal it asks first; --yes does not ask.

    Example: scat resign 3f2a1b9c0d --as you
    """
    from scat_core.domain.commands import Resign

    if not yes and sys.stdin.isatty():
        question = terminal_safe(f"Resign from game {game} as {player}? You leave it for good (R27).")
        if not typer.confirm(question, default=False, err=True):
            typer.echo("scat: not resigned: nothing was written", err=True)
            raise typer.Exit(1)
    _act(ctx, game, player, token, Resign(player), as_json)


def abandon(ctx: typer.Context, game: GameArg,
            player: Annotated[str | None, typer.Option(
                "--as", metavar="NAME", show_default=False,
                help="The last human still in the game (leave it out for a game only bots are left in, on "
                     "your own database).")] = None,
            token: Token = None, as_json: Json = False,
            yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask first (it asks only on a terminal).")]
            = False) -> None:
    """Give a game up for good: it ends without a winner.

    For a game that will not end, such as an old game of bots (rules version 2 with
    min-knock 31, R15). Only the last human still in the game may abandon it (--as NAME; on a
    server, your account); on your own database, anyone may abandon a game only bots are left
    in. A game another human is still in cannot be abandoned: resign to leave it (R27). Its
    seed is revealed, so every deal is still audited. On a terminal it asks first.

    Example: scat abandon 3f2a1b9c0d
    """
    if not yes and sys.stdin.isatty():
        question = terminal_safe(f"Abandon game {game}? It ends for good, without a winner.")
        if not typer.confirm(question, default=False, err=True):
            typer.echo("scat: not abandoned: nothing was written", err=True)
            raise typer.Exit(1)
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        played = games.abandon(game, player, token_for(ctx, game, player, token) if player else token)
        recorded(ctx, f"the game was abandoned; see `scat {command_line('show', played.game_id)}`")
    report(ctx, played, as_json)


def say(ctx: typer.Context, game: GameArg,
        text: Annotated[str, typer.Argument(metavar="TEXT", show_default=False,
                                            help="One line of printable text, up to 500 characters.")],
        player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Say one line at the game's table.

    Any player of the game may speak: also one out of it, and after it has ended. It is an
    event of the game's log (signed, on a server, as a move is), shown by log, watch, play,
    the exports and, the last few, by show; never a move: it changes no turn and no clock, and
    never makes another player's move fail.

    Example: scat say 3f2a1b9c0d --as you "good game, all"
    """
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        played = games.say(game, player, text, token_for(ctx, game, player, token))
        recorded(ctx, f"your message was recorded; see `scat {command_line('log', played.game_id)}`")
    if token and played.state.protected:
        remember(ctx, game, {player: token})
    said = played.events[-1]
    if as_json:
        print_json({"game_id": played.game_id, "message": messages_json([said])[0]})
        return
    render.plain(f"{said.data['player']} said: {said.data['text']}")
    render.hints([(f"{scat_prefix(ctx)} {command_line('log', played.game_id)}", "the game's log, messages and all")])


def _seated(ctx: typer.Context, game: str, player: str, token: str | None, as_json: bool, verb: str) -> None:
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        played = getattr(games, verb)(game, player, token_for(ctx, game, player, token))
        recorded(ctx, f"your {verb} was recorded; see `scat {command_line('show', played.game_id)}`")
    report(ctx, played, as_json)


def accept(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Accept your seat in a game waiting for its players (R28).

    On a server nobody is seated without consent: a game waits, undealt, until every seated
    human has accepted and every open seat is taken; the last acceptance deals the first hand.
    A game with no seat of yours, or not waiting, is exit 1.

    Example: scat accept 3f2a1b9c0d
    """
    _seated(ctx, game, player, token, as_json, "accept")


def decline(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Decline your seat, or withdraw your game: it is cancelled.

    A cancelled game is never dealt and counts for no statistic or rating. Only a game that
    waits for its players (R28) can be declined.

    Example: scat decline 3f2a1b9c0d
    """
    _seated(ctx, game, player, token, as_json, "decline")


def join(ctx: typer.Context, game: GameArg, player: AsName, token: Token = None, as_json: Json = False) -> None:
    """Take the first open seat of a game (see `scat games --open`).

    Joining is accepting: when the last seat is taken and accepted, the first hand is dealt.
    A full game, or one you sit in already, is exit 1. On a server, as your account.

    Example: scat join 3f2a1b9c0d
    """
    _seated(ctx, game, player, token, as_json, "join")


def rematch(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: Token = None,
            as_json: Json = False) -> None:
    """Ask for another game with the same players and options.

    For a finished game, by one of its players: the first dealer sits one seat to the left of
    the old game's first dealer (R6, R8). Asked again, by anyone of them, it is the same game.
    On a server it waits for the others to accept (R28), and asking for it counts as accepting
    it. --as may be left out when the game has one human (on a server: your account).

    Example: scat rematch 3f2a1b9c0d --as you
    """
    from scat_core.domain.errors import BadInput

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        if player is None:
            humans = [p.name for p in games.show(game).state.players if not p.is_bot]
            if len(humans) != 1:
                raise BadInput(f"name the player who asks with --as NAME: one of {', '.join(humans)}")
            player = humans[0]
        played = games.rematch(game, player, token_for(ctx, game, player, token))
        recorded(ctx, f"the rematch is game {played.game_id}; see `scat {command_line('show', played.game_id)}`")
    remember(ctx, played.game_id, played.tokens)
    if not as_json:  # as `new` opens with the game it created (asked again: the same game)
        render.plain(f"The rematch of game {game} is game {played.game_id}.")
    report(ctx, played, as_json, {"tokens": played.tokens} if played.tokens else None)


def claim(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: Token = None,
          as_json: Json = False) -> None:
    """Claim the turn of a player out of move time (R28).

    Only in a game created with --move-time, once the player to act is out of time; by
    another player still in the game (in a protected game, with his token).

    Example: scat claim 3f2a1b9c0d --as you
    """
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        played = games.claim(game, player, token_for(ctx, game, player, token) if player else token)
        recorded(ctx, f"your claim was recorded; see `scat {command_line('show', played.game_id)}`")
    if token and player and played.state.protected:
        remember(ctx, game, {player: token})
    report(ctx, played, as_json)

"""The games: create one, the list, one game as its viewer may know it, its position, log and replay,
and the one game an abbreviated id names."""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from scat_cli.server.routes.deps import AccountName, Acting, Caller, Server, SignedBy, Viewer
from scat_cli.server.routes.errors import CREATING, MOVE, ONE_GAME, responses
from scat_cli.wire import bodies
from scat_core.domain.errors import BadInput
from scat_core.service.values import Dashboard, GamesPage, History, Listing, Played, Position, Ratings, Shown

router = APIRouter()
Status = Annotated[str | None, Query(pattern="^(pending|active|finished|cancelled|open)$",
                                     description="open: the lobby, pending games with a seat to take")]
WaitingFor = Annotated[str | None, Query(max_length=bodies.SHORT)]
Limit = Annotated[int, Query(ge=1, le=bodies.MAX_PAGE, description=f"At most {bodies.MAX_PAGE} games a page.")]
After = Annotated[str | None, Query(max_length=bodies.SHORT, description="The `next` cursor of the page before.")]


@router.post("/games", response_model=Played, status_code=201, responses=responses(*MOVE, s429=CREATING))
def new_game(body: bodies.CreateIn, server: Server, account: SignedBy, caller: Caller) -> Played:
    """Create a game. Signed by an account: its humans are accounts (the creator one of them),
    who sign their moves; else protected by tokens, which come back once. Each caller creates
    at most his share of games an hour (429 with Retry-After past it)."""
    from scat_core.domain.cards import parse_deck
    from scat_core.domain.events import PlayerSeat

    # the account's share alone when signed: a classroom behind one address creates games as its
    # accounts do (registrations, limited per address, bound how many accounts one address has)
    server.new_games.take(caller[:1], 1)
    games = server.games
    if (body.seed is not None or body.deck is not None) and not server.testing:
        raise BadInput("this server refuses --seed and --deck (whoever created the game would know every "
                       "hand); only a server started with --testing accepts them")
    seats = [PlayerSeat(name=seat.name, is_bot=seat.is_bot) for seat in body.players]
    deck = parse_deck(body.deck) if body.deck is not None else None
    if account is not None:
        humans = iter(server.accounts.seat(account.name, [seat.name for seat in seats if not seat.is_bot],
                                           [seat.name for seat in seats if seat.is_bot]))
        seats = [seat if seat.is_bot else PlayerSeat(name=next(humans), is_bot=False) for seat in seats]
        played = games.new_game_of_accounts(seats, options=body.options, dealer=body.dealer, seed=body.seed,
                                            deck=deck, viewer=account.name, open_seats=body.open_seats,
                                            expires=body.expires)
    else:
        played = games.new_game(seats, options=body.options, dealer=body.dealer, seed=body.seed, deck=deck,
                                protect=True, viewer=body.viewer, open_seats=body.open_seats, expires=body.expires)
    server.notifier.changed(played.game_id)
    return played


@router.get("/ratings", response_model=Ratings, responses=responses(404))
def ratings(server: Server, player: Annotated[str | None, Query(max_length=bodies.SHORT)] = None) -> Ratings:
    """`scat ratings`: a rating per player over the games played out, highest first (404: no such player)."""
    return server.games.ratings(player)


@router.get("/status", response_model=Dashboard, responses=responses())
def status(server: Server, signer: AccountName, viewer: Viewer = None) -> Dashboard:
    """`scat status`: what waits for a player (the signing account's name, else `as`)."""
    player = signer or viewer
    if player is None:
        raise BadInput("whose games? sign the request as an account, or give as=NAME")
    return server.games.status(player)


@router.post("/games/{game_id}/rematch", response_model=Played, responses=responses(*MOVE))
def rematch(game_id: str, body: bodies.RematchIn, server: Server, credential: Acting) -> Played:
    """The rematch of a finished game, asked by one of its players (an account as himself): made once,
    asked again the same game; a game of accounts waits for its other players to accept (R28)."""
    played = server.games.rematch(game_id, body.player, credential)
    server.notifier.changed(played.game_id)
    return played


@router.get("/games", response_model=list[Listing], responses=responses())
def game_list(server: Server, signer: AccountName, status: Status = None, waiting_for: WaitingFor = None,
              limit: Limit = bodies.MAX_PAGE) -> list[Listing]:
    """The games list, newest activity first (at most `limit`); an account's own games first (`/games/page`:
    the next pages)."""
    return server.games.game_list_for(status, waiting_for, limit, signer)  # the signer's games first


@router.get("/games/page", response_model=GamesPage, responses=responses())
def games_page(server: Server, signer: AccountName, status: Status = None, waiting_for: WaitingFor = None,
               limit: Limit = bodies.MAX_PAGE, after: After = None) -> GamesPage:
    """`scat games`: the newest `limit` games of the list (an account's own first) after the cursor `after`,
    the next page's cursor, and how many match in all (counted up to a bound: `total_at_least`)."""
    return server.games.games_page_for(status, waiting_for, limit, signer, after)


@router.get("/games/{game_id}", response_model=Shown, responses=responses(*ONE_GAME))
def show(game_id: str, server: Server, credential: Acting, viewer: Viewer = None,
         look: Annotated[bool, Query(description="false: record no look at a face-down hand (R23), "
                                                 "as `scat play` shows it")] = True) -> Shown:
    """The game as the viewer may know it, his news since his last move, the result once over."""
    shown = server.games.show(game_id, viewer, credential, look)
    if viewer is not None:
        server.notifier.changed(game_id)  # a look may be recorded (R23), bots may have moved
    return shown


@router.get("/games/{game_id}/head", response_model=Position, responses=responses(*ONE_GAME))
def position(game_id: str, server: Server) -> Position:
    """Where the game stands (its last event's seq and hash): what a player signs his move at."""
    return server.games.position(game_id)


@router.get("/games/{game_id}/log", response_model=History, responses=responses(*ONE_GAME))
def log(game_id: str, server: Server, credential: Acting, viewer: Viewer = None) -> History:
    """Every event as the viewer may see it."""
    return server.games.log(game_id, viewer, credential)


@router.get("/games/{game_id}/replay", response_model=History, responses=responses(*ONE_GAME))
def replay(game_id: str, server: Server, credential: Acting, viewer: Viewer = None,
           to: Annotated[int | None, Query(ge=-(2**31), le=2**31)] = None) -> History:
    """The game as after event `to`, as the viewer could see it then."""
    return server.games.replay(game_id, to, viewer, credential)


@router.get("/ids/{prefix}", response_model=bodies.GameIdOut, responses=responses(404))
def resolve(prefix: str, server: Server) -> bodies.GameIdOut:
    """The one game whose id starts with `prefix` (404 none, 400 several)."""
    return bodies.GameIdOut(game_id=server.games.resolve_game_id(prefix))

"""Store test helpers: small valid events, a game appended, the stats rows, tampering past the triggers."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, select, text

from scat_core.domain.events import CardDiscarded, CardDrawn, GameCreated, Knocked, PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.records.games import GameSummary
from scat_core.store.sql import tables as t
from scat_core.store.sql.database import make_engine
from scat_core.store.sql.event_store import EventStore


def game_created(game_id: str = "g1") -> GameCreated:
    """The first event of a two-player game."""
    return GameCreated(
        game_id=game_id,
        players=(PlayerSeat(name="ann"), PlayerSeat(name="bob", is_bot=True)),
        options=GameOptions(),
        dealer="ann",
        dealer_drawn=False,
        seed_commitment="c" * 64,
    )


def a_turn(player: str = "bob") -> list[BaseModel]:
    """A draw and a discard by `player`."""
    return [
        CardDrawn(player=player, source="stock", card="AS"),
        CardDiscarded(player=player, card="2C"),
    ]


def a_knock(player: str = "ann") -> Knocked:
    """A knock by `player`."""
    return Knocked(player=player)


SUMMARY = GameSummary(status="active", players=("ann", "bob"), turn="bob", dealer="ann",
                      bots=("bob",))


def new_game(store: EventStore, game_id: str = "g1") -> None:
    """Append the `game_created` event of `game_id` (with `SUMMARY`)."""
    with store.transaction() as tx:
        tx.append(game_id, 0, [game_created(game_id)], SUMMARY)


def projection_rows(engine: Engine) -> tuple[list[Any], list[Any]]:
    """Every row of the stats tables, in a fixed order."""
    g, p = t.stats_games, t.stats_players
    with engine.connect() as conn:
        games = [tuple(r) for r in conn.execute(select(g).order_by(g.c.game_id))]
        players = [tuple(r) for r in conn.execute(select(p).order_by(p.c.game_id, p.c.seat))]
    return games, players


def drop_event_triggers(engine: Engine) -> None:
    """What someone with full access to the database could do first."""
    if engine.dialect.name == "sqlite":
        listing = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
        drop = 'DROP TRIGGER "{}"'
    else:
        listing = ("SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass "
                   "AND NOT tgisinternal")
        drop = 'DROP TRIGGER "{}" ON events'
    with engine.begin() as conn:
        names: list[str] = [str(row[0]) for row in conn.execute(text(listing))]
        for name in names:
            conn.execute(text(drop.format(name)))
    assert names, "the events table had no triggers to drop"


def tamper(url: str, statement: str, **values: object) -> None:
    """Run one statement on the events of a database, past its immutability triggers."""
    engine = make_engine(url)
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("DROP TRIGGER events_no_update"))
            conn.execute(text("DROP TRIGGER events_no_delete"))
        else:
            conn.execute(text("DROP TRIGGER events_no_update_delete ON events"))
        conn.execute(text(statement), values)
    engine.dispose()

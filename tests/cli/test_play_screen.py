"""`scat play`'s screen, driven headless with Textual's pilot: keys only, locally and through --server."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import click
import pytest

from scat_cli.screen.app import PlayScreenApp, ResignDialog
from scat_cli.screen.panes import coloured
from scat_cli.settings import CliState
from scat_cli.wiring import open_database
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.service.games import GameService
from tests.support.clock import HandClock
from tests.support.databases import migrated
from tests.support.live_server import server_in_thread

#: How long a test waits at most for the screen to show what a key (or another player) did.
GUARD_SECONDS = 60


def seats(*names: str) -> list[PlayerSeat]:
    """Players in seat order; a name ending in "-bot" is a bot."""
    return [PlayerSeat(name=name, is_bot=name.endswith("-bot")) for name in names]


def context(**given: Any) -> click.Context:
    """The command context `scat play` runs in (its global options: --db or --server)."""
    return click.Context(click.Command("play"), obj=CliState(**given))


@pytest.fixture
def local(cli_db: str) -> Iterator[tuple[click.Context, GameService[Any]]]:
    """The context and the game service of a fresh SQLite database."""
    games = open_database(migrated(cli_db))
    yield context(db_url=cli_db), games
    games.store.engine.dispose()


def screen(ctx: click.Context, games: Any, game_id: str, player: str, token: str | None = None) -> PlayScreenApp:
    """The play screen of `player` in `game_id`, as `scat play` opens it."""
    shown = games.show(game_id, player, token, look=False)  # no look: a face-down hand stays so (R23)
    return PlayScreenApp(ctx, games, shown, player, token)


async def until(pilot: Any, done: Callable[[], bool], what: str) -> None:
    """Let the screen run until `done()` (a generous guard against a hang, not a time to meet)."""
    deadline = time.monotonic() + GUARD_SECONDS
    while not done():
        assert time.monotonic() < deadline, f"the screen never showed {what}"
        await pilot.pause(0.02)


async def press(pilot: Any, app: PlayScreenApp, key: str) -> None:
    """Press `key` and wait until the screen shows what it did (the call done, no newer event unshown)."""
    await pilot.press(key)
    await until(pilot, lambda: not app.busy and app.newest_seen <= app.shown.state.version, f"the result of {key}")


def text_of(app: PlayScreenApp, widget: str) -> str:
    """The plain text a widget of the screen shows."""
    return str(app.query_one(f"#{widget}").render())


def run(test: Callable[[], Awaitable[None]]) -> None:
    """Run an async test body (the pilot is async; the suite has no asyncio plugin)."""
    asyncio.run(test())


def choose(keys: list[str], turns: int) -> str:
    """A key among those offered: 31 first, then a knock after a few turns, a draw (from the stock
    and the discard pile in turn), a discard."""
    for key in ("e", *(("k",) if turns > 3 else ()), "d" if turns % 2 else "s", "s", "1", "2", "3", "4"):
        if key in keys:
            return key
    raise AssertionError(f"no move key among {keys}")


def test_a_whole_game_against_two_bots_is_played_with_keys_only_to_its_result(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot", "bob-bot"), options=GameOptions(lives=2), seed=41,
                          dealer="bob-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            turns = 0
            while app.shown.state.status != "finished":
                keys = app.offered_keys()
                if keys == ["r"]:  # not his turn: the bots' moves come by themselves
                    await until(pilot, lambda: app.offered_keys() != ["r"] or app.shown.state.status == "finished",
                                "his turn again")
                    continue
                key = choose(keys, turns)
                turns += key in ("s", "d")
                await press(pilot, app, key)
                assert app.notice == "", app.notice  # only moves offered: nothing refused
                assert turns < 300, "the game never ended"
            assert "Game over:" in text_of(app, "table")
            assert "Hands:" in text_of(app, "table")
            assert app.offered_keys() == []
            assert text_of(app, "keys") == "[m] say   [q] quit"  # talk goes on after the end
            await pilot.press("q")

    run(body)
    assert games.show(game).state.status == "finished"


def test_a_refused_key_shows_the_rule_and_the_screen_goes_on(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot", "bob-bot"), seed=7, dealer="bob-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            assert "1" not in app.offered_keys()  # discarding is not offered before a draw
            await press(pilot, app, "1")
            assert "draw a card first" in text_of(app, "notice") and "(R12)" in text_of(app, "notice")
            await press(pilot, app, "s")
            assert text_of(app, "notice") == ""
            assert app.offered_keys()[:4] == ["1", "2", "3", "4"]
            await pilot.press("q")

    run(body)


def test_resign_asks_first_and_no_keeps_the_player_in_the_game(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot", "bob-bot"), seed=7, dealer="bob-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ResignDialog), "the question")
            await pilot.press("n")
            await until(pilot, lambda: not isinstance(app.screen, ResignDialog), "the question closed")
            assert not games.show(game).state.players[0].resigned
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ResignDialog), "the question again")
            await press(pilot, app, "y")
            await until(pilot, lambda: app.shown.state.status == "finished", "the bots finishing the game")
            assert "resigned in hand 1" in text_of(app, "table")
            await pilot.press("q")

    run(body)
    assert games.show(game).state.players[0].resigned


def test_through_the_server_the_other_players_move_appears_without_a_key(cli_db: str) -> None:
    from scat_cli.remote.client import RemoteGames

    with server_in_thread(cli_db) as url, RemoteGames(url) as mine, RemoteGames(url) as hers:
        made = mine.new_game(seats("you", "eve"), seed=3, dealer="eve")
        game = made.game_id

        async def body() -> None:
            app = screen(context(server=url, server_given=True), mine, game, "you", made.tokens["you"])
            async with app.run_test(size=(80, 24)) as pilot:
                await press(pilot, app, "s")
                await press(pilot, app, "1")
                assert app.offered_keys() == ["r"] and "Waiting for eve." in text_of(app, "status")
                version = app.shown.state.version
                hers.move(game, mine_command("draw", "eve", "stock"), made.tokens["eve"])
                discard = [m.card for m in hers.show(game, "eve", made.tokens["eve"]).moves if m.card]
                hers.move(game, mine_command("discard", "eve", discard[0]), made.tokens["eve"])
                await until(pilot, lambda: app.shown.state.version >= version + 2, "eve's moves")
                assert f"eve drew from the stock and discarded {discard[0]}" in text_of(app, "news")
                assert "Your turn." in text_of(app, "status") and "s" in app.offered_keys()
                await pilot.press("q")

        run(body)


def test_through_the_server_the_screen_reconnects_after_a_restart_says_so_and_shows_the_game_again(
        cli_db: str) -> None:
    """A server restart: the screen says it is reconnecting (with backoff), and once the server is back it
    shows the game as it is now (a move made meanwhile included), its keys offered again."""
    from scat_cli.remote.client import RemoteGames
    from tests.support.live_server import free_port, server_process

    port = free_port()
    first = server_process(cli_db, "--testing", port=port)
    url, _ = first.__enter__()
    stopped: list[bool] = []

    def stop_the_first() -> None:
        if not stopped:
            stopped.append(True)
            first.__exit__(None, None, None)

    try:
        with RemoteGames(url) as mine:
            made = mine.new_game(seats("you", "eve"), seed=3, dealer="eve")
        game = made.game_id

        async def body() -> None:
            with RemoteGames(url) as remote:
                app = screen(context(server=url, server_given=True), remote, game, "you", made.tokens["you"])
                async with app.run_test(size=(80, 24)) as pilot:
                    await press(pilot, app, "s")
                    await press(pilot, app, "1")
                    version = app.shown.state.version
                    assert app.offered_keys() == ["r"]
                    stop_the_first()  # the server stops (a restart: down, then up again)
                    await until(pilot, lambda: "reconnecting (try" in text_of(app, "notice"), "the reconnecting")
                    with server_process(cli_db, "--testing", port=port) as (again, _), RemoteGames(again) as hers:
                        hers.move(game, mine_command("draw", "eve", "stock"), made.tokens["eve"])
                        discard = [m.card for m in hers.show(game, "eve", made.tokens["eve"]).moves if m.card]
                        hers.move(game, mine_command("discard", "eve", discard[0]), made.tokens["eve"])
                        await until(pilot, lambda: app.shown.state.version >= version + 2, "the game after the restart")
                        await until(pilot, lambda: "Reconnected to the server" in text_of(app, "notice"), "the news")
                        assert "Your turn." in text_of(app, "status") and "s" in app.offered_keys()
                        await pilot.press("q")

        run(body)
    finally:
        stop_the_first()


def mine_command(name: str, player: str, argument: str) -> Any:
    """A draw or a discard command of `player`."""
    from scat_core.domain import commands as cmd

    return cmd.Draw(player, argument) if name == "draw" else cmd.Discard(player, argument)  # type: ignore[arg-type]


def test_the_screen_fits_an_80_by_24_terminal_with_the_keys_in_sight(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot", "bob-bot", "cid-bot"), seed=7, dealer="cid-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            keys = app.query_one("#keys").region
            assert keys.bottom <= 24 and keys.right <= 80 and keys.height >= 2
            assert "[s] draw from the stock" in text_of(app, "keys")
            assert "Your hand:" in text_of(app, "table") and "Discard pile:" in text_of(app, "table")
            await pilot.press("q")

    run(body)


def test_no_color_leaves_the_cards_uncoloured(monkeypatch: pytest.MonkeyPatch, local: Any) -> None:
    assert "red" in str(coloured("Your hand: 10H JS").spans)
    assert "red" not in str(coloured("Your hand: 10H JS", colour=False).spans)
    monkeypatch.setenv("NO_COLOR", "1")
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot"), seed=7).game_id
    assert screen(ctx, games, game, "you").no_color


def test_in_a_throw_down_game_the_hand_stays_face_down_until_l_and_t_throws_it_down_unseen(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot", "bob-bot"), options=GameOptions(throw_down=True, lives=5),
                          seed=7, dealer="bob-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "face down" in text_of(app, "table")
            assert app.offered_keys()[:2] == ["l", "t"] and "[t] throw down, unseen (R23)" in text_of(app, "keys")
            assert 0 not in games.show(game).state.looked  # opening the screen is no look
            await press(pilot, app, "t")
            assert app.notice == "", app.notice
            assert "showdown called by you" in text_of(app, "news")
            assert app.shown.state.hand_number == 2 and "face down" in text_of(app, "table")  # the next hand
            await press(pilot, app, "l")
            assert "Your hand:" in text_of(app, "table") and "face down" not in text_of(app, "table")
            assert "t" not in app.offered_keys() and "l" not in app.offered_keys()
            await press(pilot, app, "t")  # looked at: no more a throw down (R23)
            assert "(R23)" in text_of(app, "notice")
            await pilot.press("q")

    run(body)
    assert [event.type for event in games.reading.history(game)].count("ThrowDownCalled") == 1


def test_others_moves_shown_on_the_screen_record_no_look_at_a_face_down_hand(local: Any) -> None:
    ctx, games = local
    made = games.new_game(seats("you", "eve"), options=GameOptions(throw_down=True), seed=3, dealer="you")
    game = made.game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "Waiting for eve." in text_of(app, "status")
            version = app.shown.state.version
            games.move(game, mine_command("draw", "eve", "stock"))
            card = games.show(game, "eve").state.hands[1][0]
            games.move(game, mine_command("discard", "eve", card))
            await until(pilot, lambda: app.shown.state.version >= version + 2, "eve's moves")
            assert f"eve drew from the stock and discarded {card}" in text_of(app, "news")
            assert "face down" in text_of(app, "table") and "t" in app.offered_keys()
            await pilot.press("q")

    run(body)
    assert 0 not in games.show(game).state.looked


def test_the_move_time_left_is_shown_and_counts_down(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot"), options=GameOptions(move_time=3600), seed=7,
                          dealer="ann-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.shown.move_time_left is not None
            assert "You have" in text_of(app, "clock") and "left to move" in text_of(app, "clock")
            app.shown_at -= 125  # as if two minutes had passed since the view came
            await until(pilot, lambda: "57m" in text_of(app, "clock"), "the time left counted down")
            await pilot.press("q")

    run(body)


def test_a_turn_whose_move_time_runs_out_on_the_screen_is_claimed_and_shown(local: Any) -> None:
    ctx, opened = local
    clock = HandClock()
    games = GameService(opened.store, clock)
    game = games.new_game(seats("you", "eve"), options=GameOptions(move_time=60), seed=3, dealer="you").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            # the countdown runs on the real clock from the screen's last look (a loaded machine: 59s)
            assert re.search(r"eve has (1m|5\ds) left to move", text_of(app, "clock")), text_of(app, "clock")
            clock.advance(61)  # eve's time runs out, for the service and for the screen's countdown
            app.shown_at -= 61
            await until(pilot, lambda: app.shown.state.status == "finished", "eve's turn claimed")
            assert "Game over: you won" in text_of(app, "table") and text_of(app, "clock") == ""
            await pilot.press("q")

    run(body)
    assert games.show(game).state.players[1].resigned


def test_a_game_without_a_move_time_shows_no_time_line(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot"), seed=7, dealer="ann-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert text_of(app, "clock") == "" and app.time_left() is None
            await pilot.press("q")

    run(body)


def test_m_opens_a_line_that_says_a_message_at_the_table_and_escape_closes_it_unsaid(local: Any) -> None:
    ctx, games = local
    game = games.new_game(seats("you", "ann-bot"), seed=41, dealer="ann-bot").game_id

    async def body() -> None:
        app = screen(ctx, games, game, "you")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("m", *"never mind", "escape")
            await pilot.press("m", *"good luck", "enter")
            await until(pilot, lambda: not app.busy and bool(app.shown.messages), "the message shown")
            assert "you (" in text_of(app, "talk") and "): good luck" in text_of(app, "talk")
            assert "never mind" not in text_of(app, "talk")
            await pilot.press("q")

    run(body)
    said = [stored.event for stored in games.reading.history(game) if stored.type == "MessageSaid"]
    assert [(event.player, event.text) for event in said] == [("you", "good luck")]  # type: ignore[union-attr]


def test_a_game_waiting_for_its_players_offers_accept_and_decline_on_keys_and_no_move() -> None:
    """R28: `scat play` on a pending game shows who is awaited (the table) and the keys a and x."""
    from scat_cli.screen import keys as keymap
    from scat_core.service.games import GameService
    from scat_core.store.memory import MemoryStore

    games = GameService(MemoryStore(), server=True)
    pending = games.new_game_of_accounts(seats("ann", "bob", "cy-bot"), viewer="ann")
    shown = games.show(pending.game_id)
    assert [(key.key, key.label) for key in keymap.offered(shown.model_copy(update={"viewer": "bob"}))] == [
        ("a", "accept your seat (R28)"), ("x", "decline your seat")]
    assert [key.key for key in keymap.offered(shown.model_copy(update={"viewer": "ann"}))] == ["x"]  # withdraw
    assert keymap.SEAT_KEYS == {"a": "accept", "x": "decline"}

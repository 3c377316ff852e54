"""The server's Notifier (push.py): a wait ends with the game's change (told from any thread), with
the server stopping, or with its timeout, and says which."""

from __future__ import annotations

import asyncio
import threading

from scat_cli.server.push import ANY, Notifier


def test_a_wait_with_no_change_runs_out_and_says_so() -> None:
    notifier = Notifier()
    assert asyncio.run(notifier.wait("g1", notifier.version("g1"), 0.05)) is False


def test_a_change_told_from_another_thread_ends_the_wait_of_its_game_and_of_any_game() -> None:
    notifier = Notifier()

    async def waits() -> list[bool]:
        seen, anything, other = notifier.version("g1"), notifier.version(ANY), notifier.version("g2")
        asyncio.get_running_loop().call_later(0.05, threading.Thread(target=notifier.changed, args=("g1",)).start)
        return list(await asyncio.gather(notifier.wait("g1", seen, 60), notifier.wait(ANY, anything, 60),
                                         notifier.wait("g2", other, 0.3)))

    assert asyncio.run(waits()) == [True, True, False]  # g2 did not change: its wait ran out


def test_a_change_before_the_wait_ends_it_at_once() -> None:
    notifier = Notifier()
    seen = notifier.version("g1")
    notifier.changed("g1")
    assert asyncio.run(notifier.wait("g1", seen, 60)) is True


def test_stopping_the_server_ends_every_wait() -> None:
    notifier = Notifier()

    async def waits() -> list[bool]:
        asyncio.get_running_loop().call_later(0.05, notifier.close)
        return list(await asyncio.gather(*(notifier.wait(game, notifier.version(game), 60) for game in ("g1", ANY))))

    assert asyncio.run(waits()) == [True, True]
    assert asyncio.run(notifier.wait("g3", notifier.version("g3"), 60)) is True  # and every later one

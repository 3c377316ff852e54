"""A fan-out to many streams lets the requests being answered go first, for a while (answering.py, #23)."""

from __future__ import annotations

import asyncio

from scat_cli.server.answering import Answering


def test_a_request_is_answered_once_however_often_its_end_is_said() -> None:
    answering = Answering()
    end = answering.begin()
    other = answering.begin()
    end()
    end()  # a stream that streamed, then ended: counted off once
    assert answering.count == 1
    other()
    assert answering.count == 0


def test_a_hand_out_waits_for_the_requests_being_answered_then_goes_on() -> None:
    async def scenario() -> tuple[bool, bool]:
        answering, loop = Answering(), asyncio.get_running_loop()
        end = answering.begin()
        waiting = asyncio.ensure_future(answering.let_through(loop.time() + 3600))
        await asyncio.sleep(0.01)
        held = not waiting.done()
        end()
        await asyncio.wait_for(waiting, 60)
        return held, waiting.done()

    assert asyncio.run(scenario()) == (True, True)


def test_a_hand_out_goes_on_at_its_deadline_however_busy_the_server() -> None:
    async def scenario() -> int:
        answering, loop = Answering(), asyncio.get_running_loop()
        answering.begin()  # a request that never ends
        await asyncio.wait_for(answering.let_through(loop.time() + 0.01), 60)
        return answering.count

    assert asyncio.run(scenario()) == 1

"""How a `--server` wait tries a lost server again: delays doubling to a cap, jittered, within its deadline."""

from __future__ import annotations

import pytest

from scat_cli.errors import ServerLost
from scat_cli.remote.backoff import FIRST_DELAY, MAX_DELAY, Backoff


class Hands:
    """A clock that only sleeping moves, and the notes told."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []
        self.notes: list[str] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def backoff(hands: Hands, deadline: float | None, jitter: float) -> Backoff:
    return Backoff(deadline, jitter=lambda: jitter, sleep=hands.sleep, clock=lambda: hands.now,
                   note=hands.notes.append)


@pytest.mark.parametrize(("jitter", "share"), [(1.0, 1.0), (0.0, 0.5)])
def test_the_delays_double_up_to_the_cap_each_cut_by_the_jitter(jitter: float, share: float) -> None:
    hands = Hands()
    tries = backoff(hands, None, jitter)
    for _ in range(8):
        tries.after(ServerLost("lost the server"))
    wanted = [min(MAX_DELAY, FIRST_DELAY * 2 ** n) * share for n in range(8)]
    assert hands.slept == pytest.approx(wanted)
    assert hands.slept[-1] == pytest.approx(MAX_DELAY * share)
    assert hands.notes == ["scat: note: lost the server; trying again"]  # once per loss, not per try


def test_an_answer_starts_the_delays_again_and_a_new_loss_is_told_again() -> None:
    hands = Hands()
    tries = backoff(hands, None, 1.0)
    tries.after(ServerLost("lost"))
    tries.after(ServerLost("lost"))
    tries.reset()
    tries.after(ServerLost("lost again"))
    assert hands.slept == pytest.approx([FIRST_DELAY, 2 * FIRST_DELAY, FIRST_DELAY])
    assert len(hands.notes) == 2


def test_no_try_is_made_after_the_deadline_the_loss_is_raised_then() -> None:
    hands = Hands()
    tries = backoff(hands, 1.0, 1.0)
    lost = ServerLost("lost the server")
    with pytest.raises(ServerLost) as raised:
        for _ in range(10):
            tries.after(lost)
    assert raised.value is lost
    assert sum(hands.slept) == pytest.approx(1.0)  # the last sleep cut to the deadline
    assert hands.notes == ["scat: note: lost the server; trying again until the wait's timeout"]

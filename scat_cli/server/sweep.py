"""The server's own claims (R28): a background thread claiming the turns whose move time ran out."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from scat_core.domain.errors import ScatError
from scat_core.service.games import GameService

LOG = logging.getLogger("scat.server")
#: How often (seconds) `scat serve` looks for turns out of time, unless --claim-every says otherwise.
CLAIM_EVERY = 2.0


def sweep_once(games: GameService, told: Callable[[str], None]) -> int:
    """Claim every turn out of time now, telling `told` each game claimed; how many were.

    A game another process claimed or moved first is skipped by the service (one claim per
    expiry); one that cannot be claimed (its history damaged, say) is logged and the others go on.
    """
    claimed = 0
    for game_id in games.expired_turns():
        try:
            outcome = games.claim_overdue(game_id)
        except ScatError as error:
            LOG.warning("cannot claim the turn out of move time in game %s: %s", game_id, error)
            continue
        if outcome is not None:
            LOG.info("claimed the turn of a player out of move time in game %s (R28)", game_id)
            told(game_id)
            claimed += 1
    return claimed


def start_sweeping(games: GameService, told: Callable[[str], None], every: float,
                   stop: threading.Event) -> threading.Thread:
    """A daemon thread running `sweep_once` every `every` seconds until `stop` is set; a failed
    sweep (the database away, say) is logged and tried again at the next."""

    def loop() -> None:
        while not stop.wait(every):
            try:
                sweep_once(games, told)
            except Exception as error:  # noqa: BLE001 - a sweep never ends the server
                LOG.warning("claiming turns out of time failed (tried again in %gs): %s", every,
                            str(error).splitlines()[0] if str(error) else type(error).__name__)

    thread = threading.Thread(target=loop, name="scat-claims", daemon=True)
    thread.start()
    return thread

"""`scat wait --exec CMD`: the user's command run once the wait returns, told what happened in its environment.

CMD is one shell command line, run by `/bin/sh -c CMD` (so `$SCAT_GAME` and quotes work as in
a terminal), with scat's own standard streams. Its environment adds SCAT_GAME (the game's id;
empty when `wait --any` timed out), SCAT_PLAYER, SCAT_EVENT (`your-turn`, `game-over`,
`invitation`, `cancelled` or `timeout`) and SCAT_SERVER (the `--server` URL, or empty).
Scat's exit code stays its own: a CMD that fails or cannot start is one note on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys

YOUR_TURN, GAME_OVER, TIMEOUT = "your-turn", "game-over", "timeout"
#: A game that waits for the player's acceptance (R28), and one cancelled before its first deal.
INVITATION, CANCELLED = "invitation", "cancelled"


def occasion(status: str) -> str:
    """What a wait returned on, by the game's status: its SCAT_EVENT."""
    return {"finished": GAME_OVER, "pending": INVITATION, "cancelled": CANCELLED}.get(status, YOUR_TURN)


def run_hook(command: str, *, game: str | None, player: str, event: str, server: str | None) -> None:
    """Run `command` through the shell with the SCAT_* variables; a failure is a note on stderr."""
    env = {**os.environ, "SCAT_GAME": game or "", "SCAT_PLAYER": player, "SCAT_EVENT": event,
           "SCAT_SERVER": server or ""}
    sys.stdout.flush()
    try:
        done = subprocess.run(["/bin/sh", "-c", command], env=env, check=False)
    except OSError as error:
        print(f"scat: note: --exec could not run {command!r}: {error.strerror}", file=sys.stderr)
        return
    if done.returncode != 0:
        how = f"was stopped by signal {-done.returncode}" if done.returncode < 0 else f"exited {done.returncode}"
        print(f"scat: note: --exec command {how}: {command}", file=sys.stderr)

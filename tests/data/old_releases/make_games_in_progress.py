"""How the databases of games in progress in this folder were made (kept for the record; do not rerun).

Each `*.sqlite` file here is a database written by an older release of scat, as a user who
upgrades with games in progress has it: games of every mix of options, stopped at varied
points (just dealt, after a knock, mid-turn holding 4 cards, after a throw down), by that
release's own `scat` executable. `games_in_progress.json` names the commit of each release
and every game with its human players, so a later scat can upgrade the file and play every
game on to its end (tests/service/test_old_games_play_to_their_end.py).

- `rules_v1.sqlite`: commit 030d692, the release before rules version 2 (schema 0004).
- `rules_v2.sqlite`: commit 28a330c, the release before rules version 3 (schema 0012);
  it also has games with a move time (R28).

The release of rules version 2 signs each game's head with its installation's key: the public
key of the one that made `rules_v2.sqlite` is `heads_signed_by` in the json (a user upgrading
has his own key; a test trusts that one, as `scat key trust` would). Both files hold the game of
the referee's report (`h0`, `h1`, throw down and min-knock, h0 to act: h0 knocks, h1 draws and
discards, and the answer of that discard valued h1's unseen new hand).

Usage, with that release's `scat` installed in a virtual environment of its own:
    python tests/data/old_releases/make_games_in_progress.py /path/to/old/venv/bin/scat rules_v1 030d692
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: (flag, value or None) of every on/off option the old releases know; min-knock as 18 or absent.
SWITCHES = ("--three-of-a-kind", "--straight-flush", "--min-knock", "--no-first-round-knock", "--throw-down",
            "--no-dole")


def scat(executable: str, db: str, *args: str) -> str:
    """Run the old `scat` on `db` and return its standard output (failing loudly)."""
    done = subprocess.run([executable, "--db", db, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scat {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def shown(executable: str, db: str, game: str, player: str | None = None) -> dict[str, object]:
    args = ["show", game, "--json"] + (["--as", player] if player else [])
    return json.loads(scat(executable, db, *args))


def play_some(executable: str, db: str, game: str, moves: int, knock_first: bool) -> None:
    """Make up to `moves` moves for the humans: draw from the stock and discard the card
    drawn, knocking at the first chance when `knock_first`; a move the rules refuse ends it."""
    for step in range(moves):
        public = shown(executable, db, game)
        if public["status"] != "active" or public["turn"] is None:
            return
        player = str(public["turn"])
        if public["phase"] == "draw":
            if knock_first and step == 0:
                done = subprocess.run([executable, "--db", db, "knock", game, "--as", player],
                                      capture_output=True, text=True)
                if done.returncode == 0:
                    continue
            scat(executable, db, "draw", game, "--as", player, "stock")
        else:
            hand = shown(executable, db, game, player)["hand"]
            assert isinstance(hand, list)
            scat(executable, db, "discard", game, "--as", player, str(hand[-1]))


def main() -> None:
    executable, name, commit = sys.argv[1:4]
    target = HERE / f"{name}.sqlite"
    target.unlink(missing_ok=True)
    db = f"sqlite:///{target}"
    scat(executable, db, "db", "upgrade")
    games: list[dict[str, object]] = []
    # The referee's game: rules version 1 or 2 alike, h0 to act first with a hand he may knock.
    referee = ["--player", "h0", "--player", "h1", "--dealer", "h1", "--throw-down", "--min-knock", "1", "--seed", "5"]
    game = scat(executable, db, "new", *referee, "--quiet").split()[0]
    games.append({"game_id": game, "humans": ["h0", "h1"], "options": referee, "moves": 0})
    for index, chosen in enumerate(itertools.product((False, True), repeat=len(SWITCHES))):
        options: list[str] = ["--lives", str(1 + index % 2)]
        for switch, on in zip(SWITCHES, chosen, strict=True):
            if on:
                options += [switch, "18"] if switch == "--min-knock" else [switch]
        if name != "rules_v1" and index % 8 == 3:
            options += ["--move-time", "2d"]  # R28 arrived with rules version 2's releases
        seats = ["--player", "ann", "--bot", "bot", "--player", "cid"] if index % 3 else ["--player", "ann",
                                                                                         "--player", "cid"]
        game = scat(executable, db, "new", *seats, *options, "--seed", str(1000 + index), "--quiet").split()[0]
        moves = index % 7  # 0 (just dealt) to 6; an odd count stops mid-turn, holding 4 cards
        play_some(executable, db, game, moves, knock_first=index % 5 == 1)
        games.append({"game_id": game, "humans": ["ann", "cid"], "options": seats + options, "moves": moves})
    index_file = HERE / "games_in_progress.json"
    recorded = json.loads(index_file.read_text()) if index_file.exists() else {}
    keys = subprocess.run([executable, "key", "show", "--json"], capture_output=True, text=True)  # none in v1
    signer = json.loads(keys.stdout)["public_key"] if keys.returncode == 0 else None
    recorded[name] = {"commit": commit, "file": target.name, "games": games, "heads_signed_by": signer}
    index_file.write_text(json.dumps(recorded, indent=2) + "\n")


if __name__ == "__main__":
    main()

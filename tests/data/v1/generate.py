"""How the rules-version-1 histories in this folder were made (kept for the record; do not rerun).

They were exported by the scat of commit f2863d2 (the last release of rules version 1), with
this script: humans are played by the heuristic bot's move through the service, and every
game is exported with the real `scat export` command. Rerunning it with a newer scat makes
rules-version-2 games, which is not what these files are: they are histories from the past,
kept byte for byte so that every later scat must import, audit and finish them under rules
version 1.

`in_progress.jsonl` is a game exported while running (with its seed and salt in games.json);
`in_progress_finished_by_v1.jsonl` is the same game played on to its end by `play` under
version 1: a later scat playing on from `in_progress.jsonl` with `play` must record the same
moves and outcomes. (`play` was written in this script; it now lives in tests/support/v1_play.py.)

Usage (from the repository root, at that commit): python tests/data/v1/generate.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.options import GameOptions
from scat_core.service.games import GameService
from tests.support.v1_play import play

HERE = Path(__file__).resolve().parent
SCAT = str(Path(sys.executable).with_name("scat"))


def seats(*names: str) -> list[ev.PlayerSeat]:
    """Seats; a name starting with 'bot' is a bot."""
    return [ev.PlayerSeat(name=name, is_bot=name.startswith("bot")) for name in names]


def export(db: str, game_id: str, name: str, running: bool = False) -> None:
    """`scat export` the game as jsonl into this folder."""
    args = [SCAT, "--db", db, "export", game_id, "--format", "jsonl", "-o", str(HERE / f"{name}.jsonl")]
    subprocess.run(args + (["--running"] if running else []), check=True)


def has_31_at_showdown(service: GameService, game_id: str) -> bool:
    """Whether some showdown of the game valued a hand at 31."""
    return any(isinstance(s.event,
                          ev.ShowdownHeld) and 31 in s.event.values.values() for s in service.reading.history(game_id))


def main() -> None:
    """Make the games and export them."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/v1.db"
        service = open_database(db)
        made: dict[str, dict[str, object]] = {}

        game = service.playing.create_game(seats("ann", "botbob", "botcy"), seed=7, dealer="botcy").game_id
        play(service, game)
        export(db, game, "standard")
        made["standard"] = {"game_id": game}

        options = GameOptions(
            lives=2, three_of_a_kind=True, straight_flush=True, min_knock=20, no_first_round_knock=True, no_dole=True
        )
        game = service.playing.create_game(seats("dan", "botemma", "eve", "botfay"), options=options, seed=11).game_id
        play(service, game)
        export(db, game, "options")
        made["options"] = {"game_id": game}

        # R23 in version 1: a throw down after a knock is allowed (the caller takes the knocker's place).
        for seed in range(1, 400):
            game = service.playing.create_game(
                seats("botgus", "hal"), options=GameOptions(throw_down=True), seed=seed, dealer="hal"
            ).game_id
            play(service, game, throw_down_after_knock=True)
            if any(isinstance(s.event, ev.ThrowDownCalled) for s in service.reading.history(game)):
                export(db, game, "throw_down_after_knock")
                made["throw_down_after_knock"] = {"game_id": game, "seed": seed}
                break

        # R20 in version 1: a 31 at a showdown is just the highest hand.
        for seed in range(1, 400):
            game = service.playing.create_game(seats("ivy", "botjo", "botkim", "botlu"), seed=seed).game_id
            play(service, game)
            if has_31_at_showdown(service, game):
                export(db, game, "thirty_one_at_showdown")
                made["thirty_one_at_showdown"] = {"game_id": game, "seed": seed}
                break

        game = service.playing.create_game(
            seats("mo", "botnell", "pat"), options=GameOptions(throw_down=True, lives=2), seed=23, protect=False
        ).game_id
        play(service, game, throw_down_first=True)
        export(db, game, "throw_down")
        made["throw_down"] = {"game_id": game}

        # A game in progress: exported with --running, and its secret kept so tests can play on.
        game = service.playing.create_game(
            seats("quin", "botrae", "sam"), options=GameOptions(throw_down=True), seed=31, dealer="sam"
        ).game_id
        play(service, game, stop_after=60)
        export(db, game, "in_progress", running=True)
        with service.store.read() as tx:
            secret = tx.get_secret(game)
        assert secret is not None
        made["in_progress"] = {"game_id": game, "seed": secret.seed, "salt": secret.salt}
        # ... and how version 1 finished it: the same driver played on to the end.
        play(service, game, throw_down_after_knock=True)
        export(db, game, "in_progress_finished_by_v1")

        (HERE / "games.json").write_text(json.dumps(made, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()

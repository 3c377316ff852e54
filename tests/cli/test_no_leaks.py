"""Through whole random games, nothing printed for `--as you` shows a hidden card.

A hidden card is one in another player's hand or in the stock that no event has shown to
everyone (a discard, a card taken from the discard pile, a showdown, a declaration).
`show`, `log` and `replay` are checked, human and JSON output, against the true state that
the service folds from the stored events.
"""

from __future__ import annotations

import random

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import commands as cmd
from scat_core.domain.evolve import evolve
from scat_core.domain.legal import play_moves
from scat_core.domain.state import GameState
from scat_core.service.games import GameService
from tests.support.cli import EVERY_MODE, Scat
from tests.support.databases import migrated
from tests.support.hidden import YOU, cards_in, check_log, check_view, hidden_from_you, public_cards, publicly_shown

pytestmark = EVERY_MODE


def play_randomly(scat: Scat, games: GameService, game: str, rng: random.Random) -> int:
    """Play `you` at random through the CLI, checking every view; return the moves made."""
    moves = 0
    for _ in range(300):
        state = games.playing.look(game)
        seat = state.seat_of(YOU)
        if state.status == "finished" or seat is None or state.players[seat].out:
            break
        history = [stored.event for stored in games.reading.history(game)]
        check_view(scat, state, "show", game, "--as", YOU, shown=publicly_shown(history))
        if moves % 4 == 0:
            check_log(scat, game, history)
            seq = rng.randint(1, len(history))
            then = GameState()
            for event in history[:seq]:
                then = evolve(then, event)
            check_view(scat, then, "replay", game, "--to", str(seq), "--as", YOU,
                       shown=public_cards(history[seq - 1], then))
        choice = rng.choice(play_moves(state, seat))
        args = {
            cmd.Draw: lambda m: ["draw", game, "--as", YOU, m.source],
            cmd.Discard: lambda m: ["discard", game, "--as", YOU, m.card],
            cmd.Knock: lambda m: ["knock", game, "--as", YOU],
            cmd.Declare31: lambda m: ["declare", game, "--as", YOU],
        }[type(choice)](choice)
        state_before = state
        result = scat(*args)
        assert result.exit_code == 0, result.output
        after = games.playing.look(game)
        if after.status != "finished":
            # what the command printed (your move, the bots' answers, the new state) hides the rest
            revealed_since = {c for e in [s.event for s in games.reading.history(game)][state_before.version:]
                              for c in public_cards(e, after)}
            leaked = cards_in(result.stdout) & hidden_from_you(after, revealed_since)
            assert not leaked, f"{' '.join(args)} shows {leaked}:\n{result.stdout}"
        moves += 1
    return moves


@pytest.mark.parametrize("seed", [3, 17, 2024, 7, 99])
def test_random_games_never_show_you_a_hidden_card(scat: Scat, scat_json: Scat, games_db: str, seed: int) -> None:
    rng = random.Random(seed)
    game = scat_json("new", "--bot", "ann", "--player", YOU, "--bot", "bob", "--seed", str(seed),
                     "--lives", "3", "--min-knock", "15")["game_id"]
    games = open_database(migrated(games_db))
    try:
        moves = play_randomly(scat, games, game, rng)
        assert moves > 5
        final = [stored.event for stored in games.reading.history(game)]
    finally:
        games.store.engine.dispose()
    ended = scat_json("show", game)
    if ended["status"] == "finished":  # once over, everything may be seen, but replay shows the past
        then, seq = GameState(), len(final) // 2
        for event in final[:seq]:
            then = evolve(then, event)
        check_view(scat, then, "replay", game, "--to", str(seq), "--as", YOU, shown=public_cards(final[seq - 1], then))

"""Ratings: a multiplayer Bayesian skill rating (Weng-Lin, the `openskill` package's Plackett-Luce
model) folded over the games played out, from the statistics' lines of each game.

A game's placing is the order its players went out: the winner first, then whoever went out in
the latest hand, and so on; players out in the same hand tie (R25, R27, R28). Games are taken in
the order they were won (the time of their GameWon, then their id), so a rebuild from the events
gives the same ratings to the last digit. Bots are rated too, but never in the same row as a
human of the same name; a game cancelled (R28), abandoned or still running counts for nothing.
The rating shown is the model's conservative ordinal (mu - 3 sigma): it rises as a player's
results become known, not only as he wins.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scat_core.domain.stats import GameLine, PlayerLine


@dataclass(frozen=True)
class PlayerRating:
    """One player's rating: `rating` (the ordinal shown), the model's mu and sigma, his games rated."""

    name: str
    is_bot: bool
    rating: float
    mu: float
    sigma: float
    games: int


def rated(line: GameLine) -> bool:
    """Whether a game's line counts for ratings: won (played out), not cancelled, two players or more."""
    return line.finished and line.winner_key is not None and not line.cancelled and len(line.players) >= 2


def _key(player: PlayerLine) -> str:
    """A player's row: a bot never shares one with a human of the same name."""
    return ("bot:" if player.is_bot else "human:") + player.key


def placing(line: GameLine) -> list[int]:
    """Each seated player's rank (1: the winner), players out in the same hand tied."""
    def standing(player: PlayerLine) -> float:
        return float("inf") if player.key == line.winner_key else player.out_in_hand

    standings = [standing(player) for player in line.players]
    return [1 + sum(other > mine for other in standings) for mine in standings]


def ratings(lines: Iterable[GameLine]) -> list[PlayerRating]:
    """Every rated player's rating over the games of `lines` played out, highest first."""
    from openskill.models import PlackettLuce, PlackettLuceRating

    model = PlackettLuce()
    table: dict[str, PlackettLuceRating] = {}
    names: dict[str, tuple[str, bool]] = {}
    counted: dict[str, int] = {}
    for line in sorted((line for line in lines if rated(line)), key=lambda line: (line.ended_at, line.game_id)):
        keys = [_key(player) for player in line.players]
        teams = [[table.get(key) or model.rating(name=key)] for key in keys]
        ranks = [float(rank) for rank in placing(line)]
        for team, key, player in zip(model.rate(teams, ranks=ranks), keys, line.players, strict=True):
            table[key] = team[0]
            names[key] = (player.name, player.is_bot)
            counted[key] = counted.get(key, 0) + 1
    found = []
    for key, rating in table.items():
        name, is_bot = names[key]
        mu, sigma = float(rating.mu), float(rating.sigma)
        found.append(PlayerRating(name, is_bot, round(mu - 3 * sigma, 2), round(mu, 4), round(sigma, 4), counted[key]))
    return sorted(found, key=lambda found_: (-found_.rating, found_.name.casefold(), found_.is_bot))

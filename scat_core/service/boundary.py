"""The one boundary a front end calls: one method per command, plain typed values in and out.

GameService has these methods over a database; the HTTP client of `scat serve`
(scat_cli.remote.client.RemoteGames) has them over HTTP, each one request to the endpoint of
that method. mypy checks both against this Protocol, so the two cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from scat_core.domain import events as ev
    from scat_core.domain.audit import AuditReport
    from scat_core.domain.commands import PlayerCommand
    from scat_core.domain.options import GameOptions
    from scat_core.records.signing import MoveSignature
    from scat_core.records.stats import StatsReport
    from scat_core.service.values import (
        Dashboard,
        Export,
        GamesPage,
        History,
        Listing,
        Played,
        Progress,
        Ratings,
        SeenEvent,
        Shown,
        SigningKey,
        Skipped,
        Told,
        Waited,
        WaitedAny,
    )


class Games(Protocol):
    """What every CLI command calls: the game service, or its client through `--server`."""

    def resolve_game_id(self, given: str) -> str:
        """The id of the one game whose id is or starts with `given`."""

    def new_game(
        self, players: Sequence[ev.PlayerSeat], *, options: GameOptions | None = None, dealer: str | None = None,
        seed: int | str | None = None, deck: Sequence[str] | None = None, protect: bool = False,
        viewer: str | None = None, open_seats: int = 0, expires: int | None = None,
    ) -> Played:
        """`scat new` (`open_seats` and `expires`: a server's, whose games wait for their players, R28)."""

    def move(self, game_id: str, command: PlayerCommand, token: str | None = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat draw|discard|knock|declare|throw-down|resign` (`signature`: the player's, where moves are signed)."""

    def claim(self, game_id: str, claimer: str | None = None, token: str | None = None,
              signature: MoveSignature | None = None) -> Played:
        """`scat claim` (R28)."""

    def ratings(self, player: str | None = None, rebuild: bool = False) -> Ratings:
        """`scat ratings`."""

    def status(self, player: str) -> Dashboard:
        """`scat status`."""

    def rematch(self, game_id: str, player: str, token: str | None = None) -> Played:
        """`scat rematch`: asking for it counts as accepting it."""

    def accept(self, game_id: str, player: str, token: str | None = None,
               signature: MoveSignature | None = None) -> Played:
        """`scat accept` (R28)."""

    def decline(self, game_id: str, player: str, token: str | None = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat decline`."""

    def join(self, game_id: str, player: str, token: str | None = None,
             signature: MoveSignature | None = None) -> Played:
        """`scat join`."""

    def say(self, game_id: str, player: str, text: str, token: str | None = None,
            signature: MoveSignature | None = None) -> Played:
        """`scat say`: one line said at the game's table by one of its players."""

    def abandon(self, game_id: str, player: str | None = None, token: str | None = None,
                signature: MoveSignature | None = None) -> Played:
        """`scat abandon`: the game given up without a winner by its last human (locally, when no
        human is in it, by the database's owner: `player` None)."""

    def show(self, game_id: str, viewer: str | None = None, token: str | None = None, look: bool = True) -> Shown:
        """`scat show`; `look=False` (`scat play`) records no look: a face-down hand stays face down (R23)."""

    def log(self, game_id: str, viewer: str | None = None, token: str | None = None) -> History:
        """`scat log`."""

    def wait_for_turn(self, game_id: str, player: str, token: str | None = None,
                      timeout: float | None = None, look: bool = True) -> Waited:
        """`scat wait` (`look=False`: a hand still face down stays so, R23)."""

    def wait_for_any_turn(self, player: str, tokens: Mapping[str, str] | None = None,
                          timeout: float | None = None, told: Told | None = None, look: bool = True) -> WaitedAny:
        """`scat wait --any` (`look=False`: a hand still face down stays so, R23)."""

    def watch(self, game_id: str, viewer: str | None = None, token: str | None = None,
              look: bool = True) -> Iterator[SeenEvent]:
        """`scat watch` (`look=False`: a hand still face down stays so, R23)."""

    def replay(self, game_id: str, to: int | None = None, viewer: str | None = None,
               token: str | None = None) -> History:
        """`scat replay`."""

    def game_list(self, status: str | None = None, waiting_for: str | None = None,
                  limit: int | None = None) -> list[Listing]:
        """The games list (newest activity first, at most `limit`; through a server, the signing
        account's games first)."""

    def games_page(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None) -> GamesPage:
        """`scat games`: a page of the list (as `game_list` orders it) and how many games match in all."""

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """`scat audit GAME`."""

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """`scat audit --all`."""

    def export(self, game_id: str, running: bool = False) -> Export:
        """`scat export GAME`."""

    def export_all(self, running: bool = False, progress: Progress | None = None) -> Iterator[Export | Skipped]:
        """`scat export --all`."""

    def signing_key(self) -> SigningKey:
        """`scat key show` of a server: the public key that signs its games' heads."""

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False,
                       source: str = "the history") -> AuditReport:
        """`scat import`."""

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """`scat stats`."""

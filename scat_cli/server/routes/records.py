"""The records: audits and exports (one game, or every game a page at a time), imports, stats.
The work over every game is heavy: each costs the caller's share of heavy work (heavy_work.py;
429 with Retry-After once it is spent)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from scat_cli.server.heavy_work import IMPORT_COST, STATS_COST
from scat_cli.server.routes.deps import Caller, Server
from scat_cli.server.routes.errors import MOVE, ONE_GAME, THROTTLED, responses
from scat_cli.wire import bodies
from scat_core.domain.audit import AuditReport
from scat_core.records.stats import StatsReport
from scat_core.service.archive import AUDIT_PAGE, EXPORT_PAGE
from scat_core.service.values import Audits, Export, Exports

router = APIRouter()
AuditLimit = Annotated[int | None, Query(ge=1, le=bodies.MAX_AUDIT_PAGE,
                                         description="Games in this page (default 50).")]
ExportLimit = Annotated[int | None, Query(ge=1, le=bodies.MAX_EXPORT_PAGE,
                                          description="Games in this page (default 100).")]
After = Annotated[str | None, Query(max_length=bodies.SHORT, description="Where the page starts: the `next` of the "
                                    "page before (none: the first page).")]


@router.get("/games/{game_id}/audit", response_model=AuditReport, responses=responses(*ONE_GAME))
def audit(game_id: str, server: Server, strict: bool = False) -> AuditReport:
    """The audit of one game (its head's signature judged by the keys this server trusts)."""
    return server.games.audit(game_id, strict)


@router.get("/audit", response_model=Audits, responses=responses(*ONE_GAME, s429=THROTTLED))
def audit_all(server: Server, caller: Caller, strict: bool = False, limit: AuditLimit = None,
              after: After = None) -> Audits:
    """The audit of every game, oldest first, a page at a time: at most `limit` games, those after the game
    `after` (the `next` of the page before; the last page has none). A page costs the caller's share
    of heavy work one unit a game (429 and Retry-After when it is spent: heavy_work.py)."""
    server.heavy.take(caller, limit or AUDIT_PAGE)
    return server.games.audit_page(strict, after, limit)


@router.get("/games/{game_id}/export", response_model=Export, responses=responses(*ONE_GAME))
def export(game_id: str, server: Server) -> Export:
    """The full history of a finished game (this server exports no running game)."""
    return server.games.export(game_id, running=False)


@router.get("/export", response_model=Exports, responses=responses(*ONE_GAME, s429=THROTTLED))
def export_all(server: Server, caller: Caller, limit: ExportLimit = None, after: After = None) -> Exports:
    """Every finished game's history, the others skipped with the reason, a page at a time: at most
    `limit` games, those after the game `after` (the `next` of the page before; the last page has none).
    A page costs the caller's share of heavy work one unit a game (429 when it is spent)."""
    server.heavy.take(caller, limit or EXPORT_PAGE)
    return server.games.export_page(False, after, limit)


@router.post("/import", response_model=AuditReport, status_code=201, responses=responses(*MOVE, s429=THROTTLED))
def import_(body: bodies.ImportIn, server: Server, caller: Caller) -> AuditReport:
    """Audit an export and, only if it holds, store it (a share of the caller's heavy work: 429 when spent)."""
    server.heavy.take(caller, IMPORT_COST)
    return server.games.import_records(body.records, body.strict)


@router.get("/stats", response_model=StatsReport, responses=responses(404, s429=THROTTLED))
def stats(server: Server, caller: Caller,
          player: Annotated[str | None, Query(max_length=bodies.SHORT)] = None) -> StatsReport:
    """Figures per player and overall (rebuilding them is the operator's: `scat --db URL stats --rebuild`);
    a share of the caller's heavy work (429 when spent)."""
    server.heavy.take(caller, STATS_COST)
    return server.games.stats(player=player)

"""Property-based fuzzing of the API from its OpenAPI document (schemathesis): no request,
however malformed, gets a 500 or a status its operation does not declare; every path (`POST
/games/{id}/moves` among them) is fuzzed, and a method a path does not take gets 405 with `Allow`."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
import schemathesis.specs.openapi.coverage._operation  # noqa: F401 - as the next
import schemathesis.specs.openapi.schemas  # noqa: F401 - imported while collecting, not beside a test's threads
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error, status_code_conformance

from scat_cli.server import routes
from scat_cli.server.app import create_app


@pytest.fixture
def api_schema(tmp_path: Path) -> Any:
    """The schema of an app over a fresh SQLite database holding one game."""
    app = create_app(f"sqlite:///{tmp_path / 'fuzz.db'}", testing=False, tokens=True, new_games_per_hour=10**6)
    from scat_core.domain.events import PlayerSeat

    seats = [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)]
    app.state.server.games.playing.create_game(seats, protect=True)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_server_error(case: Any) -> None:
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance])


def test_the_fuzzed_paths_are_every_path_and_moves_among_them(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'paths.db'}", tokens=True)
    paths = set(app.openapi()["paths"])
    areas = [importlib.import_module(f"scat_cli.server.routes.{module.name}")
             for module in pkgutil.iter_modules(routes.__path__)]
    served = {route.path for area in areas if hasattr(area, "router") for route in area.router.routes}
    assert "/games/{game_id}/moves" in paths and paths == served


def test_a_method_a_path_does_not_take_gets_405_with_allow(api: httpx.Client) -> None:
    for path, operations in api.get("/openapi.json").json()["paths"].items():
        taken = {method.upper() for method in operations}
        other = next(method for method in ("DELETE", "PUT", "PATCH") if method not in taken)
        refused = api.request(other, path.replace("{game_id}", "g").replace("{prefix}", "g"))
        assert refused.status_code == 405, (other, path, refused.text)
        assert set(refused.headers["allow"].replace(" ", "").split(",")) >= taken, path
        assert refused.json()["exit_code"] == 2

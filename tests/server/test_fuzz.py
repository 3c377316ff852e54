"""Property-based fuzzing of the API from its OpenAPI document (schemathesis): no request,
however malformed, gets a 500."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
import schemathesis.specs.openapi.coverage._operation  # noqa: F401 - as the next
import schemathesis.specs.openapi.schemas  # noqa: F401 - imported while collecting, not beside a test's threads
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from scat_cli.server.app import create_app


@pytest.fixture
def api_schema(tmp_path: Path) -> Any:
    """The schema of an app over a fresh SQLite database holding one game."""
    app = create_app(f"sqlite:///{tmp_path / 'fuzz.db'}", testing=False, tokens=True)
    from scat_core.domain.events import PlayerSeat

    app.state.games.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], protect=True)
    return schemathesis.openapi.from_asgi("/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_server_error(case: Any) -> None:
    case.call_and_validate(checks=[not_a_server_error])

"""The --server client has every method of the one boundary, with the service's parameters."""

from __future__ import annotations

import inspect

from scat_cli.remote.client import RemoteGames
from scat_core.service import GameService
from scat_core.service.boundary import Games


def test_the_service_and_its_http_client_have_every_boundary_method_with_the_same_parameters() -> None:
    methods = [name for name, _ in inspect.getmembers(Games, inspect.isfunction) if not name.startswith("_")]
    assert len(methods) >= 15
    for name in methods:
        wanted = list(inspect.signature(getattr(Games, name)).parameters)
        assert list(inspect.signature(getattr(GameService, name)).parameters) == wanted, name
        assert list(inspect.signature(getattr(RemoteGames, name)).parameters) == wanted, name

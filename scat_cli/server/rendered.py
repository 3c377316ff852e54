"""Responses as sent: JSON, each game state's seats counted from 1, and a value rendered where it was made."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel

from scat_cli.server import wire


class SeatsFromOne(JSONResponse):
    """Every response: JSON, each game state's seats counted from 1 (see `wire.seats_from_one`)."""

    def render(self, content: Any) -> bytes:
        return super().render(wire.seats_from_one(content))


def rendered(value: BaseModel, status_code: int = 200) -> SeatsFromOne:
    """The response of `value`, rendered by the worker thread of the endpoint that made it.

    Returned as a plain value, FastAPI would validate it again against the endpoint's response
    model (one more trip to a worker thread) and render it in the event loop, which every
    request and stream shares: a move's answer cost the loop about as much as the move itself.
    The body is the same: the value's JSON dump by alias, as FastAPI's own rendering makes it.
    """
    return SeatsFromOne(value.model_dump(mode="json", by_alias=True), status_code=status_code)

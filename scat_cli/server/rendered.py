"""A value's response rendered where it was made: by the endpoint's worker thread, not the event loop."""

from __future__ import annotations

from fastapi.responses import Response
from pydantic import BaseModel


def rendered(value: BaseModel, status_code: int = 200) -> Response:
    """The JSON response of `value`, rendered by the worker thread of the endpoint that made it.

    Returned as a plain value, FastAPI would validate it again against the endpoint's response
    model (one more trip to a worker thread) and render it in the event loop, which every
    request and stream shares: a move's answer cost the loop about as much as the move itself.
    The body is the value's JSON by alias (a game state's seats counted from 1, its
    `WireState`), the bytes FastAPI's own rendering makes, written by pydantic in one step
    (half the time of a dict dumped by the json module, which a move's answer took before).
    """
    return Response(value.model_dump_json(by_alias=True), status_code=status_code, media_type="application/json")

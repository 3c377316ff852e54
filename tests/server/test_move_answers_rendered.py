"""A move's answer is rendered by its worker thread (scat_cli/server/rendered.py), in one step by
pydantic: the bytes are those FastAPI's own JSON response would send, names and messages beyond
ASCII included."""

from __future__ import annotations

from fastapi.responses import JSONResponse

from scat_cli.server.rendered import rendered
from scat_core.domain.commands import Draw
from scat_core.domain.events import PlayerSeat
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore


def test_a_move_s_answer_is_the_json_fastapi_would_send() -> None:
    service = GameService(MemoryStore())
    game = service.playing.create_game([PlayerSeat(name="Zoë"), PlayerSeat(name="Bø", is_bot=True)], seed=3,
                                       dealer="Bø").game_id
    service.say(game, "Zoë", "ça va? 🙂 \"quoted\" \\")
    played = service.move(game, Draw("Zoë", "stock"))
    answer = rendered(played, status_code=201)
    assert answer.status_code == 201 and answer.media_type == "application/json"
    assert answer.body == JSONResponse(played.model_dump(mode="json", by_alias=True)).body
    assert "Zoë".encode() in answer.body

"""The server's log writes what a request carries escaped: one line per request, no forged lines, no terminal codes."""

from __future__ import annotations

import io
import logging
import re
import time
from pathlib import Path

import httpx
import pytest

from scat_cli.server.limits import escaped


def test_escaped_text_is_one_printable_ascii_line() -> None:
    assert escaped("/games/x\n2026-12-02 scat serve: GET /key 200") == "/games/x\\n2026-12-02 scat serve: GET /key 200"
    assert escaped("/a\x1b[31mred\r\x00\\é\u202e") == "/a\\x1b[31mred\\r\\x00\\\\\\xe9\\u202e"
    assert escaped("/games/ab12cd34ef") == "/games/ab12cd34ef"  # what is printable stays as it is


def logged_line(caplog: pytest.LogCaptureFixture, text: str) -> list[str]:
    """The server's log lines holding `text`, once there are any: the server logs a request just after answering it."""
    for _ in range(600):
        found = [record.getMessage() for record in caplog.records if record.name == "scat.server" and
                 text in record.getMessage()]
        if found:
            return found
        time.sleep(0.05)
    return []


def test_a_percent_encoded_newline_or_escape_in_a_path_is_logged_escaped(
    api: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="scat.server")
    answer = api.get("/games/x%0A2026-12-02%20scat%20serve:%20forged%0D%1B%5B2J")
    assert answer.status_code == 404
    found = logged_line(caplog, "GET /games/x")
    lines = [record.getMessage() for record in caplog.records if record.name == "scat.server"]
    assert len(found) == 1, lines
    line = found[0]
    assert "/games/x\\n2026-12-02 scat serve: forged\\r\\x1b[2J 404" in line
    assert all(text.isprintable() for text in lines)


def test_serve_writes_an_injected_path_as_one_escaped_line(tmp_path: Path) -> None:
    """The real `scat serve` log (stderr), end to end."""
    from tests.support.live_server import server_process

    with server_process(f"sqlite:///{tmp_path}/served.db") as (base, process):
        httpx.get(f"{base}/games/x%0Aforged%20line%1B%5B31m", timeout=30)
        httpx.get(f"{base}/health", timeout=30)
        log_path = process.log_path  # type: ignore[attr-defined]
        for _ in range(600):  # the server logs each request just after answering it
            with open(log_path, encoding="utf-8") as log:
                text = log.read()
            if "GET /health" in text:
                break
            time.sleep(0.05)
    assert "\x1b" not in text and "\nforged line" not in text
    assert "GET /games/x\\nforged line\\x1b[31m 404" in text


RECORD = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} scat serve: ")


def written(stream: io.StringIO, text: str) -> str:
    """What the log handler wrote, once it holds `text` (the server logs a request just after answering it)."""
    for _ in range(600):
        if text in stream.getvalue():
            break
        time.sleep(0.05)
    return stream.getvalue()


def test_an_unexpected_errors_text_and_traceback_are_logged_escaped_one_line_per_record(
    server_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An exception whose text quotes the request (a game id here) is logged, traceback and all, by
    scat's logger and by uvicorn's: each record one line of printable text, nothing forged."""
    from scat_cli.server import server_log
    from tests.support.live_server import app_in_thread

    stream = io.StringIO()
    with app_in_thread(server_db) as (url, app):
        undo = server_log.install(stream)  # as `scat serve` does, once uvicorn configured its loggers
        try:
            def failing(game_id: str, *args: object, **kwargs: object) -> None:
                raise RuntimeError(f"no game {game_id}")

            monkeypatch.setattr(app.state.server.games, "show", failing)
            answer = httpx.get(f"{url}/games/x%0A2026-12-02%2000:00:00,000%20scat%20serve:%20forged%1B%5B2J",
                               timeout=30)
            assert answer.status_code == 500
            text = written(stream, "Exception in ASGI application")  # uvicorn's record comes last
        finally:
            undo()
    forged = "x\\n2026-12-02 00:00:00,000 scat serve: forged\\x1b[2J"
    assert "\x1b" not in text
    lines = text.splitlines()
    assert all(RECORD.match(line) and line.isprintable() for line in lines), lines
    failed = [line for line in lines if "unexpected error on" in line]
    assert len(failed) == 1 and "Traceback (most recent call last):\\n" in failed[0]
    assert f"RuntimeError: no game {forged}" in failed[0]
    by_uvicorn = [line for line in lines if "Exception in ASGI application" in line]
    assert len(by_uvicorn) == 1 and f"RuntimeError: no game {forged}" in by_uvicorn[0]


def test_every_logger_of_the_server_writes_escaped_lines() -> None:
    """uvicorn's loggers, a library's (through the root logger) and Python's warnings: the same handler, escaped."""
    import warnings

    from scat_cli.server import server_log

    stream = io.StringIO()
    undo = server_log.install(stream)
    try:
        for name in ("uvicorn.error", "uvicorn.access", "uvicorn.asgi", "sqlalchemy.pool", "scat.server"):
            try:
                raise ValueError(f"bad\n{name} forged\x1b[31m")
            except ValueError:
                logging.getLogger(name).error("%s said\r\n%s", name, "fake\u202eline", exc_info=True)
        warnings.warn("a warning\nforged\x1b]0;title\x07", UserWarning, stacklevel=1)
    finally:
        undo()
    # another test's thread of this worker may log meanwhile (a LISTEN connection its dropped database
    # cut): its records are left out, never a line that does not open a record (an unescaped newline)
    ours = ("said", "a warning")
    lines = [line for line in stream.getvalue().splitlines()
             if not RECORD.match(line) or any(word in line for word in ours)]
    assert len(lines) == 6, lines
    assert all(RECORD.match(line) and line.isprintable() and "\x1b" not in line for line in lines)
    assert all("\\n" in line for line in lines)
    assert "uvicorn.access said\\r\\nfake\\u202eline\\nTraceback" in lines[1]
    assert "ValueError: bad\\nuvicorn.access forged\\x1b[31m" in lines[1]
    assert "a warning\\nforged\\x1b]0;title\\x07" in lines[5]

"""The server's log writes what a request carries escaped: one line per request, no forged lines, no terminal codes."""

from __future__ import annotations

import logging
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

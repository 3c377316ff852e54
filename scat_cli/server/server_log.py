"""The log of `scat serve`: one handler for the whole process, every line it writes escaped.

Whoever logs (scat's own `scat.server` logger, uvicorn's error, access and ASGI loggers, any
library through the root logger, Python's warnings), the record reaches the one handler this
module installs, whose filter (scat_cli.server.limits.Escaping) writes it as one printable
line: its message, its arguments, an exception's text and traceback, all escaped. A request's
path, a game id or a player's name with a newline or ESC in it can neither forge a line nor
reach the operator's terminal as a control sequence. A traceback is one line too, its line
breaks written `\\n`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TextIO

from scat_cli.server.limits import Escaping

#: What `scat serve` writes before each record's (escaped) message.
FORMAT = "%(asctime)s scat serve: %(message)s"
#: The loggers that would write elsewhere than the root's handler (uvicorn configures its own
#: handlers): they are sent to the root's.
OWN_HANDLERS = ("scat.server", "uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def install(stream: TextIO | None = None) -> Callable[[], None]:
    """Write every log record of this process to `stream` (stderr by default) through one escaping
    handler; call after uvicorn's Config is made (it configures its loggers then). Returns the undo."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(Escaping())
    root = logging.getLogger()
    root.addHandler(handler)
    saved: list[tuple[logging.Logger, list[logging.Handler], bool]] = []
    for name in OWN_HANDLERS:
        logger = logging.getLogger(name)
        saved.append((logger, list(logger.handlers), logger.propagate))
        logger.handlers, logger.propagate = [], True
    server = logging.getLogger("scat.server")
    if server.level == logging.NOTSET or server.level > logging.INFO:
        server.setLevel(logging.INFO)  # one line per request
    logging.captureWarnings(True)  # warnings through the same handler, escaped

    def undo() -> None:
        logging.captureWarnings(False)
        root.removeHandler(handler)
        for logger, handlers, propagate in saved:
            logger.handlers, logger.propagate = handlers, propagate
        handler.close()

    return undo

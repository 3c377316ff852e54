"""The application service: load, fold, decide, append, in one transaction; then bots act."""

from __future__ import annotations

from .games import GameService, Outcome

__all__ = ["GameService", "Outcome"]

"""The application service: load, fold, decide, append, in one transaction; then bots act.

`GameService` and `Outcome` are loaded on first use, so that importing one module of this
package (the `--server` client needs only `values` and `boundary`) loads no other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .games import GameService, Outcome

__all__ = ["GameService", "Outcome"]


def __getattr__(name: str) -> Any:
    """`GameService` and `Outcome`, imported from `games` when first asked for."""
    if name in __all__:
        # start-up time: the service loads on first use, not with the package
        from . import games

        return getattr(games, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""The in-memory adapter of the store's ports: plain dicts, for tests and throwaway games."""

from __future__ import annotations

from scat_core.store.memory.memory import MemoryStore

__all__ = ["MemoryStore"]

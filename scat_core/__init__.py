"""Scat core: the pure domain and the event store."""

"""Reliability tests: concurrent writers, killed writers, tampering, on SQLite and PostgreSQL."""

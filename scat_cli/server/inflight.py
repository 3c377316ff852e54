"""In-flight requests per server process capped to the database connection pool: the rest wait.

Every endpoint that touches the database runs in anyio's worker threads (FastAPI's sync
endpoints, `run_in_threadpool`), which share one limiter per event loop, 40 threads by
default. With more threads than pooled connections the extra threads only queue inside the
pool (and time out there after `pool_timeout`); capped to the pool, the excess requests wait
for a thread instead, in arrival order, and none fails for it (uvicorn's `limit_concurrency`
would answer 503 instead).
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.pool import QueuePool

#: Without a bounded pool (SQLite in memory, NullPool): anyio's own default.
UNBOUNDED = 40


def pool_capacity(engine: Engine) -> int:
    """How many connections the engine's pool hands out at once (its size plus its overflow)."""
    pool = engine.pool
    if not isinstance(pool, QueuePool):
        return UNBOUNDED
    overflow = pool._max_overflow  # noqa: SLF001 (no public name; -1: unbounded)
    return UNBOUNDED if overflow < 0 else max(1, pool.size() + overflow)


def cap_worker_threads(engine: Engine) -> int:
    """Cap this event loop's worker threads (FastAPI's threadpool) to the pool; the cap. Call it in the loop."""
    import anyio.to_thread

    capacity = pool_capacity(engine)
    anyio.to_thread.current_default_thread_limiter().total_tokens = capacity
    return capacity

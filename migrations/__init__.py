"""The Alembic migrations, shipped inside the package as `scat_core._migrations`."""

"""The SQLAlchemy adapter of the store's ports: SQLite and PostgreSQL, the schema owned by Alembic."""

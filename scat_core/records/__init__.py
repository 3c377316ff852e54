"""What the store's ports speak and every backend checks alike (events, rows, signatures, errors); no SQLAlchemy."""

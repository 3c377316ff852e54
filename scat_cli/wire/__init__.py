"""What both sides of HTTP share, loading no FastAPI: the answers and refusals the client reads,
the request bodies the server validates, a move's body, and request signatures (RFC 9421)."""

"""The Scat backend (`scat serve`) and its client (`scat --server URL`).

`wire` holds the request and response models both sides speak (pydantic only); `app` the
FastAPI application (imported only by `scat serve`); `client` the client that the CLI uses
in place of the game service, over `transport` (the standard library's http.client).
Nothing here is imported by `scat --help`.
"""

"""The Scat backend (`scat serve`): FastAPI over the game service, one endpoint per use case.

`app` builds the application (imported only by `scat serve`, scat_cli/serve_command.py),
`routes/` holds its endpoints; `answers` (the refusals, the wire's seats) and `wire` (the
request bodies) are what the `--server` client (scat_cli/remote) shares with it. Nothing here
imports the CLI, and nothing here is imported by `scat --help`.
"""

"""The endpoints of `scat serve`, one router per area; `create_app` (../app.py) includes them all.

`deps.py` holds what the requests share (the server's state, the bearer token, the signing
account, the credential a use case acts as, whose share of heavy work a request spends),
`errors.py` the translation of errors to HTTP (exception handlers, the one table of statuses
and every operation's declared error responses). The routers: `about.py` (/key, /health),
`games.py` (create, list, show, head, log, replay, ids), `moves.py` (`POST /games/{id}/moves`
and its deprecated per-move aliases), `streams.py` (/games/{id}/events, /waiting),
`records.py` (audits, exports, imports, stats), `accounts.py` (/accounts).
"""

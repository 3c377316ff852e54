"""The `--server` client: the game service of a Scat backend over HTTP (`client.RemoteGames`, the
same methods and values as the local service), its connection (`transport`), the user's
identity there (`identity`: requests signed with the user's key), the servers known by their
keys (`known_servers`) and the waits that try a lost server again (`backoff`). It imports
nothing of the database side; what it shares with the server (the refusals, the bodies) is
in scat_cli/wire/ (answers.py, move_request.py, httpsig.py), which loads no FastAPI.
"""

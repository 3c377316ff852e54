"""`scat serve`: run the Scat backend (FastAPI on uvicorn) over a database."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import socket
from enum import StrEnum
from typing import Annotated

import typer

from scat_cli.settings import state

DEFAULT_PORT = 8031


class Registration(StrEnum):
    """Who may register an account on a server (`scat serve --registration`)."""

    OPEN = "open"
    INVITE = "invite"
    CLOSED = "closed"


def refuse_server(ctx: typer.Context, command: str) -> None:
    """Exit 2 when a server is in force (--server, SCAT_SERVER, config.toml): `command` needs the database itself."""
    if state(ctx).server:
        from scat_core.domain.errors import BadInput

        raise BadInput(f"`scat {command}` works on a database, not through --server (unset --server/SCAT_SERVER, "
                       "or give --db URL, which beats a server in config.toml)")


def listen(host: str, port: int) -> socket.socket:
    """The socket `scat serve` listens on, bound as uvicorn binds it; BadInput (exit 2) when it cannot be.

    uvicorn's own `Config.bind_socket` logs the raw OSError and exits 3 (the contract's
    "authentication failed"): scat binds first and says what to change instead.
    """
    import errno

    from scat_core.domain.errors import BadInput

    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    sock = socket.socket(family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # uvicorn's default backlog: connections wait from now on, none is refused
    except (OSError, UnicodeError) as error:  # UnicodeError: a host name IDNA cannot encode
        sock.close()
        if isinstance(error, socket.gaierror | UnicodeError):
            reason = "no such address: give --host an address or host name of this machine"
        elif error.errno == errno.EADDRINUSE:
            reason = "the address is in use (another server?): choose another --port"
        elif error.errno == errno.EADDRNOTAVAIL:
            reason = "this machine has no such address: give --host one of its own (127.0.0.1 by default)"
        elif error.errno == errno.EACCES:
            reason = "permission denied (ports below 1024 need privileges): choose another --port"
        else:
            reason = error.strerror or str(error)
        raise BadInput(f"cannot listen on {where}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def serve(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(metavar="TEXT", help="The address to listen on (loopback by default: put a "
                                      "TLS proxy in front to serve other machines).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, metavar="INT",
                                      help="The TCP port to listen on.")] = DEFAULT_PORT,
    db: Annotated[str | None, typer.Option("--db", metavar="URL", show_default=False,
                                           help="The database (as the global --db; default $SCAT_DB_URL, "
                                           "else the SQLite file in your user data directory).")] = None,
    testing: Annotated[bool, typer.Option("--testing", help="Accept `new --seed` and `new --deck` (whoever "
                                          "creates such a game knows every hand): for tests only.")] = False,
    claim_every: Annotated[float, typer.Option(min=0.1, metavar="SECONDS",
                                               help="How often to look for turns whose move time ran out and "
                                               "claim them (R28).")] = 2.0,
    tokens: Annotated[bool, typer.Option("--tokens", help="Also serve users without an account: games they "
                                         "create are protected by per-game tokens, as before accounts (for a "
                                         "server whose players have not all registered yet).")] = False,
    max_streams_per_address: Annotated[int, typer.Option(
        min=1, metavar="INT", help="The most event streams (`wait`, `watch`, `play`, `wait --any`) one client "
        "address may hold open; one more is refused (HTTP 429 with Retry-After). Behind a proxy every "
        "client has the proxy's address: raise it there.")] = 50,
    max_streams: Annotated[int, typer.Option(
        min=1, metavar="INT", help="The most event streams this process holds open in all; one more "
        "is refused (HTTP 429 with Retry-After).")] = 2000,
    new_games_per_hour: Annotated[int, typer.Option(
        min=1, metavar="INT", help="The most games one account (or, with --tokens, one address) creates an "
        "hour (at most 5 at once); one more is refused (HTTP 429 with Retry-After; the client says when to "
        "try again).")] = 20,
    max_registrations_per_address: Annotated[int, typer.Option(
        min=1, metavar="INT", help="The most registrations (attempts, refused ones included) one client "
        "address may make within an hour; one more is refused (HTTP 429 with Retry-After). The accounts "
        "it has act as ever.")] = 30,
    registration: Annotated[Registration, typer.Option(
        metavar="open|invite|closed", case_sensitive=False,
        help="Who may register an account: anyone (open), whoever has an invite code the operator made with "
        "`scat account invite` on this database (invite), or nobody new (closed).")] = Registration.OPEN,
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        "--trusted-proxy", metavar="ADDRESS", show_default=False,
        help="The address of a proxy of yours in front of the server (repeat it for several): the client "
        "address of a request it forwards is the one its X-Forwarded-For names. From anyone else that "
        "header is ignored (none is trusted by default).")] = None,
    commit_together: Annotated[bool, typer.Option(
        "--commit-together/--commit-alone",
        help="Make the moves that arrive together durable with one commit (each in a savepoint of its own: a "
        "refused move costs only itself; nobody is answered before the commit that holds his move), or "
        "each with a commit of its own.")] = True,
) -> None:
    """Run the Scat backend: the HTTP API for `scat --server URL`.

    Its users are accounts (`scat --server URL account register NAME`): every request is
    signed by its user's key, every game seats accounts and every move is signed by its
    player. Without an account a user reaches only /health, the API documents and
    registering; with --tokens he may also play as before accounts, in games protected by
    per-game tokens that `new` prints once. The OpenAPI document is at /openapi.json, the
    docs at /docs, a health check at /health. Several processes may serve one PostgreSQL
    database. Turns whose move time ran out are claimed within --claim-every seconds (R28),
    once whatever the processes. SIGTERM or Ctrl-C stops it cleanly, finishing the requests
    in flight. One log line per request on stderr.

    Example: scat serve --db postgresql+psycopg://scat@localhost/scat --port 8031
    """
    import logging

    import uvicorn

    from scat_cli.server import server_log
    from scat_cli.server.app import create_app
    from scat_cli.server.protocol import server_config
    from scat_core.store.sql.database import resolve_url

    if db is None:  # its own --db names the database served, whatever server the environment names
        refuse_server(ctx, "serve")
    url = resolve_url(db if db is not None else state(ctx).db_url)
    log = logging.getLogger("scat.server")
    listening = listen(host, port)  # first: a port in use is told before the database is opened
    try:
        app = create_app(url, testing=testing, claim_every=claim_every, tokens=tokens,
                         max_streams_per_address=max_streams_per_address, max_streams=max_streams,
                         new_games_per_hour=new_games_per_hour,
                         max_registrations_per_address=max_registrations_per_address,
                         registration=registration.value, commit_together=commit_together)
    except BaseException:  # e.g. another key than the database's server's: nothing is served
        listening.close()
        raise
    proxies = [address.strip() for address in trusted_proxy or [] if address.strip()]
    config = server_config(app, host=host, port=port, timeout_graceful_shutdown=10,  # X-Forwarded-For: theirs only
                           proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)
    server_log.install()  # after uvicorn configured its loggers (in Config): every line escaped, whoever logs it
    log.info("listening on http://%s:%d%s", host, port,
                                          " (testing: --seed/--deck accepted)" if testing else "")
    # uvicorn finishes the requests in flight on SIGTERM/SIGINT, then raises the signal again
    # for the handler it found: ours lets `scat serve` end normally (exit 0).
    import signal

    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, lambda *_: None)
    # Without TCP_NODELAY, a response written as headers then body waits ~40 ms for the
    # client's delayed ACK (Nagle): accepted connections inherit the option on Linux.
    listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    uvicorn.Server(config).run(sockets=[listening])
    log.info("stopped")

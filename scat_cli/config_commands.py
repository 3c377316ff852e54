"""`scat config ...`: the defaults kept in config.toml (server, db, as)."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from typing import Annotated

import typer

from scat_cli.typer_glue import PlainGroup, ScatCommand

config_app = typer.Typer(
    help="Your defaults for --server, --db and --as, in config.toml.\n\n"
    "The file is in your config directory, beside the installation key.\n\n"
    "A flag beats the environment (SCAT_SERVER, SCAT_DB_URL, SCAT_AS), which beats the file.\n\n"
    "Example: scat config set as you",
    no_args_is_help=True,
    cls=PlainGroup,  # a usage error told in one line
)

KeyArg = Annotated[str, typer.Argument(metavar="KEY", show_default=False, help="server, db or as.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


@config_app.command("show", cls=ScatCommand)
def show_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Print each default in force and where it comes from.

    The file's place first, then server, db, as and timezone, each from a flag, the environment
    (SCAT_SERVER, SCAT_DB_URL, SCAT_AS, TZ), config.toml or the default.

    Example: scat config show
    """
    from scat_cli.render import print_json
    from scat_cli.settings import KEYS, chosen, config_path, read_config

    path = config_path()
    values = read_config(path)
    root = ctx.find_root()
    in_force = chosen(root.params.get("db"), root.params.get("server"), values)
    if as_json:
        print_json({"file": str(path), "exists": path.is_file(), "values": values,
                    "in_force": {key: {"value": in_force[key].value, "from": in_force[key].origin}
                                 for key in KEYS}})
        return
    typer.echo(f"file     {path}{'' if path.is_file() else '  (none yet)'}")
    for key in KEYS:
        setting = in_force[key]
        shown = setting.value if setting.value is not None else "(not set)"
        typer.echo(f"{key:<8} {shown}  [{setting.origin}]")


@config_app.command("set", cls=ScatCommand)
def set_command(
    ctx: typer.Context,
    key: KeyArg,
    value: Annotated[str, typer.Argument(metavar="VALUE", show_default=False,
                                         help="A server URL, a database URL, a player name, or a time zone.")],
) -> None:
    """Set one default in config.toml; a bad value changes nothing.

    server and db exclude each other: unset the one before setting the other. The file is
    replaced atomically.

    Example: scat config set server https://scat.example.org
    """
    from scat_cli.settings import read_config, value_problem, write_config
    from scat_core.domain.errors import BadInput
    from scat_core.domain.names import normalize_name

    problem = value_problem(key, value) or (_as_problem(ctx, value) if key == "as" else None)
    if problem:
        raise BadInput(problem)
    values = read_config()
    other = {"server": "db", "db": "server"}.get(key)
    if other in values:
        raise BadInput(f"config.toml sets {other} already: run `scat config unset {other}` first")
    values[key] = normalize_name(value) if key == "as" else value.strip()
    path = write_config(values)
    typer.echo(f"{key} = {values[key]}  (in {path})")


@config_app.command("unset", cls=ScatCommand)
def unset_command(key: KeyArg) -> None:
    """Remove one default from config.toml.

    Example: scat config unset db
    """
    from scat_cli.settings import config_path, key_problem, read_config, unknown_keys, write_config
    from scat_core.domain.errors import BadInput

    if key in unknown_keys():  # one this scat does not know (a typo, or a newer scat's): removed all the same
        path = write_config(read_config(), dropped=key)
        typer.echo(f"{key} unset (in {path})")
        return
    problem = key_problem(key)
    if problem:
        raise BadInput(problem)
    values = read_config()
    if key not in values:
        typer.echo(f"{key} was not set (in {config_path()})")
        return
    del values[key]
    path = write_config(values)
    typer.echo(f"{key} unset (in {path})")


def _as_problem(ctx: typer.Context, name: str) -> str | None:
    """What is wrong with `name` as the default `--as` where it will be used: on the server in force, where
    this user's key is an account, he acts as that account only (another name is exit 3 on every command)."""
    from scat_cli.remote.identity import account_at
    from scat_cli.settings import chosen, read_config
    from scat_core.domain.names import normalize_name

    root = ctx.find_root()
    server = chosen(root.params.get("db"), root.params.get("server"), read_config())["server"].value
    if not server:
        return None
    account = (account_at(server.strip().rstrip("/")) or {}).get("name")
    if account is None or normalize_name(name).casefold() == account.casefold():
        return None
    return (f"on {server} your key is the account {account}, and a server lets you act only as your account: "
            f"as = {name!r} would be refused there on every command (your account is the default already: "
            "leave `as` unset)")

"""Every command and group of the CLI, by name: the module and function that holds each, imported on use."""

from __future__ import annotations

#: Every command: name -> (module, function). Modules are imported, and the click command
#: built, only when that command runs (or help lists them): `scat show` builds one command.
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("scat_cli.play", "new"),
    "games": ("scat_cli.play", "games"),
    "show": ("scat_cli.play", "show"),
    "draw": ("scat_cli.play", "draw"),
    "discard": ("scat_cli.play", "discard"),
    "knock": ("scat_cli.play", "knock"),
    "declare": ("scat_cli.play", "declare"),
    "throw-down": ("scat_cli.play", "throw_down"),
    "resign": ("scat_cli.play", "resign"),
    "claim": ("scat_cli.play", "claim"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.audit_commands", "audit"),
    "export": ("scat_cli.export_command", "export"),
    "import": ("scat_cli.import_command", "import_"),
    "stats": ("scat_cli.stats_command", "stats"),
    "rules": ("scat_cli.rules_command", "rules"),
    "serve": ("scat_cli.server.command", "serve"),
    "wait": ("scat_cli.waiting", "wait"),
    "watch": ("scat_cli.waiting", "watch"),
    "play": ("scat_cli.screen.command", "play"),
    "version": ("scat_cli.version_command", "version"),
}


#: The groups of commands: name -> (module, Typer app), imported only when one of their commands
#: runs (or help lists them): `scat show` loads none.
GROUPS: dict[str, tuple[str, str]] = {
    "db": ("scat_cli.db_commands", "db_app"),
    "key": ("scat_cli.key_commands", "key_app"),
    "account": ("scat_cli.account_commands", "account_app"),
    "config": ("scat_cli.config_commands", "config_app"),
}

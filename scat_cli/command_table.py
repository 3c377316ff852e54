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
    "abandon": ("scat_cli.play", "abandon"),
    "say": ("scat_cli.play", "say"),
    "accept": ("scat_cli.play", "accept"),
    "decline": ("scat_cli.play", "decline"),
    "join": ("scat_cli.play", "join"),
    "rematch": ("scat_cli.play", "rematch"),
    "status": ("scat_cli.status_command", "status"),
    "ratings": ("scat_cli.stats_command", "ratings"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.audit_commands", "audit"),
    "export": ("scat_cli.export_command", "export"),
    "import": ("scat_cli.import_command", "import_"),
    "stats": ("scat_cli.stats_command", "stats"),
    "rules": ("scat_cli.rules_command", "rules"),
    "serve": ("scat_cli.serve_command", "serve"),
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


#: What `scat --help` lists for each command and group: the first sentence of its help (its
#: function's docstring; a group's `help`), kept here so that listing them imports none of their
#: modules (tests/cli/test_typer_glue.py holds each to its help).
SUMMARIES: dict[str, str] = {
    "new": "Create a game and deal; bots play until a human must.",
    "games": "List games, newest activity first, with whose turn it is.",
    "show": "Show a game; with --as, that player's own hand too.",
    "draw": "Draw the top card of the stock or of the discard pile (R12).",
    "discard": "Discard a card from your hand (R12, R13).",
    "knock": "Knock instead of drawing (R14-R16).",
    "declare": "Declare 31: everyone else loses a life (R20-R22).",
    "throw-down": "Call a throw down, unseen: all hands are shown (R23).",
    "resign": "Leave the game for good, at any time, in turn or not (R27).",
    "claim": "Claim the turn of a player out of move time (R28).",
    "abandon": "Give a game up for good: it ends without a winner.",
    "say": "Say one line at the game's table.",
    "accept": "Accept your seat in a game waiting for its players (R28).",
    "decline": "Decline your seat, or withdraw your game: it is cancelled.",
    "join": "Take the first open seat of a game (see `scat games --open`).",
    "rematch": "Ask for another game with the same players and options.",
    "status": "What waits for you, in all your games.",
    "ratings": "A rating per player, over every game played out.",
    "log": "The event log, one line per event.",
    "replay": "Show a game rebuilt from its events, as after event SEQ.",
    "audit": "Verify games from their events alone; exit 1 if one fails.",
    "export": "Export histories as jsonl, json or a text transcript.",
    "import": "Load exported games after auditing each and its signature.",
    "stats": "Statistics per player and overall, over every game.",
    "rules": "Print the rules of Scat, or one rule by its number.",
    "serve": "Run the Scat backend: the HTTP API for `scat --server URL`.",
    "wait": "Wait for NAME's turn (or the game's end), then show it.",
    "watch": "Print each event of a game as it happens.",
    "play": "Play one game full-screen, a key per move.",
    "version": "Print scat's version, rules versions and schema revision.",
    "db": "Database maintenance.",
    "key": "The key that signs each game's head.",
    "account": "Your account on a server (your key, known there by a name).",
    "config": "Your defaults for --server, --db and --as, in config.toml.",
}

"""`scat version`: this scat's version, the rules versions it plays and the schema revision it writes."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import re

import typer

from scat_cli.render import print_json
from scat_cli.typer_glue import Json

_REVISION = re.compile(r'^revision(?::[^=]*)?=\s*["\']([^"\']+)["\']', re.MULTILINE)
_DOWN = re.compile(r'^down_revision(?::[^=]*)?=\s*["\']([^"\']+)["\']', re.MULTILINE)


def version(as_json: Json = False) -> None:
    """Print scat's version, rules versions and schema revision.

    The rules versions scat plays (and the one new games get) and the database schema
    revision it writes.

    Read from the installed package and its migration scripts: no database is opened.

    Example: scat version
    """
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    from typing import get_args

    from scat_core.domain.events import RULES_VERSION, RulesVersion

    try:
        scat: str | None = installed("scat")
    except PackageNotFoundError:
        scat = None
    rules, schema = [int(number) for number in get_args(RulesVersion)], schema_head()
    if as_json:
        print_json({"scat": scat, "rules_versions": rules, "rules_version_of_new_games": RULES_VERSION,
                    "schema_revision": schema})
        return
    typer.echo(f"scat {scat or '(version unknown: not installed as a package)'}")
    typer.echo(f"rules versions {', '.join(map(str, rules))} (new games: {RULES_VERSION})")
    typer.echo(f"schema revision {schema}")


def schema_head() -> str:
    """The newest revision of the Alembic scripts shipped with scat: the one no other script follows."""
    from importlib.resources import files

    revisions, followed = set(), set()
    for script in files("scat_core._migrations.versions").iterdir():
        if script.name.endswith(".py"):
            text = script.read_text(encoding="utf-8")
            revisions.update(_REVISION.findall(text))
            followed.update(_DOWN.findall(text))
    heads = sorted(revisions - followed)
    return heads[0] if len(heads) == 1 else "+".join(heads)

"""`scat import FILE|DIR ...`: load exports after auditing each, one or many, with a summary of the many."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli.audit_commands import report_json, signature_note
from scat_cli.render import print_json, progress, recorded, say
from scat_cli.settings import state
from scat_cli.typer_glue import Json
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.domain.audit import AuditReport
    from scat_core.domain.errors import ScatError
    from scat_core.service.boundary import Games

#: The files of a folder that are imported: what `export --all` writes in json or jsonl.
EXPORT_SUFFIXES = (".json", ".jsonl")


@dataclass
class Outcome:
    """What became of each file of a bulk import."""

    imported: list[tuple[str, AuditReport, list[dict[str, Any]]]] = field(default_factory=list)  # with records
    already_here: list[tuple[str, str]] = field(default_factory=list)  # (file, game id)
    refused: list[tuple[str, ScatError]] = field(default_factory=list)


def import_(ctx: typer.Context,
            files: Annotated[list[Path], typer.Argument(
                metavar="FILE|DIR...", show_default=False,
                help="json or jsonl exports, or folders of them (as `export --all` writes); '-': stdin.")],
            strict: Annotated[bool, typer.Option(
                "--strict", help="Refuse an export that is unsigned or signed by a key not trusted here.")] = False,
            as_json: Json = False) -> None:
    """Load exported games after auditing each and its signature.

    A tampered history, a head signature that does not verify, or a game already here is
    refused (exit 1). Nothing of a game is written unless its whole history holds. An export signed
    by a key this installation does not know, or not signed, is imported and said so
    (refused with --strict). From then on the game's head is signed by this installation;
    the export's signature is kept. An imported running game can be shown, replayed and
    audited, not played on (its secret seed stays behind).
    Several files, or a folder (its .json and .jsonl files): each is imported on its own,
    with a progress bar on a terminal, then a summary (imported, already here, refused and
    why); exit 1 if one was refused. --json then prints {"imported": [...], "already_here":
    [...], "refused": [...], "ok": ...}.

    Example: scat import game.jsonl
    """
    from scat_core.domain.errors import BadInput

    if len(files) == 1 and not files[0].is_dir():
        _import_one(ctx, files[0], strict, as_json)
        return
    if any(str(file) == "-" for file in files):
        raise BadInput("'-' (an export on stdin) is read alone: give it as the only FILE")
    sources = _sources(files)
    outcome = Outcome()
    with service(ctx) as games, progress("importing") as told:
        for done, (path, problem) in enumerate(sources, start=1):
            _import_into(games, path, problem, strict, outcome)
            if told is not None:
                told(done, len(sources))
    if outcome.imported:
        recorded(ctx, f"{len(outcome.imported)} game{'' if len(outcome.imported) == 1 else 's'} were imported; "
                      "see `scat games`")
    _tell(outcome, as_json, state(ctx).server)
    if outcome.refused:
        raise typer.Exit(1)


def _sources(given: list[Path]) -> list[tuple[Path, str | None]]:
    """Each file to import, in the order given (a folder's export files sorted), with why it cannot be read, if so."""
    found: list[tuple[Path, str | None]] = []
    for path in given:
        if not path.is_dir():
            found.append((path, None))
            continue
        inside = sorted(child for child in path.iterdir()
                        if child.suffix.casefold() in EXPORT_SUFFIXES and child.is_file())
        if not inside:
            found.append((path, f"the folder {path} holds no .json or .jsonl export"))
        found += [(child, None) for child in inside]
    return found


def _import_into(games: Games, path: Path, problem: str | None, strict: bool, outcome: Outcome) -> None:
    """Import one file, noting in `outcome` what became of it (a refusal is noted, not raised)."""
    from scat_core.domain.errors import AlreadyImported, BadInput, ScatError

    try:
        if problem is not None:
            raise BadInput(problem)
        records = _read(path)
        report = games.import_records(records, strict, f"the history in {path}")
    except AlreadyImported as error:
        outcome.already_here.append((str(path), error.game_id or "?"))
    except ScatError as error:
        outcome.refused.append((str(path), error))
    else:
        outcome.imported.append((str(path), report, records))


def _tell(outcome: Outcome, as_json: bool, server: str | None) -> None:
    """The summary of a bulk import: a JSON document, or a line per file then one line in all."""
    from scat_cli.command_lines import runnable
    from scat_cli.errors import exit_code, wording

    if as_json:
        print_json({"imported": [{"file": file, **report_json(report, server)} for file, report, _ in outcome.imported],
                    "already_here": [{"file": file, "game_id": game} for file, game in outcome.already_here],
                    "refused": [{"file": file, "error": wording(error), "exit_code": exit_code(error)}
                                for file, error in outcome.refused],
                    "ok": not outcome.refused})
        return
    for file, report, records in outcome.imported:
        say(f"imported game {report.game_id} from {file}: {_imported_note(report, records, server)}")
    for file, game in outcome.already_here:
        say(f"already here: game {game} ({file}): not imported again")
    for file, error in outcome.refused:
        say(runnable(f"scat: refused {file}: {wording(error)}"), err=True)
    refused = f", {len(outcome.refused)} refused ({', '.join(file for file, _ in outcome.refused)})" \
        if outcome.refused else ", 0 refused"
    say(f"{len(outcome.imported)} imported, {len(outcome.already_here)} already here{refused}")


def _imported_note(report: AuditReport, records: list[dict[str, Any]], server: str | None) -> str:
    """How an import went: its events, and what its export's signature proves (a pasteable `key trust` if unknown)."""
    from scat_cli.command_lines import command_line, runnable
    from scat_core.service.signatures import export_signature

    signature = export_signature(records) if report.signature == "unknown key" else None
    trust = command_line("scat", "key", "trust", signature.public_key) if signature is not None else None
    signed = signature_note(report.signature, report.signature_key_id, report.signature_signer, "export", server,
                            trust)
    return runnable(f"{report.events} events, audited OK; {signed}")


def _read(file: Path) -> list[dict[str, Any]]:
    """The records of the export in `file` ('-': stdin); NotFound or BadInput when it cannot be read."""
    from scat_core.domain.errors import BadInput, NotFound
    from scat_core.service.exports import read_export

    try:
        if str(file) == "-":
            return read_export(sys.stdin.buffer, "stdin")
        with file.open("rb") as stream:
            return read_export(stream, str(file))
    except FileNotFoundError:
        raise NotFound(f"no file {file}") from None
    except IsADirectoryError:
        raise BadInput(f"{file} is a folder, not an export file") from None
    except OSError as error:
        raise BadInput(f"cannot read {file}: {error.strerror}") from None


def _import_one(ctx: typer.Context, file: Path, strict: bool, as_json: bool) -> None:
    """One FILE: imported, or its refusal is the command's error (with that error's exit code)."""
    records = _read(file)
    with service(ctx) as games:
        report = games.import_records(records, strict, f"the history in {file}")
        recorded(ctx, f"game {report.game_id} was imported; see `scat show {report.game_id}`")
    if as_json:
        print_json({**report_json(report, state(ctx).server), "imported": True})
        return
    say(f"imported game {report.game_id}: {_imported_note(report, records, state(ctx).server)}")

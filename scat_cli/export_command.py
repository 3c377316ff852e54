"""`scat export`: a game's history, or every game's, as jsonl, json or a text transcript."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli.command_lines import runnable
from scat_cli.render import escape_strings, print_json, progress, say
from scat_cli.settings import state
from scat_cli.typer_glue import Json
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.service.values import Skipped


class Format(StrEnum):
    """Export formats."""

    jsonl = "jsonl"
    json = "json"
    text = "text"


def _file_in(folder: Path, game_id: str, fmt: Format) -> Path:
    """DIR/<game_id>.<format> for a valid game id; never a path outside `folder`."""
    path = folder / f"{game_id}.{fmt.value if fmt is not Format.text else 'txt'}"
    if path.parent.resolve() != folder.resolve() or path.name.startswith("."):
        raise AssertionError(f"unsafe file name for game {game_id!r}")  # unreachable for a valid id
    return path


def _write(path: Path, text: str, follow_links: bool = True) -> None:
    """Write `text` to `path`; with follow_links=False, never through a symbolic link there."""
    import os

    from scat_core.domain.errors import BadInput, NotFound

    try:
        if follow_links:
            path.write_text(text, encoding="utf-8")
        else:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
            with os.fdopen(os.open(path, flags, 0o644), "w", encoding="utf-8") as out:
                out.write(text)
    except FileNotFoundError:
        raise NotFound(f"cannot write {path}: its folder does not exist") from None
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror}") from None


def _render_export(records: list[dict[str, Any]], fmt: Format) -> str:
    from scat_cli import transcript
    from scat_core.service import exports

    if fmt is Format.jsonl:
        return exports.to_jsonl(records)
    if fmt is Format.json:
        return exports.to_json(records)
    return transcript.transcript(escape_strings(records))  # for people: nothing raw reaches a terminal


_SUFFIX_FORMATS = {".json": Format.json, ".jsonl": Format.jsonl, ".txt": Format.text, ".text": Format.text}


def export(ctx: typer.Context,
           game: Annotated[str | None, typer.Argument(metavar="GAME", help="The game to export (id or unique start).",
                                                      show_default=False)] = None,
           fmt: Annotated[Format, typer.Option("--format", "-f", metavar="jsonl|json|text",
                                               help="jsonl (one event a line), json (one document) or text "
                                               "(a transcript).")] = Format.jsonl,
           output: Annotated[Path | None, typer.Option(
               "--output", "-o", metavar="FILE|DIR", show_default=False,
               help="Write here instead of stdout (a folder with --all); a FILE ending in .json, "
               ".jsonl or .txt sets the format unless --format is given.")] = None,
           every: Annotated[bool, typer.Option(
               "--all", help="Export every game, one file each, into -o DIR.")] = False,
           running: Annotated[bool, typer.Option(
               "--running", help="Export games still running too (not protected ones): the export "
               "shows every hidden card.")] = False,
           as_json: Json = False) -> None:
    """Export histories as jsonl, json or a text transcript.

    Exports hold every card, hidden ones too (the hands, the stock): a running game is
    exported only with --running, a running protected one not until it has ended. --all
    skips the games it may not export, with a note each. The json document is
    {"format": "scat-export", "version": 1, "game_id", "last_seq", "head_hash", "head_signature",
    "events": [...]}; in jsonl the last line carries "head_signature" (the key id, the public
    key and the signature of the game's head by this installation).
    With -o, --json prints a summary of the files written and the games skipped; without
    -o, --json prints the json document (so no other --format). Without --format, the
    format follows the suffix of -o FILE (.json, .jsonl, .txt), else jsonl.

    Example: scat export 3f2a1b9c0d -o game.txt
    """
    from scat_core.domain.errors import BadInput
    from scat_core.service.values import Skipped

    if (game is None) == (not every):
        raise BadInput("name one GAME or give --all -o DIR (see `scat export --help`)")
    if every and output is None:
        raise BadInput("export --all writes one file per game: give a folder with -o DIR")
    through_server = state(ctx).server is not None
    if running and through_server:
        from scat_cli.serve_command import refuse_server

        refuse_server(ctx, "export --running")  # a server exports no running game (docs/operations.md)
    source = ctx.get_parameter_source("fmt")
    format_given = source is not None and source.name != "DEFAULT"
    if output is not None and not every and not format_given:  # -o game.json writes json
        fmt = _SUFFIX_FORMATS.get(output.suffix.casefold(), fmt)
    if as_json and output is None:
        if fmt is not Format.json and format_given:
            raise BadInput(f"--json without -o prints the json document, not --format {fmt.value}: drop one "
                           "of them, or write the file with -o (then --json prints a summary)")
        fmt = Format.json
    written: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    with service(ctx) as games:
        if game is not None:
            game = games.resolve_game_id(game)
            # Refused for a running game without --running, and for a running protected one.
            exported = games.export(game, running)
            text = _render_export(exported.records, fmt)
            if output is None:
                sys.stdout.write(text)
                sys.stdout.flush()
            else:
                _write(output, text)
                written.append({"game_id": game, "path": str(output), "events": len(exported.records)})
            if exported.running:  # a note only once the export succeeded
                say(f"scat: note: game {game} is still running: this export shows every hidden card", err=True)
            if output is None:
                return
        else:
            assert output is not None
            if output.exists() and not output.is_dir():
                raise BadInput(f"{output} is a file: export --all needs a folder")
            output.mkdir(parents=True, exist_ok=True)
            with progress("exporting") as told:
                for item in games.export_all(running, told):
                    if isinstance(item, Skipped):
                        _skip(skipped, item)
                        continue
                    path = _file_in(output, item.game_id, fmt)
                    _write(path, _render_export(item.records, fmt), follow_links=False)
                    written.append({"game_id": item.game_id, "path": str(path), "events": len(item.records)})
                    if item.running:
                        say(f"scat: note: game {item.game_id} is still running: its export shows every "
                            "hidden card", err=True)
    if as_json:
        print_json({"format": fmt.value, "files": written, "skipped": skipped})
        return
    for file in written:
        say(f"wrote game {file['game_id']} ({file['events']} events, {fmt.value}) to {file['path']}")
    if every:
        games_word = "game" if len(written) == 1 else "games"
        say(f"{len(written)} {games_word} exported to {output}{skipped_summary(skipped, through_server)}")


RUNNING_AND_PROTECTED, RUNNING, DAMAGED = "running and protected", "running", "history damaged"


def _running_hint(through_server: bool, games: str) -> str:
    """What exports the running `games`: --running, on a database only (a server exports none)."""
    return "a server exports no running game" if through_server else f"--running exports {games}"


def _skip(skipped: list[dict[str, Any]], item: Skipped) -> None:
    """List a game `--all` leaves out; a damaged one (or one with a bad id) also noted on stderr, naming its audit."""
    game_id = item.game_id
    if item.reason == "invalid id":
        say(f"scat: note: skipped game {game_id!r}: its id is not one scat makes "
            f"(`scat audit --all` reports it)", err=True)
    elif item.reason == DAMAGED:
        say(runnable(f"scat: note: skipped game {game_id}: history damaged: {item.detail} "
                     f"(`scat audit {game_id}` names the first bad event)"), err=True)
    # A running game skipped is told only in the summary's one line (see `skipped_summary`).
    skipped.append({"game_id": game_id, "reason": item.reason})


def skipped_summary(skipped: list[dict[str, Any]], through_server: bool = False) -> str:
    """"; 3 skipped (1 running and protected, 2 running: --running exports them)", or "".

    Running games skipped are told here only (an export would show their hidden cards).
    """
    if not skipped:
        return ""
    damaged = sum(item["reason"] == DAMAGED for item in skipped)
    guarded = sum(item["reason"] == RUNNING_AND_PROTECTED for item in skipped)
    plain = len(skipped) - guarded - damaged
    several = (guarded > 0) + (plain > 0) + (damaged > 0) > 1
    parts = [f"{guarded} {RUNNING_AND_PROTECTED}" if several else RUNNING_AND_PROTECTED] if guarded else []
    if plain:
        hint = _running_hint(through_server, "them")
        parts.append(f"{plain} {RUNNING}: {hint}" if several else f"{RUNNING}: {hint}")
    if damaged:
        parts.append(f"{damaged} {DAMAGED}" if several else DAMAGED)
    return f"; {len(skipped)} skipped ({', '.join(parts)})"

"""The record of games: `log`, `replay`, `audit`, `export`, `import`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli import render
from scat_cli.common import (
    AsViewer,
    GameArg,
    Json,
    ViewerToken,
    print_json,
    recorded,
    runnable,
    service,
    stderr_is_terminal,
)
from scat_cli.escape import escape_strings, say
from scat_cli.presenter import next_steps, viewer_view
from scat_cli.token_store import token_for

if TYPE_CHECKING:
    from scat_core.domain.audit import AuditReport
    from scat_core.service.values import Skipped


class Format(StrEnum):
    """Export formats."""

    jsonl = "jsonl"
    json = "json"
    text = "text"


@contextmanager
def progress(label: str) -> Iterator[Callable[[int, int], None] | None]:
    """A callback the service tells (games done, games in all), drawing a progress bar on stderr
    when stderr is a terminal and there are two games or more; None otherwise."""
    if not stderr_is_terminal():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, TaskID

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task: list[TaskID] = []

        def told(done: int, total: int) -> None:
            if total < 2:
                return
            if not task:
                task.append(bar.add_task(label, total=total))
            bar.update(task[0], completed=done)

        yield told


def log(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
        as_json: Json = False) -> None:
    """The event log, one line per event.

    Each line: seq, time (UTC), type, what happened. While the game runs, hidden cards
    (other hands, the stock) are left out; with --as you also see your own. Once it is
    over, everything is shown.

    Example: scat log 3f2a1b9c0d --as you
    """
    from scat_core.service.transcript import PublicTable, describe

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        history = games.log(game, player, token_for(ctx, game, player, token))
    # While the game runs, no hashes: with the hash of a redacted event (a card drawn from the
    # stock) and the hash before it, the hidden card is one of 52 tries away.
    hashes = history.state.status == "finished"
    table = PublicTable()
    lines: list[dict[str, Any]] = []
    for seen in history.events:
        line = {"seq": seen.seq, "recorded_at": seen.recorded_at, "type": seen.type,
                "schema_version": seen.schema_version, "data": seen.data, "text": describe(seen.event, table)}
        if hashes:
            line |= {"prev_hash": seen.prev_hash, "hash": seen.hash}
        lines.append(line)
        table.apply(seen.event)
    if as_json:
        print_json({"game_id": game, "viewer": player, "events": lines})
        return
    width = max(len(line["type"]) for line in lines)
    render.print_lines(
        f"{line['seq']:>4}  {line['recorded_at'][:19].replace('T', ' ')}  {line['type']:<{width}}  {line['text']}"
        for line in lines
    )


def replay(ctx: typer.Context, game: GameArg,
           to: Annotated[int | None, typer.Option("--to", metavar="SEQ", show_default=False,
                                                  help="Stop after event SEQ (default: the last).")] = None,
           player: AsViewer = None, token: ViewerToken = None, as_json: Json = False) -> None:
    """Show a game rebuilt from its events, as after event SEQ.

    With --as, show what that player could see at that moment (that player's own hand only).

    Example: scat replay 3f2a1b9c0d --to 12 --as you
    """
    with service(ctx) as games:
        game = games.resolve_game_id(game)
        replayed = games.replay(game, to, player, token_for(ctx, game, player, token))
    state, shown = replayed.state, replayed.events
    view = {**viewer_view(state, player), "replayed_to": state.version}
    if as_json:
        print_json(view)
        return
    from scat_core.service.transcript import PublicTable, describe

    table = PublicTable()
    for seen in shown[:-1]:
        table.apply(seen.event)
    render.plain(f"Replayed to event {state.version} of {game}: {describe(shown[-1].event, table)}")
    render.view_table(view)
    if player and to is None:
        title, steps = next_steps(ctx, state, player, replayed.moves, replayed.read_only)
        if title or steps:
            render.hints(steps, title)


def _report_json(report: AuditReport) -> dict[str, Any]:
    return {"game_id": report.game_id, "ok": report.ok, "events": report.events,
            "first_bad_seq": report.first_bad_seq, "problems": list(report.problems),
            "seed_verified": report.seed_verified, "first_deck_stacked": report.first_deck_stacked,
            "seed_chosen": report.seed_chosen,
            "signature": report.signature, "key_id": report.signature_key_id, "signed_by": report.signature_signer,
            "origin_signature": report.origin_signature, "origin_key_id": report.origin_key_id}


def _signature_note(status: str | None, key_id: str | None, signer: str | None, what: str = "head") -> str:
    """What the signature of a head (or of an export: `what`) proves, for people."""
    if status == "valid":
        by = {"this installation": "this installation's key", "trusted": "a trusted key"}.get(signer or "", "known key")
        return f"{what} signed by {by} {key_id}"
    if status == "unknown key":
        return (f"{what} signed by key {key_id}, which is not known here: NOT verified "
                "(`scat key trust` it if you know it is genuine)")
    if status == "unsigned":
        return f"{what} NOT signed (made before scat signed heads, or its signature was removed)"
    return ""


def _origin_note(report: AuditReport) -> str:
    if report.origin_signature is None:
        return ""
    note = _signature_note(report.origin_signature, report.origin_key_id, None, "export")
    return f"; imported from an {note}" if note else ""


def _deals(report: AuditReport) -> str:
    """How the deals were checked: against the revealed seed, except a first deck given at creation."""
    if not report.seed_verified:
        stacked = "hand 1 from the deck given with --deck; " if report.first_deck_stacked else ""
        return f"deals as recorded ({stacked}the seed is revealed when the game ends)"
    if report.first_deck_stacked:
        return ("hand 1 was dealt from a deck given at creation (--deck); every later deal recomputed "
                "from the revealed seed")
    return "every deal recomputed from the revealed seed"


def _verdict(report: AuditReport) -> str:
    if report.ok:
        seed = _deals(report)
        chosen = ("; the seed was chosen at creation (--seed): its creator could know every hand"
                  if report.seed_chosen else "")
        signed = _signature_note(report.signature, report.signature_key_id, report.signature_signer)
        return (f"game {report.game_id}: OK, {report.events} events: hash chain, rules, invariants "
                f"and {seed}{chosen}" + (f"; {signed}" if signed else "") + _origin_note(report))
    where = f" at event {report.first_bad_seq}" if report.first_bad_seq is not None else ""
    return f"game {report.game_id}: FAILED{where}: {'; '.join(report.problems)}"


def audit(ctx: typer.Context,
          game: Annotated[str | None, typer.Argument(metavar="GAME", help="The game to audit (id or unique start).",
                                                     show_default=False)] = None,
          every: Annotated[bool, typer.Option("--all", help="Audit every game in the database.")] = False,
          strict: Annotated[bool, typer.Option(
              "--strict", help="Also fail a game whose head is unsigned or signed by a key not trusted here.")] = False,
          as_json: Json = False) -> None:
    """Verify games from their events alone; exit 1 if one fails.

    Checks the hash chain and the recorded head, re-decides every event from the rules,
    checks the invariants and, once the seed is revealed, recomputes every deal from it
    (all but a first deck given with `scat new --deck`: "first_deck_stacked" in --json).
    Then the head's signature: one that does not verify fails the audit (the history was
    rewritten); a head unsigned, or signed by a key this installation does not know, is
    said ("signature": "valid" | "invalid" | "unknown key" | "unsigned" in --json) and
    fails only with --strict. `scat key` shows and trusts keys.
    With --all, --json prints {"games": [report, ...], "ok": true|false}.

    Example: scat audit 3f2a1b9c0d
    """
    from scat_core.domain.errors import BadInput

    if (game is None) == (not every):
        raise BadInput("name one GAME or give --all (see `scat audit --help`)")
    with service(ctx) as games:
        if game is not None:
            game = games.resolve_game_id(game)
            reports = [games.audit(game, strict)]
        else:
            with progress("auditing") as told:
                reports = list(games.audit_all(strict, told))
    ok = all(report.ok for report in reports)
    if as_json:
        print_json(_report_json(reports[0]) if game is not None
                   else {"games": [_report_json(r) for r in reports], "ok": ok})
    else:
        for report in reports:
            if game is not None or not report.ok:
                say(_verdict(report))
        if game is None:
            bad = sum(not report.ok for report in reports)
            games_word = "game" if len(reports) == 1 else "games"
            say(f"{len(reports)} {games_word} audited: " + ("all OK" if ok else f"{bad} FAILED")
                + _unverified_summary(reports))
    if not ok:
        raise typer.Exit(1)


def _unverified_summary(reports: list[AuditReport]) -> str:
    """" (2 unsigned, 1 signed by a key unknown here)" for the games whose head is not verified, or ""."""
    unsigned = sum(r.ok and r.signature == "unsigned" for r in reports)
    unknown = sum(r.ok and r.signature == "unknown key" for r in reports)
    parts = [f"{unsigned} unsigned"] if unsigned else []
    if unknown:
        parts.append(f"{unknown} signed by a key unknown here")
    return f" ({', '.join(parts)})" if parts else ""


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
    from scat_core.service import exports, transcript

    if fmt is Format.jsonl:
        return exports.to_jsonl(records)
    if fmt is Format.json:
        return exports.to_json(records)
    return transcript.transcript(escape_strings(records))  # for people: nothing raw reaches a terminal


_SUFFIX_FORMATS = {".json": Format.json, ".jsonl": Format.jsonl, ".txt": Format.text, ".text": Format.text}


def export(ctx: typer.Context,
           game: Annotated[str | None, typer.Argument(metavar="GAME", help="The game to export (id or unique start).",
                                                      show_default=False)] = None,
           fmt: Annotated[Format, typer.Option("--format", "-f", help="jsonl (one event a line), json "
                                               "(one document) or text (a transcript).")] = Format.jsonl,
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
        say(f"{len(written)} {games_word} exported to {output}{_skipped_summary(skipped)}")


RUNNING_AND_PROTECTED, RUNNING, DAMAGED = "running and protected", "running", "history damaged"


def _skip(skipped: list[dict[str, Any]], item: Skipped) -> None:
    """Note on stderr why `--all` leaves a game out, and list it as skipped."""
    game_id = item.game_id
    if item.reason == "invalid id":
        say(f"scat: note: skipped game {game_id!r}: its id is not one scat makes "
            f"(`scat audit --all` reports it)", err=True)
    elif item.reason == DAMAGED:
        say(runnable(f"scat: note: skipped game {game_id}: history damaged: {item.detail} "
                     f"(`scat audit {game_id}` names the first bad event)"), err=True)
    elif item.reason == RUNNING_AND_PROTECTED:
        say(f"scat: note: skipped game {game_id}: it is still running and protected (its export would show "
            "every player's cards)", err=True)
    else:
        say(f"scat: note: skipped game {game_id}: it is still running (its export would show every hidden card; "
            "--running exports it)", err=True)
    skipped.append({"game_id": game_id, "reason": item.reason})


def _skipped_summary(skipped: list[dict[str, Any]]) -> str:
    """"; 3 skipped (1 running and protected, 2 running: --running exports them)", or ""."""
    if not skipped:
        return ""
    damaged = sum(item["reason"] == DAMAGED for item in skipped)
    guarded = sum(item["reason"] == RUNNING_AND_PROTECTED for item in skipped)
    plain = len(skipped) - guarded - damaged
    several = (guarded > 0) + (plain > 0) + (damaged > 0) > 1
    parts = [f"{guarded} {RUNNING_AND_PROTECTED}" if several else RUNNING_AND_PROTECTED] if guarded else []
    if plain:
        parts.append(f"{plain} {RUNNING}: --running exports them" if several else f"{RUNNING}: --running exports them")
    if damaged:
        parts.append(f"{damaged} {DAMAGED}" if several else DAMAGED)
    return f"; {len(skipped)} skipped ({', '.join(parts)})"


def import_(ctx: typer.Context,
            file: Annotated[Path, typer.Argument(metavar="FILE", help="A json or jsonl export ('-': stdin).",
                                                 show_default=False)],
            strict: Annotated[bool, typer.Option(
                "--strict", help="Refuse an export that is unsigned or signed by a key not trusted here.")] = False,
            as_json: Json = False) -> None:
    """Load an exported game after auditing it and its signature.

    A tampered history, a head signature that does not verify, or a game already here is
    refused (exit 1). Nothing is written unless the whole history holds. An export signed
    by a key this installation does not know, or not signed, is imported and said so
    (refused with --strict). From then on the game's head is signed by this installation;
    the export's signature is kept. An imported running game can be shown, replayed and
    audited, not played on (its secret seed stays behind).

    Example: scat import game.jsonl
    """
    from scat_core.domain.errors import BadInput, NotFound
    from scat_core.service.exports import read_export

    try:
        if str(file) == "-":
            records = read_export(sys.stdin.buffer, "stdin")
        else:
            with file.open("rb") as stream:
                records = read_export(stream, str(file))
    except FileNotFoundError:
        raise NotFound(f"no file {file}") from None
    except IsADirectoryError:
        raise BadInput(f"{file} is a folder, not an export file") from None
    except OSError as error:
        raise BadInput(f"cannot read {file}: {error.strerror}") from None
    with service(ctx) as games:
        report = games.import_records(records, strict, f"the history in {file}")
        recorded(ctx, f"game {report.game_id} was imported; see `scat show {report.game_id}`")
    if as_json:
        print_json({**_report_json(report), "imported": True})
        return
    signed = _signature_note(report.signature, report.signature_key_id, report.signature_signer, "export")
    say(f"imported game {report.game_id}: {report.events} events, audited OK; {signed}")

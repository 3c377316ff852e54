"""The record of games: `log`, `replay`, `audit`, `export`, `import`."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

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
    from scat_core.service.games import GameService

T = TypeVar("T")


class Format(StrEnum):
    """Export formats."""

    jsonl = "jsonl"
    json = "json"
    text = "text"


@contextmanager
def progress(items: list[T], label: str) -> Iterator[Iterable[T]]:
    """`items`, with a progress bar on stderr when stderr is a terminal."""
    if not stderr_is_terminal() or len(items) < 2:
        yield items
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        yield bar.track(items, description=label)


def log(ctx: typer.Context, game: GameArg, player: AsViewer = None, token: ViewerToken = None,
        as_json: Json = False) -> None:
    """The event log, one line per event.

    Each line: seq, time (UTC), type, what happened. While the game runs, hidden cards
    (other hands, the stock) are left out; with --as you also see your own. Once it is
    over, everything is shown.

    Example: scat log 3f2a1b9c0d --as you
    """
    from scat_core.domain.events import to_record
    from scat_core.service.transcript import PublicTable, describe

    with service(ctx) as games:
        game = games.resolve_game_id(game)
        state, shown = games.look_at_history(game, player, token_for(ctx, game, player, token))
    # While the game runs, no hashes: with the hash of a redacted event (a card drawn from the
    # stock) and the hash before it, the hidden card is one of 52 tries away.
    hashes = state.status == "finished"
    table = PublicTable()
    lines: list[dict[str, Any]] = []
    for stored, event in shown:
        _, _, data = to_record(event)
        line = {"seq": stored.seq, "recorded_at": stored.recorded_at, "type": stored.type,
                "schema_version": stored.schema_version, "data": data, "text": describe(event, table)}
        if hashes:
            line |= {"prev_hash": stored.prev_hash, "hash": stored.hash}
        lines.append(line)
        table.apply(event)
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
        state, shown = games.look_at_history(game, player, token_for(ctx, game, player, token), up_to=to,
                                             as_then=True)
        read_only = bool(player) and to is None and not as_json and games.is_read_only(game)
    view = {**viewer_view(state, player), "replayed_to": state.version}
    if as_json:
        print_json(view)
        return
    from scat_core.service.transcript import PublicTable, describe

    table = PublicTable()
    for _, event in shown[:-1]:
        table.apply(event)
    render.plain(f"Replayed to event {state.version} of {game}: {describe(shown[-1][1], table)}")
    render.view_table(view)
    if player and to is None:
        title, steps = next_steps(ctx, state, player, read_only)
        if title or steps:
            render.hints(steps, title)


#: What replaying a forged history may raise instead of a verdict; such a history fails.
UNREPLAYABLE = (IndexError, KeyError, TypeError, ValueError)


def _audit(games: GameService, game_id: str, strict: bool = False) -> AuditReport:
    """The audit of one game; a history that cannot even be replayed is a failed audit."""
    from scat_core.domain.audit import AuditReport

    try:
        return games.audit(game_id, strict)
    except UNREPLAYABLE as error:
        return AuditReport(game_id, False, 0, None, [f"the history cannot be replayed: {error!r}"])


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
            reports = [_audit(games, game, strict)]
        else:
            reports = []
            with progress(games.game_ids(), "auditing") as ids:
                reports = [_audit(games, game_id, strict) for game_id in ids]
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
    from scat_core.domain.errors import BadInput, HistoryDamaged, RuleViolation
    from scat_core.domain.names import is_game_id

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
            records = games.export_records(game, running=running)
            text = _render_export(records, fmt)
            if output is None:
                sys.stdout.write(text)
                sys.stdout.flush()
            else:
                _write(output, text)
                written.append({"game_id": game, "path": str(output), "events": len(records)})
            if records[-1]["type"] != "GameWon":  # a note only once the export succeeded
                say(f"scat: note: game {game} is still running: this export shows every hidden card",
                           err=True)
            if output is None:
                return
        else:
            assert output is not None
            if output.exists() and not output.is_dir():
                raise BadInput(f"{output} is a file: export --all needs a folder")
            output.mkdir(parents=True, exist_ok=True)
            ids = games.game_ids()
            running_now = games.running_games()  # id -> protected
            with progress(ids, "exporting") as listed:
                for game_id in listed:
                    if not is_game_id(game_id):  # #14 item 1: a file name is built from a valid id only
                        say(f"scat: note: skipped game {game_id!r}: its id is not one scat makes "
                                   f"(`scat audit --all` reports it)", err=True)
                        skipped.append({"game_id": game_id, "reason": "invalid id"})
                        continue
                    protected = running_now.get(game_id)  # None: not running
                    if protected is not None and (protected or not running):
                        _skip(skipped, game_id, protected)
                        continue
                    try:
                        records = games.export_records(game_id, running=running)
                    except RuleViolation:  # the games list said over, its log says running
                        _skip(skipped, game_id, running)  # with --running, only a protected one is refused
                        continue
                    except HistoryDamaged as damaged:  # the others are still exported
                        say(runnable(f"scat: note: skipped game {game_id}: history damaged: {damaged.reason} "
                                     f"(`scat audit {game_id}` names the first bad event)"), err=True)
                        skipped.append({"game_id": game_id, "reason": DAMAGED})
                        continue
                    path = _file_in(output, game_id, fmt)
                    _write(path, _render_export(records, fmt), follow_links=False)
                    written.append({"game_id": game_id, "path": str(path), "events": len(records)})
                    if records[-1]["type"] != "GameWon":
                        say(f"scat: note: game {game_id} is still running: its export shows every "
                                   "hidden card", err=True)
    if as_json:
        print_json({"format": fmt.value, "files": written, "skipped": skipped})
        return
    for item in written:
        say(f"wrote game {item['game_id']} ({item['events']} events, {fmt.value}) to {item['path']}")
    if every:
        games_word = "game" if len(written) == 1 else "games"
        say(f"{len(written)} {games_word} exported to {output}{_skipped_summary(skipped)}")


RUNNING_AND_PROTECTED, RUNNING, DAMAGED = "running and protected", "running", "history damaged"


def _skip(skipped: list[dict[str, Any]], game_id: str, protected: bool) -> None:
    """Note on stderr that `--all` leaves a running game out, and list it as skipped."""
    if protected:
        why = "it is still running and protected (its export would show every player's cards)"
    else:
        why = "it is still running (its export would show every hidden card; --running exports it)"
    say(f"scat: note: skipped game {game_id}: {why}", err=True)
    skipped.append({"game_id": game_id, "reason": RUNNING_AND_PROTECTED if protected else RUNNING})


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
    from scat_core.domain.errors import BadInput, NotFound, RuleViolation
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
        try:
            report = games.import_records(records, strict)
        except UNREPLAYABLE as error:
            raise RuleViolation(
                f"refused: the history in {file} cannot be replayed ({error!r}): nothing imported"
            ) from None
        recorded(ctx, f"game {report.game_id} was imported; see `scat show {report.game_id}`")
    if as_json:
        print_json({**_report_json(report), "imported": True})
        return
    signed = _signature_note(report.signature, report.signature_key_id, report.signature_signer, "export")
    say(f"imported game {report.game_id}: {report.events} events, audited OK; {signed}")

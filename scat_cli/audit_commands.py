"""Checking histories: `audit`, and the audit reports and signature notes `import` prints too."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from scat_cli.render import print_json, progress, say
from scat_cli.settings import state
from scat_cli.typer_glue import Json
from scat_cli.wiring import service

if TYPE_CHECKING:
    from scat_core.domain.audit import AuditReport


#: Who signed a head, as a server judged it (`signed_by` through --server): its own key is the server's.
SIGNED_BY_THE_SERVER = {"this installation": "the server", "trusted": "trusted by the server"}


def report_json(report: AuditReport, server: str | None = None) -> dict[str, Any]:
    """An audit report as --json prints it; `server`: judged by that server (through --server), whose
    own key `signed_by` names as the server's, not this installation's."""
    signer = SIGNED_BY_THE_SERVER.get(report.signature_signer or "", report.signature_signer) if server \
        else report.signature_signer
    return {"game_id": report.game_id, "ok": report.ok, "events": report.events,
            "first_bad_seq": report.first_bad_seq, "problems": list(report.problems),
            "seed_verified": report.seed_verified, "first_deck_stacked": report.first_deck_stacked,
            "seed_chosen": report.seed_chosen,
            "signature": report.signature, "key_id": report.signature_key_id, "signed_by": signer,
            "origin_signature": report.origin_signature, "origin_key_id": report.origin_key_id,
            "moves_signed": report.moves_signed, "moves_verified": report.moves_verified}


def signature_note(status: str | None, key_id: str | None, signer: str | None, what: str = "head",
                   server: str | None = None, trust: str | None = None) -> str:
    """What the signature of a head (or of an export: `what`) proves, for people.

    `server`: judged by that server (through --server), whose own key it names as the
    server's; `trust`: the command that trusts an unknown key, to paste (else one to complete).
    """
    if status == "valid":
        if server is not None:
            by = {"this installation": f"the server's key (the key of {server})",
                  "trusted": "a key the server trusts"}.get(signer or "", "known key")
        else:
            by = {"this installation": "this installation's key", "trusted": "a trusted key"}.get(signer or "",
                                                                                                "known key")
        return f"{what} signed by {by} {key_id}"
    if status == "unknown key":
        if server is not None:
            return f"{what} signed by key {key_id}, which the server does not know: NOT verified"
        how = (f"if it is its maker's key, as scat key show prints it there, run `{trust}`" if trust
               else "`scat key trust PUBLIC_KEY` with its public key if you know it is genuine")
        return f"{what} signed by key {key_id}, which is not known here: NOT verified ({how})"
    if status == "unsigned":
        return f"{what} NOT signed (made before scat signed heads, or its signature was removed)"
    return ""


def _origin_note(report: AuditReport, server: str | None) -> str:
    if report.origin_signature is None:
        return ""
    note = signature_note(report.origin_signature, report.origin_key_id, None, "export", server)
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


def _verdict(report: AuditReport, server: str | None = None) -> str:
    if report.ok:
        seed = _deals(report)
        chosen = ("; the seed was chosen at creation (--seed): its creator could know every hand"
                  if report.seed_chosen else "")
        signed = signature_note(report.signature, report.signature_key_id, report.signature_signer, "head", server)
        moves = (f"; {report.moves_verified} move{'' if report.moves_verified == 1 else 's'} signed by their "
                 "players' keys, every signature verified"
                 if report.moves_signed else "")
        return (f"game {report.game_id}: OK, {report.events} events: hash chain, rules, invariants "
                f"and {seed}{chosen}{moves}" + (f"; {signed}" if signed else "") + _origin_note(report, server))
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
    rewritten), as does none in a game whose first event says it is signed ("missing");
    a head unsigned, or signed by a key this installation does not know, is said
    ("signature": "valid" | "invalid" | "missing" | "unknown key" | "unsigned" in --json)
    and fails only with --strict. `scat key` shows and trusts keys.
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
        server = state(ctx).server
        print_json(report_json(reports[0], server) if game is not None
                   else {"games": [report_json(r, server) for r in reports], "ok": ok})
    else:
        for report in reports:
            if game is not None or not report.ok:
                say(_verdict(report, state(ctx).server))
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

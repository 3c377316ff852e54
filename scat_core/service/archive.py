"""The archive use cases of the game service: audit, export and import of whole histories."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scat_core.domain import events as ev
from scat_core.domain.audit import AuditReport
from scat_core.domain.errors import AlreadyImported, BadInput, Hint, NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.names import GAME_ID_RE, HEX64_RE, SALT_RE, SEED_RE, is_game_id
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from scat_core.records.errors import CorruptHistory, HistoryDamaged
from scat_core.records.games import GameRow
from scat_core.records.signing import HEAD, ORIGIN
from scat_core.service.loading import SIGNATURE_REMOVED, snapshot_json, summarize_whole
from scat_core.service.playing import with_signers
from scat_core.service.ports import Store
from scat_core.service.signatures import (
    check_import,
    load_signed,
    made_signed,
    origin_of,
    with_export_signature,
    with_signatures,
)
from scat_core.service.values import Audits, Export, Exports, Progress, Skipped

#: What replaying a forged history may raise instead of a verdict; such a history fails.
UNREPLAYABLE = (IndexError, KeyError, TypeError, ValueError)
#: Games per page of audits and of exports (each page a few seconds of work at most, see the server).
AUDIT_PAGE = 50
EXPORT_PAGE = 100


def page_of(ids: Sequence[str], after: str | None, limit: int) -> tuple[list[str], bool]:
    """The at most `limit` ids that follow `after` in `ids` (from the first when None), and whether more follow."""
    start = 0
    if after is not None:
        try:
            start = list(ids).index(after) + 1
        except ValueError:
            raise BadInput(f"no game {after!r} to continue after: ask for the first page again") from None
    return list(ids[start:start + limit]), start + limit < len(ids)

if TYPE_CHECKING:
    from scat_core.domain.accounts import Account


class Archive:
    """Auditing, exporting and importing games over one store."""

    def __init__(self, store: Store, account_of: Callable[[str], Account | None] | None = None) -> None:
        self.store = store
        #: The server's accounts by name (None: no accounts here): the audit checks each signed
        #: move's key was its player's then.
        self.account_of = account_of

    def audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """The audit of one game (see `_audit`); a history that cannot even be replayed fails it."""
        try:
            return self._audit(game_id, strict)
        except UNREPLAYABLE as error:
            return AuditReport(game_id, False, 0, None, [f"the history cannot be replayed: {error!r}"])

    def _audit(self, game_id: str, strict: bool = False) -> AuditReport:
        """Verify a game from its stored events alone, that no tail was cut off, and its head's signature.

        A head signature that does not verify fails the audit; an unsigned head or one signed
        by a key not trusted here is reported (`signature`), and fails only when `strict`.
        A damaged games list entry, or a row the database cannot even read back, is a failed
        audit of that game (never an error that stops `audit --all`).
        """
        try:
            with self.store.read() as tx:
                try:
                    row = tx.get_game(game_id)
                except CorruptHistory as damaged:  # the games list entry, not the log
                    return AuditReport(game_id, False, 0, None, [str(damaged)])
                try:
                    records, head = load_signed(tx, game_id)
                except CorruptHistory:  # misnumbered rows: the audit of the records names the first
                    records = [stored.record() for stored in tx.load_unchecked(game_id)]
                    head = tx.read_signature(game_id, HEAD)
                except NotFound:
                    if row is None:
                        raise
                    problem = f"the games list has game {game_id} at event {row.head_seq} but its log is empty"
                    return AuditReport(game_id, False, 0, 1, [problem + ": events were removed"])
                origin = origin_of(tx, game_id)
        except CorruptHistory as unreadable:  # the store could not read a row back at all
            return AuditReport(game_id, False, 0, None, [str(unreadable)])
        report = with_signatures(self._audit_log(game_id, row, records), self.store.keys, records, head, origin,
                                 strict)
        if self.account_of is not None and origin is None:  # a game played here: its signers are accounts here
            report = with_signers(report, records, self.account_of)
        return report

    @staticmethod
    def _audit_log(game_id: str, row: GameRow | None, records: list[dict[str, Any]]) -> AuditReport:
        """The audit of a game's log and of the head the games list recorded."""
        report = audit_records(records)
        if not report.ok:
            return report
        odd = identifier_problem(fold(ev.from_record(r["type"], r["schema_version"], r["data"]) for r in records))
        if odd is not None:
            return AuditReport(game_id, False, len(records), 1, [f"the history {odd}"])
        if row is None:
            problem = "the games list has no entry for this game, so its last event cannot be checked"
            return AuditReport(game_id, False, len(records), None, [problem])
        if (row.head_seq, row.head_hash) != (records[-1]["seq"], records[-1]["hash"]):
            problem = (
                f"the log ends at event {len(records)} but the game had reached event "
                f"{row.head_seq}: events were removed"
            )
            return AuditReport(game_id, False, len(records), len(records) + 1, [problem])
        return report

    def game_ids(self) -> list[str]:
        """Every game in the database, oldest first."""
        with self.store.read() as tx:
            return tx.game_ids()

    def audit_ids(self) -> list[str]:
        """Every game an audit of everything covers, in its order: listed (oldest first), then only logged."""
        with self.store.read() as tx:
            listed = tx.game_ids()
            logged = tx.logged_game_ids()
        return [*listed, *sorted(set(logged) - set(listed))]

    def audit_all(self, strict: bool = False, progress: Progress | None = None) -> Iterator[AuditReport]:
        """Audit every game in the database (listed, or only logged), one after the other."""
        every = self.audit_ids()
        for done, game_id in enumerate(every):
            if progress is not None:
                progress(done, len(every))
            yield self.audit(game_id, strict)

    def audit_page(self, strict: bool = False, after: str | None = None, limit: int | None = None) -> Audits:
        """The audits of at most `limit` (AUDIT_PAGE) games of `audit_all`'s, those after the game `after` (a
        page's `next`)."""
        every = self.audit_ids()
        ids, more = page_of(every, after, limit or AUDIT_PAGE)
        return Audits(reports=[self.audit(game_id, strict) for game_id in ids], total=len(every),
                      next=ids[-1] if more else None)

    def export(self, game_id: str, running: bool = False) -> Export:
        """A game's full history (see `export_records`: a running game only with `running`, never a protected one)."""
        records = self.export_records(game_id, running=running)
        return Export(game_id=game_id, records=records, running=is_running(records))

    def export_all(self, running: bool = False, progress: Progress | None = None,
                   ids: Sequence[str] | None = None) -> Iterator[Export | Skipped]:
        """Every game it may export (of `ids`, if given), oldest first; the others `Skipped` with the reason:
        an id scat does not make, still running (unless `running`), running and protected, a damaged history."""
        ids = self.game_ids() if ids is None else ids
        running_now = self.running_games()  # id -> protected
        for done, game_id in enumerate(ids):
            if progress is not None:
                progress(done, len(ids))
            if not is_game_id(game_id):  # #14 item 1: a file name is built from a valid id only
                yield Skipped(game_id=game_id, reason="invalid id")
                continue
            protected = running_now.get(game_id)  # None: not running
            if protected is not None and (protected or not running):
                yield Skipped(game_id=game_id, reason="running and protected" if protected else "running")
                continue
            try:
                yield self.export(game_id, running)
            except HistoryDamaged as damaged:  # the others are still exported
                yield Skipped(game_id=game_id, reason="history damaged", detail=damaged.reason)
            except RuleViolation:  # the games list said over, its log says running
                yield Skipped(game_id=game_id, reason="running and protected" if running else "running")

    def export_page(self, running: bool = False, after: str | None = None, limit: int | None = None) -> Exports:
        """At most `limit` (EXPORT_PAGE) of `export_all`'s items, those after the game `after` (a page's `next`)."""
        every = self.game_ids()
        ids, more = page_of(every, after, limit or EXPORT_PAGE)
        return Exports(items=list(self.export_all(running, ids=ids)), total=len(every),
                       next=ids[-1] if more else None)

    def export_records(self, game_id: str, *, running: bool = False) -> list[dict[str, Any]]:
        """The full stored history of a game, one envelope per event; the last carries the head's signature.

        HistoryDamaged when the stored log is not the one the games list recorded (as for a
        command). An export shows every card, hidden ones too (the hands, the stock): a game that is
        still running is refused (RuleViolation) unless `running` is given (`--running`),
        and a running protected one is refused even then, until the game ends.
        """
        with self.store.read() as tx:
            # Checked as a command checks it (HistoryDamaged): a cut or edited log is not exported.
            for _ in range(3):  # on PostgreSQL a move may commit between the two reads: read again
                records = [stored.record() for stored in tx.load_for_command(game_id, use_snapshot=False).events]
                head = tx.read_signature(game_id, HEAD)
                if head is None or head.seq <= records[-1]["seq"]:
                    break
            row = tx.get_game(game_id)
        if head is None and made_signed(records):  # as a command finds it (loading.require_signed_head)
            raise HistoryDamaged(game_id, SIGNATURE_REMOVED)
        records = with_export_signature(records, head)
        still_running = is_running(records)
        protected = row.protected if row is not None else bool(records[0]["data"].get("protected"))
        if still_running and protected:
            raise RuleViolation(
                f"game {game_id} is still running and protected: its export would show every "
                "player's cards; export it when it ends"
            )
        if still_running and not running:
            raise RuleViolation(
                f"game {game_id} is still running: its export would show every hidden card (hands, "
                "the stock); export it when it ends", game_id=game_id, hint=Hint.EXPORT_RUNNING,
            )
        return records

    def running_games(self) -> dict[str, bool]:
        """Every game still running, each with whether it is protected (from the games list)."""
        with self.store.read() as tx:
            return {row.game_id: row.protected for row in tx.list_games(status="active")}

    def import_records(self, records: Sequence[Mapping[str, Any]], strict: bool = False,
                       source: str = "the history") -> AuditReport:
        """Audit an exported history and its head signature and, only if both hold, store it verbatim.

        `source` names the history in a refusal ("the history in game.jsonl").
        """
        if not records:
            raise BadInput("an empty export: nothing to import")
        try:
            return self._import(records, strict)
        except UNREPLAYABLE as error:
            raise RuleViolation(f"refused: {source} cannot be replayed ({error!r}): nothing imported") from None

    def _import(self, records: Sequence[Mapping[str, Any]], strict: bool) -> AuditReport:
        """`import_records`, for a history that can be replayed.

        Its identifiers must have the forms this program makes (game id, seed, salt,
        commitment); player names are checked as `new` checks them, by the audit. The
        report's `signature` is the verdict on the export's signature (kept as the game's
        origin); the head is signed with this installation's key from the import on.
        """
        first = records[0] if records else None
        game_id = first.get("game_id") if isinstance(first, Mapping) else None
        if not isinstance(game_id, str) or not GAME_ID_RE.fullmatch(game_id):
            raise RuleViolation(
                f"refused: {game_id!r} is not a game id scat makes (10 lowercase hex digits): nothing imported"
            )
        report = audit_records(records)
        if not report.ok:
            raise RuleViolation(
                f"refused: the history is invalid or tampered at event {report.first_bad_seq}: {report.problems[0]}"
            )
        report, origin = check_import(self.store.keys, report, records, strict)
        log = [(int(r["seq"]), str(r["recorded_at"]), ev.from_record(r["type"], r["schema_version"], r["data"]))
               for r in records]
        state = fold(event for _, _, event in log)
        problem = identifier_problem(state)
        if problem is not None:
            raise RuleViolation(f"refused: the history of game {report.game_id} {problem}: nothing imported")
        with self.store.transaction() as tx:
            if tx.head(report.game_id) is not None:
                raise AlreadyImported(f"game {report.game_id} is already in this database: nothing imported",
                                      game_id=report.game_id)
            tx.append_many([(records, summarize_whole(state, log), snapshot_json(state))])
            if origin is not None:
                tx.write_signature(report.game_id, ORIGIN, origin.seq, origin.hash, origin.signature)
        return report


def is_running(records: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a game whose history is `records` is still running (the finished test, once)."""
    ended = {ending.__name__ for ending in ev.ENDINGS}
    talk = {kind.__name__ for kind in ev.TALK}
    for record in reversed(records):  # its last event but for the talk after it
        if record["type"] in ended:
            return False
        if record["type"] not in talk:
            return True
    return True


def identifier_problem(state: GameState) -> str | None:
    """What in a game's identifiers is not of the form this program makes, or None."""
    if not GAME_ID_RE.fullmatch(state.game_id):
        return f"has a game id {state.game_id!r} that scat does not make (10 lowercase hex digits)"
    if not HEX64_RE.fullmatch(state.seed_commitment):
        return "has a seed commitment that is not 64 lowercase hex digits"
    if state.seed is not None and not SEED_RE.fullmatch(state.seed):
        return f"reveals a seed {state.seed!r} that is not a decimal integer"
    if state.seed_salt is not None and not SALT_RE.fullmatch(state.seed_salt):
        return "reveals a salt that is not 32 lowercase hex digits"
    return None

"""Signed heads in the archive use cases: what audit, export and import do with signatures.

* audit: the head's signature is judged against the log's own last event; one that does not
  verify fails the audit, and so does none at all in a game whose first event says it is
  signed (MISSING). Unsigned (older) games and keys not trusted here are said, not failed,
  unless `strict`.
* export: the head's signature rides on the last record (`head_signature`).
* import: the export's signature is verified; one that does not verify refuses the import.
  It is kept as the game's "origin" signature; the head is signed here from then on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scat_core.domain.audit import AuditReport
from scat_core.domain.errors import BadInput, RuleViolation
from scat_core.records.errors import NotStrictlySigned
from scat_core.records.signing import (
    HEAD,
    INVALID,
    MISSING,
    ORIGIN,
    UNKNOWN_KEY,
    UNSIGNED,
    VALID,
    HeadSignature,
    KeyRing,
    SignatureCheck,
    StoredSignature,
    check_signature,
)
from scat_core.service.exports import SIGNATURE_FIELD as EXPORT_FIELD
from scat_core.service.ports import UnitOfWork

_RACE_RETRIES = 3


def load_signed(tx: UnitOfWork, game_id: str) -> tuple[list[dict[str, Any]], StoredSignature | None]:
    """The game's records and its head signature, read so that both are of the same head.

    On PostgreSQL each statement sees the newest commit: a move committed between the two
    reads would look like a stale signature, so the log is read again in that case.
    """
    for _ in range(_RACE_RETRIES):
        records = tx.load_raw(game_id)
        head = tx.read_signature(game_id, HEAD)
        if head is None or head.seq <= records[-1]["seq"]:
            break
    return records, head


def origin_of(tx: UnitOfWork, game_id: str) -> StoredSignature | None:
    """The signature an imported game's export carried, or None."""
    return tx.read_signature(game_id, ORIGIN)


def with_signatures(report: AuditReport, keys: KeyRing, records: Sequence[Mapping[str, Any]],
                    head: StoredSignature | None, origin: StoredSignature | None,
                    strict: bool = False) -> AuditReport:
    """`report` with the verdicts on the head's (and origin's) signature; a bad one fails it, and
    with `strict` one that is not valid (unsigned, or by a key not trusted here)."""
    if not records:
        return report
    last = records[-1]
    check = check_signature(keys, head, report.game_id, last["seq"], last["hash"])
    if check.status == UNSIGNED and made_signed(records):
        check = SignatureCheck(MISSING, problem="the head signature was removed, but event 1 says every head of this "
                               "game is signed: its history was cut or rewritten outside scat")
    origin_check = None
    if origin is not None:
        origin_check = check_signature(keys, origin, report.game_id, origin.seq, origin.hash)
        if origin.seq > len(records) or records[origin.seq - 1]["hash"] != origin.hash:
            origin_check = SignatureCheck(INVALID, origin.signature.key_id)
    report = _signed(report, check, origin_check)
    problem = _problem(check, strict)
    if origin_check is not None and origin_check.status == INVALID:
        problem = problem or "the signature the game was imported with does not match its log"
    elif origin_check is not None:  # with `strict`, as `import --strict` judged that signature
        problem = problem or _problem(origin_check, strict, "export this game was imported from")
    if problem is None:
        return report
    return replace(report, ok=False, problems=[*report.problems, problem])


def made_signed(records: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the game's first event says every head of it is signed (GameCreated.signed)."""
    first = records[0] if records else None
    data = first.get("data") if isinstance(first, Mapping) and first.get("type") == "GameCreated" else None
    return isinstance(data, Mapping) and data.get("signed") is True


def _signed(report: AuditReport, check: SignatureCheck, origin: SignatureCheck | None) -> AuditReport:
    return replace(
        report, signature=check.status, signature_key_id=check.key_id, signature_signer=check.signer,
        origin_signature=origin.status if origin else None, origin_key_id=origin.key_id if origin else None,
    )


def _problem(check: SignatureCheck, strict: bool, what: str = "head") -> str | None:
    """Why the `what`'s signature fails an audit (always when invalid; with `strict`, unless valid)."""
    if check.status in (INVALID, MISSING):
        return check.problem or f"the {what} signature does not verify"
    unstrict = _not_strictly_signed(check, what) if strict else None
    return None if unstrict is None else f"{unstrict} (strict audit)"


def _not_strictly_signed(check: SignatureCheck, what: str) -> str | None:
    """Why a signature that is not invalid fails a strict check (None: it is valid)."""
    if check.status == UNKNOWN_KEY:
        return f"the {what} is signed by key {check.key_id}, which is not trusted here"
    if check.status == UNSIGNED:
        return f"the {what} is not signed"
    return None


def export_signature(records: Sequence[Mapping[str, Any]]) -> HeadSignature | None:
    """The head signature an export carries on its last record, or None; RuleViolation if unreadable."""
    value = records[-1].get(EXPORT_FIELD) if records else None
    if value is None:
        return None
    try:
        return HeadSignature.from_json(value)
    except BadInput as error:
        raise RuleViolation(f"refused: {error}: nothing imported") from None


def check_import(keys: KeyRing, report: AuditReport, records: Sequence[Mapping[str, Any]],
                 strict: bool = False) -> tuple[AuditReport, StoredSignature | None]:
    """Judge an export's signature before its import: RuleViolation when it fails; the report and origin."""
    signature = export_signature(records)
    if signature is None and made_signed(records):
        raise RuleViolation("refused: the export's first event says every head of the game is signed, but it "
                            "carries no head_signature (its history was cut, or its signature removed): "
                            "nothing imported")
    last = records[-1]
    origin = None if signature is None else StoredSignature(last["seq"], last["hash"], signature)
    check = check_signature(keys, origin, report.game_id, last["seq"], last["hash"])
    if check.status == INVALID:
        raise RuleViolation("refused: the export's head_signature does not verify (the file was edited, or "
                            "its signature belongs to another history): nothing imported")
    problem = _not_strictly_signed(check, "export") if strict else None
    if problem is not None:
        raise NotStrictlySigned(f"refused: {problem}", after=": nothing imported")
    report = replace(report, signature=check.status, signature_key_id=check.key_id, signature_signer=check.signer)
    return report, (origin if check.status in (VALID, UNKNOWN_KEY) else None)


def with_export_signature(records: list[dict[str, Any]], head: StoredSignature | None) -> list[dict[str, Any]]:
    """The records with the head's signature on the last one (when the game is signed)."""
    if head is None or not records:
        return records
    return [*records[:-1], {**records[-1], EXPORT_FIELD: head.signature.to_json()}]

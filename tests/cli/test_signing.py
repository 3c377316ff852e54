"""Signed heads through the CLI: `scat key`, audits that say what they verified, signed exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from scat_core.store.sql.database import make_engine
from tests.support.cli import CLI_MODES, Scat, finished_game, one_line_error
from tests.support.databases import migrated
from tests.support.domain import made_before_signed_games

SIGNATURE_FIELDS = {"scheme", "key_id", "public_key", "signature"}


def fresh_db(tmp_path: Path, name: str) -> dict[str, str]:
    """The environment of another installation: its own database and its own key."""
    return {"SCAT_DB_URL": migrated(f"sqlite:///{tmp_path / f'{name}.db'}"),
            "SCAT_KEY_FILE": str(tmp_path / name / "key.pem")}


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_key_show_prints_the_public_key_and_creates_the_key_once(scat: Scat, scat_json: Scat, tmp_path: Path) -> None:
    shown = scat_json("key", "show")
    assert shown["algorithm"] == "ed25519" and len(shown["key_id"]) == 16 and len(shown["public_key"]) == 44
    assert shown["key_file"] == str(tmp_path / "xdg-config" / "scat" / "installation-key.pem")
    assert scat_json("key", "show") == shown
    human = scat("key", "show").stdout
    assert f"public key  {shown['public_key']}\n" in human and f"key id      {shown['key_id']}\n" in human
    assert "PRIVATE" not in human and "PRIVATE" not in json.dumps(shown)


def test_key_trust_takes_a_key_or_a_file_and_refuses_anything_else(scat: Scat, scat_json: Scat,
                                                                    tmp_path: Path) -> None:
    other = scat_json("key", "show", env={"SCAT_KEY_FILE": str(tmp_path / "other.pem")})
    third = scat_json("key", "show", env={"SCAT_KEY_FILE": str(tmp_path / "third.pem")})
    assert scat_json("key", "trust", other["public_key"])["added"] is True
    assert scat("key", "trust", other["public_key"]).stdout == f"key {other['key_id']} was trusted already\n"
    exported = tmp_path / "third.json"
    exported.write_text(json.dumps(third))
    assert scat("key", "trust", str(exported)).stdout.startswith(f"trusted key {third['key_id']} (listed in ")
    assert {t["key_id"] for t in scat_json("key", "show")["trusted"]} == {other["key_id"], third["key_id"]}
    for bad in ("not-a-key", scat_json("key", "show")["public_key"]):
        refused = scat("key", "trust", bad)
        assert refused.exit_code == 2 and one_line_error(refused).startswith("scat: error: ")


def test_a_signed_export_round_trips_through_import_in_both_formats(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = finished_game(scat_json)
    mine = scat_json("key", "show")
    records = lines_of(scat("export", game).stdout)
    assert all("head_signature" not in r for r in records[:-1])  # every line stays an event envelope
    assert set(records[-1]["head_signature"]) == SIGNATURE_FIELDS
    assert records[-1]["head_signature"]["public_key"] == mine["public_key"]
    document = json.loads(scat("export", game, "--format", "json").stdout)
    assert document["head_signature"] == records[-1]["head_signature"]
    assert "head_signature" not in document["events"][-1]

    for fmt in ("jsonl", "json"):
        path = tmp_path / f"game.{fmt}"
        scat("export", game, "--format", fmt, "-o", str(path))
        elsewhere = fresh_db(tmp_path, f"elsewhere-{fmt}")
        imported = scat("import", str(path), "--json", env=elsewhere)
        report = json.loads(imported.stdout)
        assert imported.exit_code == 0 and report["imported"] is True
        assert (report["signature"], report["key_id"]) == ("unknown key", mine["key_id"])
        audit = json.loads(scat("audit", game, "--json", env=elsewhere).stdout)
        theirs = json.loads(scat("key", "show", "--json", env=elsewhere).stdout)
        assert (audit["ok"], audit["signature"], audit["key_id"], audit["signed_by"]) == (
            True, "valid", theirs["key_id"], "this installation")
        assert (audit["origin_signature"], audit["origin_key_id"]) == ("unknown key", mine["key_id"])
        strict = scat("audit", game, "--strict", env=elsewhere)  # as `import --strict` would have judged it
        assert strict.exit_code == 1 and f"imported from is signed by key {mine['key_id']}" in strict.output
        scat("key", "trust", mine["public_key"], env=elsewhere)
        assert json.loads(scat("audit", game, "--json", env=elsewhere).stdout)["origin_signature"] == "valid"
        assert scat("audit", game, "--strict", env=elsewhere).exit_code == 0
        # ... and back again: this installation verifies what the other one signed once trusted.
        again = lines_of(scat("export", game, env=elsewhere).stdout)
        assert again[-1]["head_signature"]["key_id"] == theirs["key_id"]


def test_an_export_with_a_tampered_or_borrowed_signature_is_refused_and_nothing_is_written(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game, other = finished_game(scat_json), scat_json("new", "--bot", "ann", "--bot", "bob", "--seed", "12",
                                                       "--lives", "1")["game_id"]
    records = lines_of(scat("export", game).stdout)
    borrowed = lines_of(scat("export", other).stdout)[-1]["head_signature"]
    signature = records[-1]["head_signature"]["signature"]
    flipped = signature[:5] + ("A" if signature[5] != "A" else "B") + signature[6:]
    elsewhere = fresh_db(tmp_path, "elsewhere")
    another_key = scat_json("key", "show", env=elsewhere)["public_key"]
    for forged in ({**records[-1]["head_signature"], "signature": flipped}, borrowed,
                   {**records[-1]["head_signature"], "public_key": another_key}):
        path = tmp_path / "forged.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in [*records[:-1], {**records[-1],
                                                                              "head_signature": forged}]))
        refused = scat("import", str(path), env=elsewhere)
        assert refused.exit_code == 1
        assert one_line_error(refused) == (
            "scat: error: refused: the export's head_signature does not verify (the file was edited, or its "
            "signature belongs to another history): nothing imported")
    assert scat("games", "--json", env=elsewhere).stdout.count(game) == 0
    unreadable = tmp_path / "unreadable.jsonl"
    unreadable.write_text("".join(json.dumps(r) + "\n" for r in [*records[:-1], {**records[-1],
                                                                                "head_signature": "yes"}]))
    assert scat("import", str(unreadable), env=elsewhere).exit_code == 1


def test_an_old_unsigned_export_still_imports_and_says_so_but_not_with_strict(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = finished_game(scat_json)
    records = made_before_signed_games(lines_of(scat("export", game).stdout))  # an older scat's, unsigned
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elsewhere = fresh_db(tmp_path, "elsewhere")
    strict = scat("import", str(path), "--strict", env=elsewhere)
    assert strict.exit_code == 1 and "the export is not signed (--strict): nothing imported" in strict.stderr
    imported = scat("import", str(path), env=elsewhere)
    assert imported.exit_code == 0 and imported.stdout.endswith(
        "audited OK; export NOT signed (made before scat signed heads, or its signature was removed)\n")
    audit = json.loads(scat("audit", game, "--json", env=elsewhere).stdout)
    assert (audit["signature"], audit["origin_signature"]) == ("valid", None)  # signed here from the import on


def test_a_game_that_predates_signing_audits_as_before_but_says_unsigned(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    """A game whose first event does not say it is signed (an older scat's); see test_damaged_history
    for one that says so."""
    game = finished_game(scat_json)
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in made_before_signed_games(
        lines_of(scat("export", game).stdout))))
    older = {**fresh_db(tmp_path, "older"), "SCAT_SERVER": ""}
    assert scat("import", str(path), env=older).exit_code == 0
    engine = make_engine(older["SCAT_DB_URL"])
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM head_signatures WHERE game_id = :g"), {"g": game})
    engine.dispose()
    result = scat("audit", game, env=older)
    assert result.exit_code == 0 and result.stdout.rstrip().endswith(
        "; head NOT signed (made before scat signed heads, or its signature was removed)")
    report = json.loads(scat("audit", game, "--json", env=older).stdout)
    assert report["ok"] and (report["signature"], report["key_id"], report["signed_by"]) == ("unsigned", None, None)
    assert scat("audit", "--all", env=older).stdout == "1 game audited: all OK (1 unsigned)\n"
    strict = scat("audit", game, "--strict", env=older)
    assert strict.exit_code == 1 and "FAILED: the head is not signed (strict audit)" in strict.stdout


def test_a_tampered_signature_in_the_database_fails_the_audit_with_exit_1(scat: Scat, scat_json: Scat,
                                                                         cli_db: str) -> None:
    game = finished_game(scat_json)
    engine = make_engine(cli_db)
    with engine.begin() as conn:
        conn.execute(text("UPDATE head_signatures SET signature = 'AAAA' || substr(signature, 5) "
                          "WHERE game_id = :g"), {"g": game})
    engine.dispose()
    result = scat("audit", game)
    assert result.exit_code == 1
    assert result.stdout == (f"game {game}: FAILED: the head signature does not verify: the history was rewritten "
                             "or the signature altered\n")
    report = json.loads(scat("audit", game, "--json").stdout)
    assert (report["ok"], report["signature"]) == (False, "invalid")


def test_a_game_signed_by_another_installation_audits_as_unknown_key_not_failed(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = finished_game(scat_json)
    elsewhere = {"SCAT_KEY_FILE": str(tmp_path / "elsewhere.pem")}  # the same database, another machine
    result = scat("audit", game, env=elsewhere)
    mine = scat_json("key", "show")["key_id"]
    assert result.exit_code == 0
    assert f"head signed by key {mine}, which is not known here: NOT verified" in result.stdout
    assert scat("audit", "--all", env=elsewhere).stdout == (
        "1 game audited: all OK (1 signed by a key unknown here)\n")
    assert scat("audit", game, "--strict", env=elsewhere).exit_code == 1


def test_an_unusable_config_folder_is_one_clear_error_and_nothing_is_written(scat: Scat, scat_json: Scat,
                                                                             tmp_path: Path) -> None:
    blocker = tmp_path / "config-is-a-file"
    blocker.write_text("")
    result = scat("new", "--player", "you", "--bot", "ann", env={"XDG_CONFIG_HOME": str(blocker)})
    assert result.exit_code == 2
    assert one_line_error(result).startswith(f"scat: error: cannot use the signing key file {blocker}/scat/")
    assert scat_json("games") == scat_json("games") and not scat_json("games").get("games")


def test_an_audit_still_works_where_no_key_can_be_made_and_says_it_cannot_verify(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    game = finished_game(scat_json)
    blocker = tmp_path / "config-is-a-file"
    blocker.write_text("")
    report = json.loads(scat("audit", game, "--json", env={"XDG_CONFIG_HOME": str(blocker)}).stdout)
    assert report["ok"] and report["signature"] == "unknown key"


@pytest.mark.parametrize("cli_mode", CLI_MODES)
def test_the_cli_names_its_own_settings_in_refusals_locally_and_through_a_server(
    scat: Scat, scat_json: Scat, tmp_path: Path
) -> None:
    """The core's errors name no option or variable (their type says which setting); the CLI's line
    names it, for a database and through --server alike."""
    elsewhere = {"SCAT_SERVER": "", "SCAT_DB_URL": f"sqlite:///{tmp_path / 'elsewhere.db'}"}

    def there(*args: str, env: dict[str, str] | None = None) -> Any:
        return scat_json(*args, env={**elsewhere, **(env or {})})

    game = finished_game(there)
    records = made_before_signed_games(lines_of(scat("export", game, env=elsewhere).stdout))
    path = tmp_path / "unsigned.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    strict = scat("import", str(path), "--strict")
    assert strict.exit_code == 1
    assert one_line_error(strict) == "scat: error: refused: the export is not signed (--strict): nothing imported"
    busy = scat("games", env={**elsewhere, "SCAT_BUSY_TIMEOUT": "soon"})
    assert busy.exit_code == 2 and one_line_error(busy) == (
        "scat: error: the wait for a locked database must be a number of seconds, not 'soon' "
        "(set by SCAT_BUSY_TIMEOUT)")


def test_key_trust_of_a_missing_file_says_no_such_file_like_import(scat: Scat, tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "such.pem")
    for command in (("key", "trust", missing), ("import", missing)):
        refused = scat(*command)
        assert refused.exit_code == 4 and one_line_error(refused) == f"scat: error: no file {missing}"
    assert scat("key", "trust", "not-a-key").exit_code == 2  # not a path: still "not a scat public key"

"""Errors carry fields, the CLI words them (#9 point 2): one exit-code table, one hint wording, no CLI in the core."""

from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import scat_cli
import scat_core
from scat_cli import errors as cli_errors
from scat_cli.command_lines import COMMANDS
from scat_cli.errors import EXIT_CODES, HINTS, ServerLost, WaitTimedOut, exit_code, wording
from scat_cli.server.routes.errors import told_to_clients
from scat_cli.wire.answers import HTTP_STATUS, LEGACY_EXIT_CODES, http_status
from scat_cli.wire.bodies import ErrorOut
from scat_core.domain.errors import (
    BRANCHES,
    AccountNameTaken,
    AuthFailed,
    BadInput,
    Hint,
    NotFound,
    RequestRefused,
    RuleViolation,
    ScatError,
    Throttled,
    TimedOut,
    TooManyFailures,
    Unavailable,
)
from scat_core.records.errors import (
    BusyWaitUnreadable,
    ConcurrencyConflict,
    CorruptHistory,
    DatabaseBusy,
    DatabaseNotGiven,
    DatabaseReadOnly,
    HistoryDamaged,
    KeyFileUnusable,
    NotStrictlySigned,
    StoreUnavailable,
)

CORE = Path(scat_core.__file__).parent
#: Every command word of the CLI (`scat db ...` and `scat key ...` are groups).
COMMAND_WORDS = sorted({*COMMANDS, "db", "key"}, key=len, reverse=True)
#: A command quoted as the CLI quotes it (`scat ...`), or named bare ("run scat audit"); "a scat
#: export" or "any scat export" is the file, not the command.
CLI_TEXT = re.compile(
    r"`scat\b|(?<!\ba )(?<!\bany )(?<!\bthis )\bscat (?:--\w+ \S+ )?(?:" + "|".join(map(re.escape, COMMAND_WORDS))
    + r")\b"
)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def cli_texts(root: Path) -> list[str]:
    """Every string constant (f-string parts too, docstrings not) under `root` naming a `scat` command."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                    and CLI_TEXT.search(node.value)):
                found.append((str(path.relative_to(root.parent)), node.lineno, node.value))
    return [f"{path}:{line}: {text!r}" for path, line, text in sorted(found)]


def test_no_string_in_the_core_names_a_cli_command(tmp_path: Path) -> None:
    assert cli_texts(CORE) == []
    # the scan finds what it looks for, in every form a message quotes a command
    probe = tmp_path / "probe" / "bad.py"
    probe.parent.mkdir()
    probe.write_text('"""`scat show` in a docstring is documentation."""\n'
                     'A = "is not a scat export"\n'
                     'B = f"no game {g!r} (see `scat games`)"\n'
                     'C = "then run scat audit on it"\n'
                     'D = "try scat --db URL throw-down"\n', encoding="utf-8")
    assert [line.split(": ", 1)[0] for line in cli_texts(probe.parent)] == [f"probe/bad.py:{n}" for n in (3, 4, 5)]


#: The front ends' settings (options, environment variables): the core's messages name none of them.
SETTING_NAMES = re.compile(r"--db\b|--strict\b|SCAT_DB_URL|SCAT_BUSY_TIMEOUT|SCAT_KEY_FILE")


def setting_texts(root: Path) -> list[str]:
    """Every string constant (docstrings not) or f-string under `root` naming a setting of a front end,
    itself or through a module constant (`ENV_VAR = "SCAT_DB_URL"`: the variable the core reads, no message)."""
    found: list[str] = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        named = {}
        for node in tree.body:  # ENV_VAR = "SCAT_DB_URL": the name of what the core reads, not a message
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and re.fullmatch(r"SCAT_[A-Z_]+", str(node.value.value))):
                named[node.targets[0].id] = node.value
        where = str(path.relative_to(root.parent))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                    and node not in named.values() and SETTING_NAMES.search(node.value)):
                found.append(f"{where}:{node.lineno}: {node.value!r}")
            elif isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Name) and node.value.id in named:
                found.append(f"{where}:{node.lineno}: {{{node.value.id}}}")
    return sorted(found)


def test_no_message_of_the_core_names_a_front_end_setting(tmp_path: Path) -> None:
    """The CLI and the server are front ends: the core's errors say which setting by their type, the
    CLI names it (scat_cli.errors.SETTINGS)."""
    assert setting_texts(CORE) == []
    probe = tmp_path / "probe" / "bad.py"
    probe.parent.mkdir()
    probe.write_text('"""Reads $SCAT_DB_URL (documentation)."""\n'
                     'ENV = "SCAT_KEY_FILE"\n'
                     'A = "give a database with --db URL"\n'
                     'B = f"set {ENV} to a file"\n'
                     'C = "the head is not signed (--strict)"\n', encoding="utf-8")
    assert [line.split(": ", 1)[0] for line in setting_texts(probe.parent)] == [f"probe/bad.py:{n}" for n in (3, 4, 5)]


def _error_types() -> set[type[ScatError]]:
    """Every error type of the package, each of its modules imported first (a type is found wherever it hides)."""
    for package in (scat_core, scat_cli):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not module.name.endswith("__main__") and "_migrations" not in module.name:
                importlib.import_module(module.name)
    pending, seen = [ScatError], set()
    while pending:
        kind = pending.pop()
        if kind.__module__.startswith(("scat_core.", "scat_cli.")):
            seen.add(kind)
        pending.extend(kind.__subclasses__())
    return seen


def test_the_contract_exit_codes_come_from_the_clis_one_table() -> None:
    # /shared/spec/cli.md: 1 not allowed, 2 bad input, 3 auth, 4 not found, 5 conflict, 6 wait timed out; a
    # database that cannot be used now is "unavailable", which the contract gives no code of its own: 2 as before
    expected = {RuleViolation: 1, CorruptHistory: 1, HistoryDamaged: 1, BadInput: 2, StoreUnavailable: 2,
                DatabaseReadOnly: 2, ServerLost: 2, AuthFailed: 3, NotFound: 4, ConcurrencyConflict: 5,
                DatabaseBusy: 5, Throttled: 5, WaitTimedOut: 6}
    assert {kind: exit_code(kind) for kind in expected} == expected
    assert {kind: exit_code(kind("x")) for kind in expected if kind is not HistoryDamaged} == {
        kind: code for kind, code in expected.items() if kind is not HistoryDamaged}
    assert [kind.__name__ for kind in _error_types() if "exit_code" in dir(kind)] == []  # the core knows no exit codes


#: What each branch of the error tree means to an HTTP client (#21 item 2): the statuses it may have.
BRANCH_STATUSES: dict[type[ScatError], set[int]] = {
    RuleViolation: {409, 422}, NotFound: {404}, AuthFailed: {401, 403, 429}, ConcurrencyConflict: {409},
    Unavailable: {503, 429}, CorruptHistory: {422}, BadInput: {400}, TimedOut: {408},
}


def test_every_error_type_is_in_one_branch_with_one_exit_code_and_one_http_status() -> None:
    known = _error_types()
    assert set(BRANCHES) == set(BRANCH_STATUSES) and set(BRANCHES) <= known
    for kind in sorted(known - {ScatError}, key=lambda kind: kind.__name__):
        branches = [branch for branch in BRANCHES if issubclass(kind, branch)]
        assert len(branches) == 1, (kind, branches)  # one meaning each
        (branch,) = branches
        coded = [base for base in kind.__mro__ if base in EXIT_CODES]
        assert coded and coded[0] is not ScatError, kind  # its code is the table's, not a fallback
        assert exit_code(kind) == EXIT_CODES[coded[0]]
        # busy, or one's share of a server's heavy work spent: "try again", as cli.md says of code 5
        assert exit_code(kind) == exit_code(branch) or kind in (DatabaseBusy, Throttled), kind
        statused = [base for base in kind.__mro__ if base in HTTP_STATUS]
        assert statused and statused[0] is not ScatError, kind
        assert http_status(kind.__new__(kind)) in BRANCH_STATUSES[branch], kind
    assert ScatError not in EXIT_CODES and ScatError not in HTTP_STATUS  # every error is placed by its meaning


def test_the_client_can_raise_every_error_type_again_without_loading_the_server_side() -> None:
    """scat_cli.errors names every error type (all live in light modules) and stays cheap to import."""
    code = ("import sys\nfrom scat_cli.errors import error_types\nprint(' '.join(sorted(error_types())))\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith(('pydantic', 'sqlalchemy', 'fastapi', "
            "'scat_core.domain.accounts', 'scat_core.service')))))")
    names, heavy = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True).stdout.split("\n")[:2]
    assert names.split() == sorted(kind.__name__ for kind in _error_types())
    assert heavy == ""


#: What catching a database driver's error looks like in source: only the SQL store may (database.as_scat_errors).
DRIVER_ERRORS = re.compile(r"sqlalchemy\.exc|__module__\.startswith\(.sqlalchemy|psycopg\.Error|sqlite3\.Error|"
                           r"\b(OperationalError|InterfaceError|DBAPIError|DisconnectionError)\b")


def test_only_the_sql_store_turns_driver_errors_into_scats() -> None:
    found = []
    for root in (CORE, Path(scat_cli.__file__).parent):
        for path in sorted(root.rglob("*.py")):
            if "store/sql" in path.as_posix():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if DRIVER_ERRORS.search(line):
                    found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    assert found == []
    assert DRIVER_ERRORS.search('if type(error).__module__.startswith("sqlalchemy"):')  # the scan finds what it seeks
    assert DRIVER_ERRORS.search("from sqlalchemy.exc import OperationalError")


def test_a_lost_database_is_unavailable_on_every_path() -> None:
    lost = StoreUnavailable("cannot use database postgresql+psycopg://scat:***@db/scat: server closed the connection")
    assert isinstance(lost, Unavailable) and not isinstance(lost, BadInput)
    assert (exit_code(lost), http_status(lost)) == (2, 503)
    told = told_to_clients(lost)
    body = ErrorOut.of(told).model_dump(exclude_none=True)
    assert "postgresql" not in json.dumps(body) and "db/scat" not in json.dumps(body)
    again = ErrorOut.model_validate(body).raised(503)
    assert type(again) is StoreUnavailable and again.retry_after == lost.retry_after
    assert wording(again) == "the server's database is unavailable: try again later" and exit_code(again) == 2
    busy = DatabaseBusy("database busy: another program held its lock for more than 10 s", after="; try again")
    assert (exit_code(busy), http_status(busy)) == (5, 503) and told_to_clients(busy) is busy


#: One error of each shape, and the line the CLI tells it in (as the CLI tests see it).
WORDED = [
    (NotFound("no game 'zz'", hint=Hint.LIST_GAMES), "no game 'zz' (see `scat games`)"),
    (NotFound("no player 'zoe' has played in this database", player="zoe", hint=Hint.LIST_PLAYERS),
     "no player 'zoe' has played in this database (see `scat stats`)"),
    (CorruptHistory("the stored history of game g1 is damaged (x)", game_id="g1", hint=Hint.FIND_BAD_EVENT),
     "the stored history of game g1 is damaged (x); `scat audit g1` names the first bad event"),
    (CorruptHistory("the games list entry of game g1 is damaged (y)", game_id="g1", hint=Hint.CHECK_HISTORY),
     "the games list entry of game g1 is damaged (y): `scat audit g1` checks its history"),
    (HistoryDamaged("g1", "event 3 was altered"),
     "history damaged: game g1: event 3 was altered; nothing was played: run `scat audit g1`"),
    (AuthFailed("nobody can act or look as ann here", game_id="g1", player="ann", hint=Hint.SHOW_TABLE),
     "nobody can act or look as ann here (`scat show g1` shows the table)"),
    (RuleViolation("mary ann's hand is still face down: look at it first", "R23", game_id="g1", player="mary ann",
                   hint=Hint.LOOK, after="; knocking needs a hand worth at least 20 (R15)"),
     "mary ann's hand is still face down: look at it first (`scat show g1 --as 'mary ann' --look`); "
     "knocking needs a hand worth at least 20 (R15) (R23)"),
    (BadInput("'k' is not a scat public key (44 base64 characters", hint=Hint.SHOW_KEY, after=")"),
     "'k' is not a scat public key (44 base64 characters, as `scat key show` prints)"),
    (RuleViolation("bring that key file along", game_id="g1", hint=Hint.TRUST_KEY, after="; nothing was recorded"),
     "bring that key file along or run `scat key trust PUBLIC_KEY` with the key `scat key show` prints there; "
     "nothing was recorded"),
    (BadInput("f is not a scat export (expected the json or jsonl", hint=Hint.EXPORT, after=")"),
     "f is not a scat export (expected the json or jsonl written by `scat export`)"),
    (AuthFailed("game g1 is protected", game_id="g1", player="you", hint=Hint.GIVE_TOKEN),
     "game g1 is protected: give you's token with --token or SCAT_TOKEN"),
    (RuleViolation("game g1 is still running: export it when it ends", game_id="g1", hint=Hint.EXPORT_RUNNING),
     "game g1 is still running: export it when it ends, or pass --running"),
    (RuleViolation("the discard pile is empty", "R12"), "the discard pile is empty (R12)"),
    (AccountNameTaken.of("ɑnn", "ann"),
     "the account name 'ɑnn' looks like the account 'ann': choose another (if ann is yours, run `scat account "
     "add-key PUBLIC_KEY` on a device of yours, with the key `scat key show` prints here)"),
    (RuleViolation("the key k1 is the last key of 'ann'", hint=Hint.ADD_ANOTHER_KEY),
     "the key k1 is the last key of 'ann': add another first (`scat account add-key PUBLIC_KEY`)"),
    (RuleViolation("the account 'ann' has 20 keys already", hint=Hint.REVOKE_KEY),
     "the account 'ann' has 20 keys already: revoke one first (`scat account revoke-key KEY_ID`)"),
    (NotFound("the account 'ann' has no key 'k9'", hint=Hint.LIST_KEYS),
     "the account 'ann' has no key 'k9' (`scat account keys` lists them)"),
    (ConcurrencyConflict("game g1 changed meanwhile"), "game g1 changed meanwhile"),
    (DatabaseNotGiven("cannot create scat's data folder /d: Not a directory"),
     "cannot create scat's data folder /d: Not a directory; give a database with --db URL or SCAT_DB_URL"),
    (DatabaseNotGiven("the database URL is empty", after=", e.g. sqlite:///path/scat.db"),
     "the database URL is empty; give a database with --db URL or SCAT_DB_URL, e.g. sqlite:///path/scat.db"),
    (DatabaseBusy("database busy: another program held its lock for more than 10 s", after="; try again"),
     "database busy: another program held its lock for more than 10 s (the wait is set by SCAT_BUSY_TIMEOUT); "
     "try again"),
    (BusyWaitUnreadable("the wait for a locked database must be a number of seconds, not 'x'"),
     "the wait for a locked database must be a number of seconds, not 'x' (set by SCAT_BUSY_TIMEOUT)"),
    (KeyFileUnusable("cannot use the signing key file /k: Not a directory"),
     "cannot use the signing key file /k: Not a directory; set SCAT_KEY_FILE to a file in a folder you can write"),
    (NotStrictlySigned("refused: the export is not signed", after=": nothing imported"),
     "refused: the export is not signed (--strict): nothing imported"),
    (CorruptHistory("the database sqlite:///x.db refused the request: no such table: games",
                    hint=Hint.UPGRADE_SCHEMA),
     "the database sqlite:///x.db refused the request: no such table: games (is it a scat database? "
     "`scat db upgrade` brings its schema up to date)"),
    (StoreUnavailable("cannot use database sqlite:///x.db: disk I/O error"),
     "cannot use database sqlite:///x.db: disk I/O error"),
    (ServerLost("cannot reach the server http://127.0.0.1:9: Connection refused"),
     "cannot reach the server http://127.0.0.1:9: Connection refused"),
]


@pytest.mark.parametrize(("error", "line"), WORDED, ids=[type(e).__name__ + str(i) for i, (e, _) in enumerate(WORDED)])
def test_the_cli_words_each_hint_and_the_core_names_no_command(error: ScatError, line: str) -> None:
    assert wording(error) == line
    assert "scat " not in str(error).replace("a scat ", "")  # the core's own line: no command in it
    without_hint = line.replace(cli_errors.hint_text(error), "")  # its hint, or the setting it names
    if not isinstance(error, HistoryDamaged):  # the CLI words a damaged history its own way
        assert str(error) == without_hint


def test_every_hint_is_worded_by_the_cli() -> None:
    assert set(HINTS) == set(Hint)
    assert {error.hint for error, _ in WORDED if error.hint} == set(Hint)


@pytest.mark.parametrize(("error", "line"), WORDED, ids=[type(e).__name__ + str(i) for i, (e, _) in enumerate(WORDED)])
def test_a_refusal_from_the_server_is_the_same_error_worded_the_same(error: ScatError, line: str) -> None:
    body = json.loads(json.dumps(ErrorOut.of(error).model_dump(exclude_none=True)))
    assert body["error"] == error.worded("") and "`scat " not in body["error"]  # the core's words, not the CLI's
    assert body["type"] == type(error).__name__ and body["exit_code"] == LEGACY_EXIT_CODES[http_status(error)]
    again = ErrorOut.model_validate(body).raised(http_status(error))
    assert type(again) is type(error) and wording(again) == line and str(again) == str(error)
    assert (again.game_id, again.player, again.rule, again.hint) == (error.game_id, error.player, error.rule,
                                                                     error.hint)


def test_a_refusal_without_fields_is_raised_as_the_type_of_its_status() -> None:
    for status, kind in [(422, RuleViolation), (400, BadInput), (401, RequestRefused), (403, AuthFailed),
                         (404, NotFound), (405, BadInput), (408, TimedOut), (409, ConcurrencyConflict),
                         (413, BadInput), (429, TooManyFailures), (503, Unavailable), (500, RuleViolation)]:
        again = ErrorOut.model_validate({"error": "the request is too large"}).raised(status)
        assert type(again) is kind and wording(again) == "the request is too large"
        # what older clients read instead, sent one more release, agrees with the CLI's own table
        assert ErrorOut.bare(status, "e").exit_code == exit_code(kind)
    odd = ErrorOut.model_validate({"error": "e", "exit_code": 4, "type": "NotFound", "message": "m", "hint": "new"})
    assert type(odd.raised(404)) is NotFound and wording(odd.raised(404)) == "m"  # a hint a newer server knows: none

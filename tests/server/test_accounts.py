"""Accounts over real HTTP: register and show through `scat --server`, and signed requests refused
when they do not prove their account (wrong key, replayed, altered, stale), rate-limited when they fail.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import text
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.server.verify import FAILURES_ALLOWED, REGISTRATIONS_PER_ADDRESS, WINDOW
from scat_cli.wire import httpsig
from scat_core.domain.accounts import key_id_of
from scat_core.store.sql.database import make_engine
from tests.support.accounts_cli import ok
from tests.support.accounts_cli import run as run_as
from tests.support.capture import relay_to, send_raw
from tests.support.cli import one_line_error
from tests.support.live_server import free_port, server_in_thread
from tests.support.loaded_modules import loaded, not_a_clients
from tests.support.signing import public_of


def run(server: str, *args: str, key_file: Path | None = None) -> Any:
    """`scat --server SERVER ARGS` in-process (the user's own key, or the key in `key_file`)."""
    env = {"SCAT_SERVER": server, "SCAT_DB_URL": None, "SCAT_TOKEN": ""}
    if key_file is not None:
        env["SCAT_KEY_FILE"] = str(key_file)
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def signed(key: Ed25519PrivateKey, method: str, target: str, body: bytes = b"",
           created: int | None = None, key_id: str | None = None, server: str | None = None) -> dict[str, str]:
    """The headers signing a request as the client signs it (httpsig.sign), for the server of the
    test (it signs with this test's installation key, as `GET /key` tells) unless `server` names another."""
    from scat_core.records.signing import KeyRing

    return httpsig.sign(key, key_id or key_id_of(public_of(key)), method, target, body,
                        int(time.time()) if created is None else created, server or KeyRing.default().key_id)


def register(api: httpx.Client, name: str, key: Ed25519PrivateKey) -> httpx.Response:
    body = json.dumps({"name": name, "public_key": public_of(key)}).encode()
    return api.post("/accounts", content=body, headers={"content-type": "application/json",
                                                        **signed(key, "POST", "/accounts", body)})


def test_register_then_show_says_who_you_are_there(server_url: str) -> None:
    registered = run(server_url, "account", "register", "ann", "--json")
    assert registered.exit_code == 0, registered.output
    told = json.loads(registered.stdout)
    shown = run(server_url, "account", "show", "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == told
    assert told["name"] == "ann" and told["server"] == server_url and len(told["key_id"]) == 16
    assert told["registered_at"].startswith(time.strftime("%Y-", time.gmtime()))
    human = run(server_url, "account", "show")
    assert human.exit_code == 0 and f"you are ann on {server_url}" in human.stdout


def test_a_taken_name_or_a_look_alike_is_exit_1_and_a_key_registers_once(server_url: str, tmp_path: Path) -> None:
    assert run(server_url, "account", "register", "ann").exit_code == 0
    other = tmp_path / "other-key.pem"
    taken = run(server_url, "account", "register", "ann", key_file=other)
    assert taken.exit_code == 1 and "the account name 'ann' is taken" in taken.stderr
    for look_alike in ("АNN", "ɑnn", "aոո", "ᴀnn", "Ꭺnn"):  # a Cyrillic А; Unicode's confusables (UTS #39)
        alike = run(server_url, "account", "register", look_alike, key_file=other)
        assert alike.exit_code == 1 and "looks like the account 'ann'" in alike.stderr, alike.output
        assert "scat account add-key" in one_line_error(alike)  # if the account is his, another device of his adds
    again = run(server_url, "account", "register", "bea")
    assert again.exit_code == 1 and "is registered already, to the account 'ann'" in again.stderr
    bad = run(server_url, "account", "register", "no/slashes", key_file=other)
    assert bad.exit_code == 2 and "is not a usable account name" in bad.stderr


def test_show_without_an_account_there_is_exit_4_and_after_registering_at_once_says_who(server_url: str) -> None:
    shown = run(server_url, "account", "show")
    assert shown.exit_code == 4 and "no account with the key" in shown.stderr
    assert run(server_url, "account", "register", "ann").exit_code == 0
    again = run(server_url, "account", "show", "--json")  # the key, looked up as unknown just now, is known
    assert again.exit_code == 0 and json.loads(again.stdout)["name"] == "ann"


def test_account_commands_need_a_server() -> None:
    for args in (["account", "register", "ann"], ["account", "show"]):
        result = CliRunner().invoke(app, args, env={"SCAT_SERVER": None}, catch_exceptions=False)
        assert result.exit_code == 2 and "accounts live on servers" in result.stderr


def test_a_registered_users_requests_are_signed_and_each_nonce_remembered(server_url: str, server_db: str) -> None:
    registered = run(server_url, "account", "register", "ann", "--json")
    assert registered.exit_code == 0
    key_id = json.loads(registered.stdout)["key_id"]
    created = run(server_url, "new", "--player", "ann", "--bot", "bob", "--json")
    assert created.exit_code == 0, created.output
    game = json.loads(created.stdout)["game_id"]
    shown = run(server_url, "show", game, "--as", "ann", "--json")
    assert shown.exit_code == 0, shown.output
    assert len(json.loads(shown.stdout)["hand"]) == 3
    engine = make_engine(server_db)
    with engine.connect() as conn:  # each request was signed and verified: its nonce is remembered
        nonces = conn.execute(text("SELECT count(*) FROM request_nonces WHERE key_id = :k"), {"k": key_id}).scalar()
    engine.dispose()
    assert nonces is not None and nonces >= 3  # register, new, show (and the game id lookup)


def test_a_request_signed_for_an_account_the_server_lacks_is_exit_3(server_url: str, server_db: str,
                                                                      tmp_path: Path) -> None:
    assert run(server_url, "account", "register", "ann").exit_code == 0
    other_db = f"sqlite:///{tmp_path / 'other.db'}"
    # A server that never heard of ann's key, signing with the same key as the first (the test's
    # installation key): to ann's scat one server at two URLs, so her requests are signed there.
    with server_in_thread(other_db) as other:
        refused = run(other, "games")
    assert refused.exit_code == 3 and "no account has the key" in refused.stderr


def test_a_signature_by_another_key_than_the_accounts_is_401(api: httpx.Client) -> None:
    ann, mallory = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    assert register(api, "ann", ann).status_code == 201
    forged = api.get("/accounts/me", headers=signed(mallory, "GET", "/accounts/me", key_id=key_id_of(public_of(ann))))
    assert forged.status_code == 401 and forged.json()["exit_code"] == 3
    assert "does not verify under the account's key" in forged.json()["error"]
    unknown = api.get("/games", headers=signed(mallory, "GET", "/games"))
    assert unknown.status_code == 401 and "no account has the key" in unknown.json()["error"]
    assert api.get("/accounts/me", headers=signed(ann, "GET", "/accounts/me")).json()["name"] == "ann"


def test_a_replayed_request_is_401(api: httpx.Client) -> None:
    ann = Ed25519PrivateKey.generate()
    assert register(api, "ann", ann).status_code == 201
    headers = signed(ann, "GET", "/accounts/me")
    assert api.get("/accounts/me", headers=headers).status_code == 200
    replayed = api.get("/accounts/me", headers=headers)
    assert replayed.status_code == 401 and "nonce was used already" in replayed.json()["error"]


def test_a_body_or_path_altered_in_flight_is_401(api: httpx.Client) -> None:
    ann = Ed25519PrivateKey.generate()
    assert register(api, "ann", ann).status_code == 201
    body = json.dumps({"players": [{"name": "ann"}, {"name": "bob", "is_bot": True}]}).encode()
    altered = body.replace(b"bob", b"eve").replace(b', "is_bot": true', b"")
    headers = {"content-type": "application/json", **signed(ann, "POST", "/games", body)}
    refused = api.post("/games", content=altered, headers=headers)
    assert refused.status_code == 401 and "does not match its Content-Digest" in refused.json()["error"]
    # the digest rewritten to match the altered body: the signature no longer covers it
    redigested = {**headers, "content-digest": httpsig.content_digest(altered)}
    rewritten = api.post("/games", content=altered, headers=redigested)
    assert rewritten.status_code == 401 and "does not verify" in rewritten.json()["error"]
    moved = api.get("/games?status=finished", headers=signed(ann, "GET", "/games?status=active"))
    assert moved.status_code == 401 and "does not verify" in moved.json()["error"]
    elsewhere = api.get("/stats", headers=signed(ann, "GET", "/games"))
    assert elsewhere.status_code == 401 and "does not verify" in elsewhere.json()["error"]
    assert api.post("/games", content=body, headers=headers).status_code == 201  # as signed: accepted


@pytest.mark.parametrize("off_by", [-(WINDOW + 5), WINDOW + 5])
def test_a_stale_or_future_timestamp_is_401(api: httpx.Client, off_by: int) -> None:
    ann = Ed25519PrivateKey.generate()
    assert register(api, "ann", ann).status_code == 201
    refused = api.get("/accounts/me", headers=signed(ann, "GET", "/accounts/me", created=int(time.time()) + off_by))
    assert refused.status_code == 401 and f"more than {WINDOW} s off the server's clock" in refused.json()["error"]


def test_a_registration_signed_by_another_key_is_refused(api: httpx.Client) -> None:
    ann, mallory = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    body = json.dumps({"name": "ann", "public_key": public_of(ann)}).encode()
    refused = api.post("/accounts", content=body, headers={"content-type": "application/json",
                                                           **signed(mallory, "POST", "/accounts", body)})
    assert refused.status_code == 401 and "signed by the key it registers" in refused.json()["error"]
    unsigned = api.post("/accounts", content=body, headers={"content-type": "application/json"})
    assert unsigned.status_code == 401 and unsigned.json()["exit_code"] == 3


def test_failed_verifications_are_rate_limited_per_address(api: httpx.Client, server_url: str) -> None:
    ann, mallory = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    assert register(api, "ann", ann).status_code == 201
    for _ in range(FAILURES_ALLOWED):
        assert api.get("/games", headers=signed(mallory, "GET", "/games")).status_code == 401
    limited = api.get("/games", headers=signed(mallory, "GET", "/games"))
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert limited.json()["exit_code"] == 3 and "too many refused signatures" in limited.json()["error"]
    also = api.get("/accounts/me", headers=signed(ann, "GET", "/accounts/me"))  # the address waits, whoever signs
    assert also.status_code == 429
    told = run(server_url, "account", "show")  # the CLI signs from the same address: exit 3, one line
    assert told.exit_code == 3 and "too many refused signatures from this address: try again in" in told.stderr
    assert api.get("/health").status_code == 200  # unsigned requests are not counted nor limited here



def test_a_registered_users_signed_requests_load_nothing_of_the_database_or_the_server(
        server_url: str, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"), "SCAT_SERVER": server_url,
           "SCAT_DB_URL": ""}
    for args in (["account", "register", "ann"], ["account", "show"], ["games"]):
        code, modules, stderr = loaded(args, env)
        assert code == 0, stderr
        assert "cryptography" in {name.split(".")[0] for name in modules}, args  # it did sign
        assert not_a_clients(modules) == [], args


@contextmanager
def another_server(tmp_path: Path, name: str) -> Iterator[str]:
    """A second server, over a database of its own and signing with a key of its own; its URL."""
    with ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:  # its key file: read when the app is made
            patch.setenv("SCAT_KEY_FILE", str(tmp_path / f"{name}-server.pem"))
            url = stack.enter_context(server_in_thread(f"sqlite:///{tmp_path / f'{name}.db'}"))
        yield url


def test_a_request_captured_on_its_way_to_one_server_is_refused_by_another_where_its_key_is_an_account(
        server_url: str, tmp_path: Path) -> None:
    with another_server(tmp_path, "b") as other, relay_to(server_url) as relay:
        a_key, b_key = (httpx.get(f"{url}/key").json()["key_id"] for url in (server_url, other))
        assert a_key != b_key
        for url in (server_url, other):  # ann's one key is an account on both
            assert run(url, "account", "register", "ann").exit_code == 0
        created = run(relay.url, "new", "--player", "ann", "--bot", "cid", "--json")  # through a wiretap
        assert created.exit_code == 0, created.output
        captured = [request for request in relay.requests() if request.startswith(b"POST /games ")]
        assert len(captured) == 1 and f';server="{a_key}"'.encode() in captured[0]
        status, body = send_raw(other, captured[0])  # the captured bytes, as they were, to the other server
        assert status == 401
        refusal = json.loads(body)
        assert refusal["type"] == "WrongServer" and a_key in refusal["error"] and b_key in refusal["error"]
        assert json.loads(run(other, "games", "--json").stdout)["total"] == 0  # nothing was created there
        assert send_raw(server_url, captured[0])[0] == 401  # nor again where it was meant for: a replay


def test_a_known_url_answering_with_another_key_is_exit_3_naming_both_until_it_is_forgotten(
        server_url: str, tmp_path: Path) -> None:
    with another_server(tmp_path, "b") as other, relay_to(server_url) as relay:
        a_key, b_key = (httpx.get(f"{url}/key").json()["key_id"] for url in (server_url, other))
        assert run(relay.url, "account", "register", "ann").exit_code == 0  # known by its key from here on
        assert run(other, "account", "register", "ann").exit_code == 0
        relay.upstream = ("127.0.0.1", int(other.rsplit(":", 1)[1]))  # another server behind the known URL
        for key_file in (None, tmp_path / "stranger.pem"):  # with an account there, and without
            refused = run(relay.url, "games", key_file=key_file)
            assert refused.exit_code == 3, refused.output
            line = one_line_error(refused)
            assert a_key in line and b_key in line and f"scat key forget --server {relay.url}" in line
        assert run(relay.url, "games").exit_code == 3  # until the user says so
        forgot = run(relay.url, "key", "forget", "--server", relay.url)
        assert forgot.stdout == f"forgot the key {a_key} of {relay.url}: the next command there learns its key anew\n"
        assert json.loads(run(relay.url, "account", "show", "--json").stdout)["name"] == "ann"  # b's ann now
        assert run(relay.url, "games").exit_code == 0


def test_two_urls_of_one_server_are_one_server_to_its_accounts(server_url: str) -> None:
    assert run(server_url, "account", "register", "ann").exit_code == 0
    alias = server_url.replace("127.0.0.1", "localhost")
    shown = run(alias, "account", "show", "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["name"] == "ann"
    created = run(alias, "new", "--player", "ann", "--bot", "cid", "--json")  # signed as ann: her account
    assert created.exit_code == 0, created.output


@pytest.mark.parametrize("tokens", [True, False])
def test_an_unsigned_registration_is_told_to_sign_it_with_the_key_it_registers(tmp_path: Path, tokens: bool) -> None:
    # not "register one with scat account register", which is what it is doing (with or without --tokens)
    with server_in_thread(f"sqlite:///{tmp_path / 'served.db'}", tokens=tokens) as url:
        answer = httpx.post(f"{url}/accounts",
                            json={"name": "ann", "public_key": public_of(Ed25519PrivateKey.generate())})
    assert answer.status_code == 401 and answer.json()["exit_code"] == 3
    assert "registering needs a request signed by the key it registers" in answer.json()["error"]


def test_an_address_with_a_path_after_the_port_is_told_to_leave_it_out(server_url: str) -> None:
    for args in (("games",), ("account", "register", "ann")):
        wrong = run(f"{server_url}/docs", *args)
        assert (wrong.exit_code, wrong.stdout) == (4, ""), wrong.output
        assert (f"the server {server_url}/docs has no such page (404 Not Found): give the server's address "
                "without '/docs'") in one_line_error(wrong)


@pytest.mark.parametrize("bot", ["bob", "BOB", "ɑnn", "zеd"])  # an account, in capitals, look-alikes (UTS #39)
def test_a_bot_is_never_seated_under_an_accounts_name_or_a_look_alike_of_one(
    server_url: str, tmp_path: Path, bot: str,
) -> None:
    # cli.md: on a server names cannot be faked, and names that look alike are one name: a bot
    # called bob would be counted as the account bob in his games, statistics and turns
    server, keys = server_url, tmp_path / "keys"
    keys.mkdir()
    for player in ("ann", "bob", "zed"):
        ok(run_as(server, player, keys, "account", "register", player, "--json"))
    before = ok(run_as(server, "ann", keys, "games", "--json"))
    refused = run_as(server, "ann", keys, "new", "--player", "ann", "--bot", bot)
    assert refused.exit_code == 1 and refused.stdout == ""
    assert f"a bot may not be called {bot!r}" in refused.stderr
    assert "give the bot a name no account has" in refused.stderr
    assert ok(run_as(server, "ann", keys, "games", "--json")) == before  # nothing written
    assert ok(run_as(server, "ann", keys, "new", "--player", "ann", "--bot", "cy", "--json"))["status"] == "active"


def test_a_server_process_signing_with_another_key_than_its_database_records_refuses_to_start(
        server_url: str, server_db: str, tmp_path: Path) -> None:
    served = httpx.get(f"{server_url}/key").json()["key_id"]
    started = CliRunner().invoke(app, ["serve", "--db", server_db, "--port", str(free_port())],
                                 env={"SCAT_SERVER": None, "SCAT_DB_URL": None,
                                      "SCAT_KEY_FILE": str(tmp_path / "another.pem")}, catch_exceptions=False)
    assert started.exit_code == 2
    line = one_line_error(started)
    assert f"this database is served with the key {served}" in line and "SCAT_KEY_FILE" in line


def test_two_hundred_registrations_from_one_address_meet_its_limit_while_another_address_registers(
        server_url: str) -> None:
    def attempt(api: httpx.Client) -> httpx.Response:
        return register(api, f"u{os.urandom(6).hex()}", Ed25519PrivateKey.generate())

    ann = Ed25519PrivateKey.generate()
    with httpx.Client(base_url=server_url, timeout=30) as api:
        assert register(api, "ann", ann).status_code == 201
        answers = [attempt(api) for _ in range(199)]
        assert [answer.status_code for answer in answers].count(201) == REGISTRATIONS_PER_ADDRESS - 1
        assert {answer.status_code for answer in answers[REGISTRATIONS_PER_ADDRESS - 1:]} == {429}
        refusal = answers[-1]
        assert refusal.json()["type"] == "TooManyRegistrations" and int(refusal.headers["retry-after"]) > 0
        assert api.get("/accounts/me", headers=signed(ann, "GET", "/accounts/me")).json()["name"] == "ann"  # acts
    elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")  # another client address (all of 127/8 is loopback)
    with httpx.Client(base_url=server_url, timeout=30, transport=elsewhere) as api:
        assert attempt(api).status_code == 201


@pytest.mark.parametrize("proxy", [False, True], ids=["no proxy trusted", "a trusted proxy"])
def test_x_forwarded_for_names_the_client_only_when_a_trusted_proxy_sends_it(server_db: str, proxy: bool) -> None:
    from tests.support.live_server import server_process

    extra = ["--max-registrations-per-address", "2", *(["--trusted-proxy", "127.0.0.1"] if proxy else [])]
    with server_process(server_db, *extra) as (url, _), httpx.Client(base_url=url, timeout=30) as api:
        statuses = []
        for number in range(4):  # each says it comes from another address
            key = Ed25519PrivateKey.generate()
            body = json.dumps({"name": f"user{number}", "public_key": public_of(key)}).encode()
            headers = {"content-type": "application/json", "x-forwarded-for": f"198.51.100.{number + 1}",
                       **signed(key, "POST", "/accounts", body, server=api.get("/key").json()["key_id"])}
            statuses.append(api.post("/accounts", content=body, headers=headers).status_code)
    assert statuses == ([201] * 4 if proxy else [201, 201, 429, 429])


def test_a_server_by_invitation_registers_each_code_of_its_operators_once_and_a_closed_one_nobody(
        server_db: str, tmp_path: Path) -> None:
    from tests.support.live_server import app_in_thread

    made = CliRunner().invoke(app, ["--db", server_db, "account", "invite", "--count", "2", "--json"],
                              env={"SCAT_SERVER": None, "SCAT_DB_URL": None}, catch_exceptions=False)
    assert made.exit_code == 0, made.output
    codes = json.loads(made.stdout)["codes"]
    assert len(set(codes)) == 2
    with app_in_thread(server_db, registration="invite") as (url, _):
        keys = [tmp_path / f"{n}.pem" for n in range(5)]
        uninvited = run(url, "account", "register", "ann", key_file=keys[0])
        assert uninvited.exit_code == 3 and "by invitation" in uninvited.stderr
        assert run(url, "account", "register", "ann", "--invite", "made-up", key_file=keys[0]).exit_code == 3
        assert run(url, "account", "register", "ann", "--invite", codes[0], key_file=keys[0]).exit_code == 0
        used = run(url, "account", "register", "bea", "--invite", codes[0], key_file=keys[1])
        assert used.exit_code == 3 and "used already" in used.stderr
        alike = run(url, "account", "register", "ɑnn", "--invite", codes[1], key_file=keys[1])  # refused: kept
        assert alike.exit_code == 1
        assert run(url, "account", "register", "bea", "--invite", codes[1], key_file=keys[1]).exit_code == 0
    with app_in_thread(server_db, registration="closed") as (url, _):
        closed = run(url, "account", "register", "cid", key_file=keys[2])
        assert closed.exit_code == 3 and "closed registration" in closed.stderr
        assert run(url, "account", "show", key_file=keys[0]).exit_code == 0  # its accounts act as ever

"""Seats are accounts and moves are signed, over real HTTP through `scat --server`: a game of three
accounts played to its end and audited with every move verified, nobody acting or looking as
another, and a move forged in the server's database caught by the audit at its seq, even with
the head re-signed by the server's own key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.wiring import open_database
from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.commands import move_fields
from scat_core.domain.decide import decide_and_evolve
from scat_core.records.signing import sign_move
from scat_core.service.loading import append, chance_of, load_for_command
from scat_core.service.playing import tag_of
from tests.support.accounts_cli import ok, run
from tests.support.databases import migrated

PLAYERS = ("ann", "bob", "carl")


@pytest.fixture
def table(server_url: str, tmp_path: Path) -> tuple[str, Path, str]:
    """Three registered accounts, and a game ann created for them on the server (seed chosen: --testing)."""
    keys = tmp_path / "keys"
    keys.mkdir()
    for player in PLAYERS:
        ok(run(server_url, player, keys, "account", "register", player, "--json"))
    created = ok(run(server_url, "ann", keys, "new", "--player", "ann", "--player", "bob", "--player", "carl",
                     "--seed", "7", "--dealer", "carl", "--json"))
    assert created["status"] == "pending" and created["awaiting"] == ["bob", "carl"]  # R28
    for player in ("bob", "carl"):
        ok(run(server_url, player, keys, "accept", created["game_id"]))
    return server_url, keys, created["game_id"]


def to_act(server: str, keys: Path, game: str) -> str | None:
    """Whose turn it is (None once the game is over), from the public view."""
    shown = ok(run(server, "ann", keys, "show", game, "--json"))
    return None if shown["status"] == "finished" else str(shown["turn"])


def test_a_game_of_three_accounts_is_played_to_its_end_and_every_move_verifies(
        table: tuple[str, Path, str], tmp_path: Path) -> None:
    server, keys, game = table
    moves = 0
    for turn in range(60):
        player = to_act(server, keys, game)
        if player is None:
            break
        if turn >= 12 and player != "ann":  # R27: bob, then carl, resign; ann wins
            ok(run(server, player, keys, "resign", game, "--yes"))
            moves += 1
            continue
        ok(run(server, player, keys, "draw", game, "stock"))  # --as left out: each acts as his account
        hand = ok(run(server, player, keys, "show", game, "--json"))["hand"]
        ok(run(server, player, keys, "discard", game, hand[0]))
        moves += 2
    assert to_act(server, keys, game) is None
    audited = ok(run(server, "carl", keys, "audit", game, "--json"))
    report = audited[0] if isinstance(audited, list) else audited
    assert report["ok"] is True
    assert report["moves_signed"] == report["moves_verified"] == moves + 2  # bob's and carl's acceptances
    # The creator's files hold no credential of another player: no token at all, his own key only.
    config = tmp_path / "xdg-config"
    assert not list(config.rglob("tokens.json")) or game not in (config / "scat" / "tokens.json").read_text()
    assert sorted(path.name for path in keys.iterdir() if path.suffix == ".pem") == ["ann.pem", "bob.pem", "carl.pem"]


def test_nobody_acts_or_looks_as_another_account_exit_3(table: tuple[str, Path, str]) -> None:
    server, keys, game = table
    to_move = to_act(server, keys, game)
    other = next(player for player in PLAYERS if player != to_move)
    looked = run(server, other, keys, "show", game, "--as", to_move or "ann", "--json")
    assert looked.exit_code == 3 and f"you are {other} on this server" in looked.stderr
    moved = run(server, other, keys, "draw", game, "--as", to_move or "ann", "stock")
    assert moved.exit_code == 3
    public = ok(run(server, other, keys, "show", game, "--json"))  # his own view: his hand, nobody else's
    assert len(public["hand"]) == 3
    ok(run(server, "dora", keys, "account", "register", "dora"))
    outsider = ok(run(server, "dora", keys, "show", game, "--json"))  # an account not seated: the public view
    assert outsider["game_id"] == game and not outsider.get("hand")


def test_a_game_on_a_server_seats_accounts_only_and_its_creator(table: tuple[str, Path, str]) -> None:
    server, keys, _ = table
    stranger = run(server, "ann", keys, "new", "--player", "ann", "--player", "dora")
    assert stranger.exit_code == 4 and "dora" in stranger.stderr
    absent = run(server, "ann", keys, "new", "--player", "bob", "--player", "carl")
    assert absent.exit_code == 3 and "must be one of the players" in absent.stderr


def forge(db_url: str, game: str, command: cmd.PlayerCommand, signed_by: Any = None) -> int:
    """Append `command`'s events straight into the database, as whoever holds it could (the head
    re-signed with the server's key), with a MoveSigned made by `signed_by`'s key if given;
    returns the seq of the forged move's first event."""
    games = open_database(migrated(db_url))
    try:
        with games.store.command() as tx:
            state, secret, head = load_for_command(tx, game)
            events: list[ev.Event] = []
            if signed_by is not None:
                key, key_id, public = signed_by
                tag = tag_of(secret, head)
                signature = sign_move(key, key_id, game, state.version, tag, command)
                events.append(ev.MoveSigned(player=command.player, move=move_fields(command) or {},
                                            at_seq=state.version, at_tag=tag, key_id=key_id, public_key=public,
                                            signature=signature.signature))
            base = state
            for event in events:
                from scat_core.domain.evolve import evolve

                base = evolve(base, event)
            mine, after = decide_and_evolve(base, command, chance_of(state, secret))
            append(tx, state, [*events, *mine], after, head, "2026-12-02T12:00:00.000000Z")
        return state.version + len(events) + 1
    finally:
        games.store.engine.dispose()


@pytest.mark.parametrize("with_signature", [False, True], ids=["unsigned", "signed-by-another-key"])
def test_a_move_forged_in_the_database_fails_the_audit_at_its_seq(
        table: tuple[str, Path, str], server_db: str, with_signature: bool) -> None:
    import base64

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from scat_core.domain.accounts import key_id_of

    server, keys, game = table
    player = to_act(server, keys, game)
    assert player is not None
    mallory = Ed25519PrivateKey.generate()
    public = base64.b64encode(mallory.public_key().public_bytes_raw()).decode("ascii")
    signer = (mallory, key_id_of(public), public) if with_signature else None
    seq = forge(server_db, game, cmd.Draw(player, "stock"), signer)
    audited = run(server, "ann", keys, "audit", game, "--json")
    assert audited.exit_code == 1, audited.output
    report = json.loads(audited.stdout)
    report = report[0] if isinstance(report, list) else report
    assert report["ok"] is False and report["first_bad_seq"] == (seq - 1 if with_signature else seq)
    assert report["signature"] == "valid"  # the head was re-signed with the server's key: only the move's tells


def test_a_rekeyed_account_plays_on_with_its_new_key_and_its_old_moves_still_verify(
        table: tuple[str, Path, str], server_db: str) -> None:
    from scat_cli.remote.identity import Identity

    server, keys, game = table
    for _ in range(3):  # a few moves under everyone's first key
        player = to_act(server, keys, game)
        assert player is not None
        ok(run(server, player, keys, "knock" if player == "carl" else "draw", game, *([] if player == "carl" else
                                                                                     ["stock"])))
        if player != "carl":
            hand = ok(run(server, player, keys, "show", game, "--json"))["hand"]
            ok(run(server, player, keys, "discard", game, hand[0]))
    lost = keys / "bob.pem"
    lost.rename(keys / "bob-lost.pem")  # bob lost his key; his new one, and the operator's rekey
    new_key = Identity(lost).public_key
    rekeyed = CliRunner().invoke(app, ["--db", server_db, "account", "rekey", "bob", new_key, "--json"],
                                 env={"SCAT_SERVER": None, "SCAT_DB_URL": None}, catch_exceptions=False)
    assert rekeyed.exit_code == 0, rekeyed.output
    assert json.loads(rekeyed.stdout)["keys"] == 2
    assert ok(run(server, "bob", keys, "account", "show", "--json"))["name"] == "bob"  # his scat learns it
    for _ in range(4):
        player = to_act(server, keys, game)
        if player is None:
            break
        ok(run(server, player, keys, "resign", game, "--yes") if player != "ann" else
           run(server, player, keys, "draw", game, "stock"))
        if player == "ann":
            hand = ok(run(server, "ann", keys, "show", game, "--json"))["hand"]
            ok(run(server, "ann", keys, "discard", game, hand[0]))
    report = ok(run(server, "ann", keys, "audit", game, "--json"))
    assert report["ok"] is True and report["moves_signed"] == report["moves_verified"] > 4


def test_rekey_refuses_a_server_and_an_unknown_account(table: tuple[str, Path, str], server_db: str,
                                                       tmp_path: Path) -> None:
    from scat_cli.remote.identity import Identity

    server, _, _ = table
    through = CliRunner().invoke(app, ["--server", server, "account", "rekey", "bob", "x"],
                                 env={"SCAT_SERVER": None, "SCAT_DB_URL": None})
    assert through.exit_code == 2 and "--db" in through.stderr
    unknown = CliRunner().invoke(app, ["--db", server_db, "account", "rekey", "nobody",
                                       Identity(tmp_path / "new.pem").public_key],
                                 env={"SCAT_SERVER": None, "SCAT_DB_URL": None})
    assert unknown.exit_code == 4, unknown.output


def test_without_an_account_a_server_answers_only_health_its_documents_its_key_and_registering(
        server_db: str, tmp_path: Path) -> None:
    import httpx

    from tests.support.live_server import server_in_thread

    keys = tmp_path / "keys"
    keys.mkdir()
    with server_in_thread(server_db, tokens=False) as server:
        for path in ("/health", "/openapi.json", "/docs", "/key"):
            assert httpx.get(server + path).status_code == 200, path
        for method, path in (("GET", "/games"), ("GET", "/audit"), ("GET", "/stats"), ("POST", "/import"),
                             ("GET", "/games/0123456789")):
            refused = httpx.request(method, server + path, json={} if method == "POST" else None)
            assert refused.status_code == 401, (path, refused.text)
            assert "register" in refused.json()["error"]
        stranger = run(server, "dora", keys, "games")
        assert stranger.exit_code == 3 and "account register" in stranger.stderr
        assert "`scat account register NAME`" in stranger.stderr  # $SCAT_SERVER names the server
        flagged = CliRunner().invoke(app, ["--server", server, "games"], catch_exceptions=False, env={
            "SCAT_SERVER": None, "SCAT_DB_URL": None, "SCAT_KEY_FILE": str(keys / "dora.pem")})
        assert flagged.exit_code == 3 and f" --server {server} account register NAME`" in flagged.stderr
        assert flagged.stderr.count("--server") == 1, flagged.stderr  # runnable as pasted: the server named once
        ok(run(server, "dora", keys, "account", "register", "dora"))
        ok(run(server, "dora", keys, "new", "--player", "dora", "--bot", "bob"))
        assert "dora" in ok(run(server, "dora", keys, "games"))


def test_wait_any_through_the_server_finds_the_game_that_waits_for_the_account(table: tuple[str, Path, str]) -> None:
    server, keys, game = table
    player = to_act(server, keys, game)
    assert player is not None
    found = run(server, player, keys, "wait", "--any", "--timeout", "20", "--json")  # --as left out: his account
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["game_id"] == game


def test_wait_any_as_another_player_tells_the_account_who_it_waits_as(table: tuple[str, Path, str]) -> None:
    server, keys, _ = table
    refused = run(server, "ann", keys, "wait", "--any", "--as", "zed", "--timeout", "5")
    assert refused.exit_code == 3, refused.output
    assert "you are ann on this server, not zed: you wait as ann (leave --as out)" in refused.stderr
    assert "none of the tokens" not in refused.stderr


def test_an_account_game_tells_its_players_of_keys_not_tokens(table: tuple[str, Path, str]) -> None:
    server, keys, game = table
    player = to_act(server, keys, game) or "ann"
    shown = ok(run(server, player, keys, "show", game))
    assert "Your turn." in shown and "token" not in shown.lower()
    first = ok(run(server, player, keys, "log", game)).splitlines()[0]
    assert first.endswith("; each move signed by its player's key") and "token" not in first
    ok(run(server, player, keys, "draw", game, "stock"))
    audited = ok(run(server, "ann", keys, "audit", game))
    assert "; 3 moves signed by their players' keys, every signature verified" in audited  # 2 accepts, a draw


def test_the_last_account_in_a_game_abandons_it_with_a_signed_move_that_the_audit_verifies(
        table: tuple[str, Path, str]) -> None:
    """Abandoning is signed like a move (and counted with them); nobody abandons a game another
    account is still in: the last one, beside the bots, does."""
    server, keys, _ = table
    game = ok(run(server, "ann", keys, "new", "--player", "ann", "--player", "bob", "--bot", "cy", "--seed", "7",
                  "--dealer", "cy", "--json"))["game_id"]
    ok(run(server, "bob", keys, "accept", game))  # R28
    refused = run(server, "ann", keys, "abandon", game, "--yes")
    assert refused.exit_code == 1 and "bob is still in the game" in refused.stderr
    ok(run(server, "bob", keys, "resign", game, "--yes"))
    stranger = run(server, "carl", keys, "abandon", game, "--yes")  # --as is carl, who has no seat in it
    assert stranger.exit_code == 4
    done = ok(run(server, "ann", keys, "abandon", game, "--yes", "--json"))
    assert (done["status"], done["winner"]) == ("finished", None)
    audited = ok(run(server, "carl", keys, "audit", game, "--json"))
    report = audited[0] if isinstance(audited, list) else audited
    assert report["ok"] is True and report["seed_verified"] is True
    assert report["moves_signed"] == report["moves_verified"] == 3  # bob's acceptance, resignation; ann's abandon


def test_a_signed_move_is_one_line_with_a_mark_in_log_and_the_text_export_and_its_key_id_only_in_json(
        table: tuple[str, Path, str]) -> None:
    server, keys, game = table
    player = to_act(server, keys, game)
    assert player is not None
    ok(run(server, player, keys, "draw", game, "stock"))
    key_id = ok(run(server, player, keys, "account", "show", "--json"))["key_id"]
    lines = ok(run(server, player, keys, "log", game)).splitlines()
    drew = [line for line in lines if "CardDrawn" in line]
    logged = ok(run(server, player, keys, "log", game, "--json"))["events"]
    drawn = next(event["seq"] for event in logged if event["type"] == "CardDrawn")
    assert len(drew) == 1 and drew[0].startswith(f"{drawn:>4}  ") and drew[0].endswith(" from the stock  ✓ signed")
    assert not [line for line in lines if "MoveSigned" in line or key_id in line]  # no line of its own, no key id
    signed = [event for event in logged if event["type"] == "MoveSigned"]  # the acceptances are signed too
    assert signed[-1]["data"]["key_id"] == key_id and signed[-1]["seq"] == drawn - 1
    for mover in PLAYERS:  # to the end, so that the game can be exported
        if to_act(server, keys, game) is not None and mover != "ann":
            ok(run(server, mover, keys, "resign", game, "--yes"))
    exported_text = run(server, "ann", keys, "export", game, "--format", "text")
    assert exported_text.exit_code == 0, exported_text.output
    text = exported_text.stdout
    assert f"{player} drew" in text and "✓ signed" in text and key_id not in text and "signed the move" not in text
    exported = [json.loads(line) for line in run(server, "ann", keys, "export", game).stdout.splitlines()]
    assert next(event for event in exported if event["seq"] == drawn - 1)["data"]["key_id"] == key_id


def on_device(server: str, key_file: Path, *args: str) -> Any:
    """`scat --server SERVER ARGS` in-process on a device whose key is `key_file`."""
    env = {"SCAT_SERVER": server, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "SCAT_AS": None,
           "SCAT_KEY_FILE": str(key_file)}
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def test_a_second_device_plays_as_its_account_until_its_key_is_revoked_and_the_game_audits_and_imports(
        table: tuple[str, Path, str], tmp_path: Path) -> None:
    from scat_cli.remote.identity import Identity

    server, keys, game = table
    laptop = keys / "ann-laptop.pem"
    laptop_key = Identity(laptop).public_key
    unknown = on_device(server, laptop, "account", "show")
    assert unknown.exit_code == 4 and "account add-key" in unknown.stderr  # not "register": the name is taken
    added = ok(run(server, "ann", keys, "account", "add-key", laptop_key, "--label", "laptop", "--json"))
    assert [(key["label"], key["this_device"]) for key in added["keys"]] == [("", True), ("laptop", False)]
    assert ok(on_device(server, laptop, "account", "show", "--json"))["name"] == "ann"  # the device finds it
    listed = ok(on_device(server, laptop, "account", "keys", "--json"))["keys"]
    assert [key["this_device"] for key in listed] == [False, True] and listed[1]["public_key"] == laptop_key
    laptop_moves = 0
    while laptop_moves < 2:  # ann plays from her laptop, the others from their machines
        player = to_act(server, keys, game)
        assert player is not None
        device = (lambda *args: on_device(server, laptop, *args)) if player == "ann" else (
            lambda *args, player=player: run(server, player, keys, *args))
        ok(device("draw", game, "stock"))
        ok(device("discard", game, ok(device("show", game, "--json"))["hand"][0]))
        laptop_moves += player == "ann"
    laptop_id = listed[1]["key_id"]
    revoked = ok(run(server, "ann", keys, "account", "revoke-key", laptop_id, "--json"))
    assert revoked["revoked"] == laptop_id and [key["key_id"] for key in revoked["keys"]] == [listed[0]["key_id"]]
    cut_off = on_device(server, laptop, "show", game)
    assert cut_off.exit_code == 3 and f"no account has the key {laptop_id}" in cut_off.stderr
    last = run(server, "ann", keys, "account", "revoke-key", listed[0]["key_id"])
    assert last.exit_code == 1 and "last key" in last.stderr
    for player in ("bob", "carl"):  # the game ends: ann, on her desktop, wins
        ok(run(server, player, keys, "resign", game, "--yes"))
    report = ok(run(server, "ann", keys, "audit", game, "--json"))
    assert report["ok"] is True and report["moves_signed"] == report["moves_verified"] >= 6
    exported = tmp_path / "game.jsonl"
    exported.write_text(run(server, "ann", keys, "export", game).stdout)
    elsewhere = migrated(f"sqlite:///{tmp_path / 'elsewhere.db'}")
    imported = CliRunner().invoke(app, ["--db", elsewhere, "import", str(exported), "--json"],
                                  env={"SCAT_SERVER": None, "SCAT_DB_URL": None,
                                       "SCAT_KEY_FILE": str(tmp_path / "elsewhere.pem")}, catch_exceptions=False)
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["moves_verified"] == report["moves_verified"]

"""Nobody is seated without consent (R28), through `scat serve` on SQLite and PostgreSQL with real
accounts: a game waits, undealt, for its other humans to accept and its open seats to be taken
(the lobby, `games --open`, and `join`); a decline or a withdrawal cancels it; `wait --any` wakes
for an invitation; every step is signed and audited."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.accounts_cli import ok, run

PLAYERS = ("ann", "bob", "zed")


@pytest.fixture
def accounts(server_url: str, tmp_path: Path) -> tuple[str, Path]:
    keys = tmp_path / "keys"
    keys.mkdir()
    for player in PLAYERS:
        ok(run(server_url, player, keys, "account", "register", player, "--json"))
    return server_url, keys


def test_r28_a_game_waits_undealt_until_its_other_humans_accept_then_deals(accounts: tuple[str, Path]) -> None:
    server, keys = accounts
    made = ok(run(server, "ann", keys, "new", "--player", "ann", "--player", "bob", "--bot", "cy", "--seed", "1",
                  "--json"))  # seeded: a 31 dealt to the bot cy would end the first hand at once (R20)
    game = made["game_id"]
    assert (made["status"], made["awaiting"], made["hand_number"], made["phase"], made["turn"]) == (
        "pending", ["bob"], 0, None, None)
    early = run(server, "bob", keys, "draw", game, "stock")
    assert early.exit_code == 1 and "it waits for bob to accept (R28)" in early.stderr
    shown = ok(run(server, "bob", keys, "show", game))
    assert "Not dealt yet: waiting for bob (R28)." in shown and "scat accept" in shown
    assert game in ok(run(server, "bob", keys, "games", "--status", "pending"))
    stranger = run(server, "zed", keys, "accept", game)
    assert stranger.exit_code == 1 and "zed has no seat" in stranger.stderr
    started = ok(run(server, "bob", keys, "accept", game, "--json"))
    assert started["status"] == "active" and started["hand_number"] == 1 and started["turn"] is not None
    again = run(server, "bob", keys, "accept", game)
    assert again.exit_code == 1 and "not waiting for its players" in again.stderr
    report = ok(run(server, "zed", keys, "audit", game, "--json"))
    report = report[0] if isinstance(report, list) else report
    assert report["ok"] and report["moves_signed"] == report["moves_verified"] == 1  # bob's acceptance


@pytest.mark.parametrize(("who", "reason"),
                         [("bob", "bob declined a seat"), ("ann", "ann, who created it, withdrew it")])
def test_a_decline_or_a_withdrawal_cancels_the_game_never_dealt_and_counted_nowhere(
    accounts: tuple[str, Path], who: str, reason: str,
) -> None:
    server, keys = accounts
    game = ok(run(server, "ann", keys, "new", "--player", "ann", "--player", "bob", "--json"))["game_id"]
    cancelled = ok(run(server, who, keys, "decline", game, "--json"))
    assert (cancelled["status"], cancelled["winner"], cancelled["hand_number"]) == ("cancelled", None, 0)
    assert reason in ok(run(server, "ann", keys, "log", game))
    assert game in ok(run(server, "ann", keys, "games", "--status", "cancelled"))
    late = run(server, "bob", keys, "accept", game)
    assert late.exit_code == 1 and "cancelled" in late.stderr
    stats = ok(run(server, "ann", keys, "stats", "--json"))["overall"]
    assert (stats["games_played"], stats["games_in_progress"]) == (0, 0)


def test_strangers_meet_in_the_lobby_and_the_last_seat_taken_deals(accounts: tuple[str, Path]) -> None:
    server, keys = accounts
    game = ok(run(server, "ann", keys, "new", "--player", "ann", "--bot", "cy", "--open", "1", "--lives", "2",
                  "--move-time", "2d", "--json"))["game_id"]
    lobby = ok(run(server, "zed", keys, "games", "--open", "--json"))["games"]
    assert [(row["game_id"], row["open_seats"]) for row in lobby] == [(game, 1)]
    assert "lives 2" in lobby[0]["options"] and "move-time 2d" in lobby[0]["options"]
    assert f"scat join {game}" in ok(run(server, "zed", keys, "games", "--open"))
    joined = ok(run(server, "zed", keys, "join", game, "--json"))
    assert joined["status"] == "active" and [p["name"] for p in joined["players"]] == ["ann", "cy", "zed"]
    assert ok(run(server, "bob", keys, "games", "--open", "--json"))["games"] == []
    full = run(server, "bob", keys, "join", game)
    assert full.exit_code == 1 and "no open seat" in full.stderr
    report = ok(run(server, "bob", keys, "audit", game, "--json"))
    report = report[0] if isinstance(report, list) else report
    assert report["ok"] and report["moves_signed"] == 1  # zed's join


def test_wait_any_wakes_for_an_invitation_and_names_it_to_exec(accounts: tuple[str, Path], tmp_path: Path) -> None:
    server, keys = accounts
    game = ok(run(server, "ann", keys, "new", "--player", "ann", "--player", "bob", "--json"))["game_id"]
    said = tmp_path / "said"
    waited = run(server, "bob", keys, "wait", "--any", "--timeout", "20", "--exec",
                 f'echo "$SCAT_EVENT $SCAT_GAME" > {said}')
    assert waited.exit_code == 0, waited.output
    assert waited.stdout.startswith(f"You are invited to game {game} (R28).")
    assert said.read_text().split() == ["invitation", game]


def test_a_rematch_waits_for_the_others_and_asking_for_it_again_accepts_it(accounts: tuple[str, Path]) -> None:
    server, keys = accounts
    old = ok(run(server, "ann", keys, "new", "--player", "ann", "--player", "bob", "--json"))["game_id"]
    ok(run(server, "bob", keys, "accept", old))
    ok(run(server, "bob", keys, "resign", old, "--yes"))  # ann wins
    asked = ok(run(server, "bob", keys, "rematch", old, "--json"))
    assert (asked["status"], asked["awaiting"], asked["rematch_of"]) == ("pending", ["ann"], old)
    again = ok(run(server, "ann", keys, "rematch", old, "--json"))  # the same game, and ann's acceptance
    assert again["game_id"] == asked["game_id"] and again["status"] == "active"
    stranger = run(server, "zed", keys, "rematch", old)
    assert stranger.exit_code in (3, 4) and stranger.stderr.count("\n") == 1


"""A hint meant for another player names the server however it was chosen: he pastes it on his own machine."""

from __future__ import annotations

from tests.support.cli import LOCAL_AND_SERVER, Scat

pytestmark = LOCAL_AND_SERVER  # On a database and through a server named by SCAT_SERVER (not the --server flag).


def test_the_first_players_hints_after_new_carry_the_server_from_the_environment(
        scat: Scat, scat_env: dict[str, str | None]) -> None:
    created = scat("new", "--player", "ann", "--player", "bob", "--bot", "cid", "--dealer", "cid", "--seed", "3")
    assert created.exit_code == 0, created.output
    hints = [line.split() for line in created.stdout.splitlines() if line.startswith("  ") and "--as ann" in line]
    assert hints, created.stdout
    server = scat_env["SCAT_SERVER"]
    expected = ["scat", "--server", server] if server else ["scat"]
    for words in hints:
        assert words[:len(expected)] == expected and words.count("--server") == (1 if server else 0), words


def test_the_players_own_hints_leave_out_a_server_from_the_environment(
        scat: Scat, scat_env: dict[str, str | None]) -> None:
    created = scat("new", "--player", "ann", "--bot", "cid", "--dealer", "cid", "--seed", "3")
    assert created.exit_code == 0, created.output
    steps = [line for line in created.stdout.splitlines() if line.startswith("  scat ")]
    assert steps and not any("--server" in line for line in steps), created.stdout

"""cli.md, "Players who are strangers": a server's `scat games` lists your games first (each part
newest activity first); the list of one account is not another's."""

from __future__ import annotations

from pathlib import Path

from scat_cli.remote.client import RemoteGames
from scat_cli.remote.identity import Identity
from scat_core.domain import events as ev


def account(url: str, name: str, keys: Path) -> RemoteGames:
    """A client of `url` whose key is the account `name`'s (registered now)."""
    games = RemoteGames(url, Identity(keys / f"{name}.pem"))
    games.request("POST", "/accounts", json={"name": name, "public_key": games.identity.public_key})
    return games


def test_an_accounts_own_games_come_first_then_the_others_newest_first(server_url: str, tmp_path: Path) -> None:
    with account(server_url, "ann", tmp_path) as ann, account(server_url, "bob", tmp_path) as bob:
        mine = ann.new_game([ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bot", is_bot=True)]).game_id
        theirs = [bob.new_game([ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="bot", is_bot=True)]).game_id
                  for _ in range(3)]
        both = bob.new_game([ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="ann")]).game_id  # the newest
        listed = [row.game_id for row in ann.game_list()]
        assert listed == [both, mine, *reversed(theirs)]
        assert [row.game_id for row in ann.game_list(limit=1)] == [both]
        assert [row.game_id for row in ann.games_page(limit=3).games] == [both, mine, theirs[2]]
        assert ann.games_page(limit=3).total == 5
        assert [row.game_id for row in bob.game_list()] == [both, *reversed(theirs), mine]

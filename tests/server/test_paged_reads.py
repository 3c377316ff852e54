"""Heavy reads are paged: `GET /audit` and `GET /export` answer a page at a time, and the client follows the pages."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from scat_cli.app import app as cli
from scat_cli.remote.client import RemoteGames
from scat_cli.server.routes import records
from scat_core.service import archive as service_archive


def some_games(api: httpx.Client, count: int = 5, finished: int = 3) -> list[str]:
    """`count` games of you and bob (a bot), oldest first; the first `finished` of them over (you resigned)."""
    ids = []
    for n in range(count):
        created = api.post("/games", json={"players": [{"name": "you"}, {"name": "bob", "is_bot": True}]}).json()
        if n < finished:
            token = {"authorization": f"Bearer {created['tokens']['you']}"}
            resigned = api.post(f"/games/{created['game_id']}/resign", json={"player": "you"}, headers=token)
            assert resigned.status_code == 200, resigned.text
        ids.append(created["game_id"])
    return ids


def pages(api: httpx.Client, path: str, limit: int) -> list[dict[str, object]]:
    """Every page of `path`, following each page's `next`."""
    found, after = [], None
    while True:
        answer = api.get(path, params={"limit": limit, **({"after": after} if after else {})})
        assert answer.status_code == 200, answer.text
        found.append(answer.json())
        after = answer.json()["next"]
        if after is None:
            return found


def test_audits_come_a_page_at_a_time_in_order_with_a_cursor_to_the_next(api: httpx.Client) -> None:
    ids = some_games(api)
    got = pages(api, "/audit", 2)
    assert [len(page["reports"]) for page in got] == [2, 2, 1]  # type: ignore[arg-type]
    assert [report["game_id"] for page in got for report in page["reports"]] == ids  # type: ignore[attr-defined]
    assert {page["total"] for page in got} == {5} and got[0]["next"] == ids[1]
    assert all(report["ok"] for page in got for report in page["reports"])  # type: ignore[attr-defined]


def test_exports_come_a_page_at_a_time_the_running_games_skipped(api: httpx.Client) -> None:
    ids = some_games(api)
    got = pages(api, "/export", 2)
    items = [item for page in got for item in page["items"]]  # type: ignore[attr-defined]
    assert [item["game_id"] for item in items] == ids
    assert ["records" in item for item in items] == [True, True, True, False, False]
    assert [item.get("reason") for item in items[3:]] == ["running and protected"] * 2  # every server game is


def test_a_page_is_bounded_and_a_cursor_must_name_a_game(api: httpx.Client) -> None:
    some_games(api, count=2, finished=0)
    assert api.get("/audit", params={"limit": 100_000}).status_code == 400
    assert api.get("/export", params={"limit": 0}).status_code == 400
    unknown = api.get("/audit", params={"after": "0123456789"})
    assert unknown.status_code == 400 and "no game '0123456789' to continue after" in unknown.json()["error"]
    first = api.get("/audit").json()  # no limit: the server's own page size
    assert len(first["reports"]) == 2 and first["next"] is None


def test_the_openapi_document_declares_the_limit_and_cursor(api: httpx.Client) -> None:
    paths = api.get("/openapi.json").json()["paths"]
    for path in ("/audit", "/export"):
        declared = {parameter["name"] for parameter in paths[path]["get"]["parameters"]}
        assert {"limit", "after"} <= declared, path


def test_the_client_and_the_cli_follow_every_page(api: httpx.Client, server_url: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    for module in (service_archive, records):  # five games: three pages each, each charged as two games
        monkeypatch.setattr(module, "AUDIT_PAGE", 2)  # (charged as 50, twelve pages spent the caller's share
        monkeypatch.setattr(module, "EXPORT_PAGE", 2)  # of heavy work: the client waited ~20 s, told to)
    ids = some_games(api)
    told: list[tuple[int, int]] = []
    with RemoteGames(server_url) as remote:
        assert [report.game_id for report in remote.audit_all(progress=lambda *done: told.append(done))] == ids
        assert [item.game_id for item in remote.export_all()] == ids
    assert told == [(n, 5) for n in range(5)]
    env = {"SCAT_SERVER": server_url, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "XDG_CONFIG_HOME": str(tmp_path / "c")}
    runner = CliRunner()
    audited = runner.invoke(cli, ["audit", "--all"], env=env, catch_exceptions=False)
    assert audited.exit_code == 0 and "5 games audited: all OK" in audited.stdout, audited.output
    exported = runner.invoke(cli, ["export", "--all", "-o", str(tmp_path / "out"), "--json"], env=env,
                             catch_exceptions=False)
    document = json.loads(exported.stdout)
    assert [file["game_id"] for file in document["files"]] == ids[:3]
    assert sorted(skipped["game_id"] for skipped in document["skipped"]) == sorted(ids[3:])


def test_the_games_list_is_a_bounded_page_with_a_cursor_through_every_game(api: httpx.Client) -> None:
    """However many games a sender asks for, a page holds at most MAX_PAGE; the cursor reaches every game once."""
    from scat_cli.wire.bodies import MAX_PAGE

    ids = some_games(api, count=5, finished=0)
    for path in ("/games", "/games/page"):
        refused = api.get(path, params={"limit": 1_000_000})
        assert refused.status_code == 400 and str(MAX_PAGE) in refused.text, refused.text
    got = pages(api, "/games/page", 2)
    assert [len(page["games"]) for page in got] == [2, 2, 1]  # type: ignore[arg-type]
    assert [game["game_id"] for page in got for game in page["games"]] == ids[::-1]  # type: ignore[attr-defined]
    assert {page["total"] for page in got} == {5} and not any(page["total_at_least"] for page in got)
    unread = api.get("/games/page", params={"after": "not-a-cursor"})
    assert unread.status_code == 400 and "cursor" in unread.json()["error"]
    assert len(api.get("/games").json()) == 5  # no limit: the server's own page


def test_the_games_total_is_counted_no_further_than_its_bound(api: httpx.Client,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from scat_core.service import games

    monkeypatch.setattr(games, "COUNTED", 3)
    some_games(api, count=5, finished=0)
    page = api.get("/games/page", params={"limit": 2}).json()
    assert (page["total"], page["total_at_least"]) == (3, True) and page["next"] is not None


def test_scat_games_through_a_server_follows_the_pages_for_all_and_for_a_limit(
        api: httpx.Client, server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from scat_cli.wire import bodies

    monkeypatch.setattr(bodies, "MAX_PAGE", 2)  # the client asks pages of 2: five games, three pages
    ids = some_games(api, count=5, finished=0)
    env = {"SCAT_SERVER": server_url, "SCAT_DB_URL": None, "SCAT_TOKEN": "", "XDG_CONFIG_HOME": str(tmp_path / "c")}
    every = CliRunner().invoke(cli, ["games", "--all", "--json"], env=env, catch_exceptions=False)
    assert every.exit_code == 0, every.output
    assert [game["game_id"] for game in json.loads(every.stdout)["games"]] == ids[::-1]
    three = json.loads(CliRunner().invoke(cli, ["games", "--limit", "3", "--json"], env=env).stdout)
    assert [game["game_id"] for game in three["games"]] == ids[::-1][:3] and three["total"] == 5

"""A server's heavy work (audits and exports of every game, stats, imports) is shared: each
account and each address has a bucket of units that refills, a signed request paying from both;
a request they cannot pay is
429 with Retry-After and the type Throttled (exit 5), another caller is served meanwhile, and
the `--server` client waits the seconds named and carries on."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from scat_cli.errors import exit_code
from scat_cli.remote.client import RemoteGames
from scat_cli.remote.identity import Identity
from scat_cli.server.heavy_work import HeavyWork
from scat_core.domain.errors import Throttled
from tests.support.live_server import app_in_thread


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_share_is_spent_then_refills_at_its_rate_and_callers_do_not_share_buckets() -> None:
    clock = Clock()
    shares = HeavyWork(rate=10.0, burst=100.0, clock=clock)
    shares.take("account ann", 60)
    shares.take("account ann", 40)
    with pytest.raises(Throttled) as refused:
        shares.take("account ann", 50)
    assert refused.value.retry_after == 5  # 50 units at 10 a second
    shares.take("account bob", 100)  # bob's bucket is his own
    clock.now += 5
    shares.take("account ann", 50)
    with pytest.raises(Throttled):
        shares.take("account ann", 1)


def test_a_request_larger_than_the_bucket_costs_a_full_bucket_and_is_never_refused_for_ever() -> None:
    clock = Clock()
    shares = HeavyWork(rate=10.0, burst=100.0, clock=clock)
    shares.take("address 10.0.0.1", 10_000)
    with pytest.raises(Throttled) as refused:
        shares.take("address 10.0.0.1", 10_000)
    assert refused.value.retry_after == 10
    clock.now += 10
    shares.take("address 10.0.0.1", 10_000)


def test_a_spent_share_is_429_with_retry_after_and_an_account_of_that_address_waits_for_it_too(
        server_db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with app_in_thread(server_db) as (url, app):
        shares: HeavyWork = app.state.server.heavy
        shares.rate, shares.burst = 50.0, 50.0  # a page of 50 games empties the bucket; a second waits 1 s
        with httpx.Client(base_url=url, timeout=30) as api:
            assert api.get("/audit").status_code == 200
            refused = api.get("/audit")
            assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
            assert refused.json()["type"] == "Throttled" and exit_code(Throttled) == 5
            assert api.get("/stats").status_code == 429  # the same bucket: this address's
            assert api.get("/health").status_code == 200  # light work is not metered
        with RemoteGames(url, Identity(tmp_path / "ann.pem")) as ann:
            ann.request("POST", "/accounts", json={"name": "ann", "public_key": ann.identity.public_key})
            assert list(ann.audit_all()) == []  # her address's share spent: the client waited the second named
            assert list(ann.audit_all()) == []  # and again
            assert ann.stats().players == ()
    assert capsys.readouterr().err.count("heavy work") == 1  # said once, not at every wait


def test_a_thousand_accounts_of_one_address_get_the_one_share_of_that_address() -> None:
    shares = HeavyWork(rate=10.0, burst=100.0, clock=Clock())
    served = 0
    for number in range(1000):
        try:
            shares.take((f"account a{number}", "address 10.0.0.9"), 50)
            served += 1
        except Throttled:
            pass
    assert served == 2  # 100 units: two pages, whatever the number of accounts
    shares.take(("account bob", "address 10.0.0.10"), 100)  # another address's account: served
    with pytest.raises(Throttled):
        shares.take(("account a1", "address 10.0.0.11"), 100)  # an account that spent its own share waits too


def test_every_metered_endpoint_declares_its_429(server_url: str) -> None:
    paths = httpx.get(f"{server_url}/openapi.json").json()["paths"]
    for path, method in (("/audit", "get"), ("/export", "get"), ("/stats", "get"), ("/import", "post")):
        assert "429" in paths[path][method]["responses"], path


def test_an_account_creates_its_share_of_games_then_429_while_another_account_creates_on(server_db: str) -> None:
    """Game creation per account is bounded (`--new-games-per-hour`): a flood of games seating others stops at
    the share; the next is 429 with Retry-After, Throttled (exit 5), and nothing was created for it."""
    import json

    from tests.support.signing import Signer

    with app_in_thread(server_db, tokens=False, new_games_per_hour=3) as (url, app), \
            httpx.Client(base_url=url, timeout=30) as api:
        flooder, victim, other = Signer(api, "flo"), Signer(api, "vic"), Signer(api, "oth")
        body = json.dumps({"players": [{"name": "flo"}, {"name": "vic"}]}).encode()
        for _ in range(3):
            assert flooder.post("/games", body).status_code == 201
        refused = flooder.post("/games", body)
        assert refused.status_code == 429, refused.text
        assert refused.json()["type"] == "Throttled" and exit_code(Throttled) == 5
        assert 1 <= int(refused.headers["retry-after"]) <= 1200  # one more game every 3600/3 s
        assert "3 games an hour" in refused.json()["error"]
        assert len(victim.get("/games")) == 3  # the refused one was not created
        mine = json.dumps({"players": [{"name": "oth"}, {"name": "bob", "is_bot": True}]}).encode()
        assert other.post("/games", mine).status_code == 201  # another account's share is its own
        assert app.state.server.new_games.burst == 3.0


def test_a_server_lets_an_account_create_20_games_an_hour_by_default(server_db: str) -> None:
    from scat_cli.server.app import create_app

    app = create_app(server_db)
    assert (app.state.server.new_games.burst, app.state.server.new_games.rate * 3600) == (5.0, 20.0)
    app.state.server.games.store.engine.dispose()

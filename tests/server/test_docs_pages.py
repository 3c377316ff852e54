"""The API documents' pages, /docs and /redoc, load everything they name from the server itself."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.support.databases import migrated
from tests.support.live_server import server_in_thread

#: Every address a page names: src= and href= of its tags, and the OpenAPI document its script loads.
NAMED = re.compile(r"""(?:src|href|spec-url)\s*=\s*["']([^"']+)["']|\burl:\s*'([^']+)'""")
CONTENT_TYPES = {".js": "javascript", ".css": "text/css", ".png": "image/png", ".json": "application/json"}


@pytest.fixture
def accounts_only_server(sqlite_url: str) -> Iterator[str]:
    """A server that serves accounts only: the documents are among what it answers without one."""
    with server_in_thread(migrated(sqlite_url), tokens=False) as url:
        yield url


def named_by(page: str) -> list[str]:
    return [src or url for src, url in NAMED.findall(page)]


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_a_docs_page_names_no_other_host_and_the_server_serves_every_asset_it_names(
        accounts_only_server: str, page: str) -> None:
    with httpx.Client(base_url=accounts_only_server, timeout=30) as api:
        shown = api.get(page)
        assert shown.status_code == 200 and shown.headers["content-type"].startswith("text/html")
        assert not re.findall(r"https?:|//[a-z]", shown.text), shown.text  # no address on another host
        assets = named_by(shown.text)
        assert any(asset.endswith(".js") for asset in assets) and any(a.endswith("/openapi.json") for a in assets)
        for asset in assets:
            assert asset.startswith("/") and not asset.startswith("//"), f"{page} names {asset} elsewhere"
            fetched = api.get(asset)
            assert fetched.status_code == 200, (asset, fetched.status_code)
            assert len(fetched.content) > 0, asset
            kind = CONTENT_TYPES[asset[asset.rindex("."):]]
            assert kind in fetched.headers["content-type"], (asset, fetched.headers["content-type"])


def test_swagger_ui_asks_no_validator_elsewhere_for_its_badge(accounts_only_server: str) -> None:
    """Swagger UI would fetch a badge from validator.swagger.io: the page turns it off."""
    shown = httpx.get(f"{accounts_only_server}/docs", timeout=30).text
    assert '"validatorUrl": null' in shown


def test_the_docs_assets_are_the_builds_installed_with_scat_byte_for_byte(accounts_only_server: str) -> None:
    """What the pages run is the pinned release installed with scat (fastapi-offline's files), never a download."""
    from importlib.resources import files

    shipped = files("fastapi_offline") / "static"
    for name in ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png"):
        served = httpx.get(f"{accounts_only_server}/docs/assets/{name}", timeout=30)
        assert served.status_code == 200 and served.content == (shipped / name).read_bytes(), name

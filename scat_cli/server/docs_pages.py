"""The API documents' pages, `/docs` (Swagger UI) and `/redoc` (ReDoc), with every script,
style sheet and icon they name served by this server itself (ASSETS): a server on a LAN
without the internet shows them, and what they run is the pinned release installed with
scat (the `fastapi-offline` package ships the builds), never a CDN's latest."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

#: Where the pages' assets are served: the files of the installed `fastapi_offline/static/`.
ASSETS = "/docs/assets"
SWAGGER_PATH, REDOC_PATH, OAUTH2_REDIRECT_PATH = "/docs", "/redoc", "/docs/oauth2-redirect"
#: Swagger UI shows a badge fetched from validator.swagger.io unless told not to: nothing leaves the server.
SWAGGER_PARAMETERS: dict[str, Any] = {"validatorUrl": None}

router = APIRouter(include_in_schema=False)


def _root(request: Request) -> str:
    return str(request.scope.get("root_path") or "")


@router.get(SWAGGER_PATH)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI over this server's OpenAPI document."""
    root = _root(request)
    return get_swagger_ui_html(openapi_url=f"{root}{request.app.openapi_url}", title="Scat - Swagger UI",
                               swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
                               swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
                               swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
                               oauth2_redirect_url=OAUTH2_REDIRECT_PATH, swagger_ui_parameters=SWAGGER_PARAMETERS)


@router.get(OAUTH2_REDIRECT_PATH)
def swagger_ui_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect page (no asset of its own)."""
    return get_swagger_ui_oauth2_redirect_html()


@router.get(REDOC_PATH)
def redoc(request: Request) -> HTMLResponse:
    """ReDoc over this server's OpenAPI document, without Google's fonts."""
    root = _root(request)
    return get_redoc_html(openapi_url=f"{root}{request.app.openapi_url}", title="Scat - ReDoc",
                          redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
                          redoc_favicon_url=f"{root}{ASSETS}/favicon.png", with_google_fonts=False)


def serve_docs(app: FastAPI) -> None:
    """Add the pages and their assets to `app` (made with `docs_url=None, redoc_url=None`)."""
    app.include_router(router)
    app.mount(ASSETS, StaticFiles(packages=[("fastapi_offline", "static")]), name="docs-assets")

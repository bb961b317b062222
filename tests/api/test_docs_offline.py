"""`/api/docs/` and `/api/redoc/` work with no internet. Every asset the pages
reference (their HTML, and what their CSS and JS reference) is same-origin and answers 200;
the pages' Content-Security-Policy lets the browser load nothing from another host."""

from __future__ import annotations

import asyncio
import re
from urllib.parse import urljoin, urlsplit

import pytest

PAGES = ["/api/docs/", "/api/redoc/"]
ORIGIN = "http://testserver"

# Absolute URLs in the vendored bundles that no browser fetches: XML namespaces, JSON Schema
# and OpenAPI `$id`s, and links in error messages and help text (reviewed by hand; a new
# host here means a new bundle to review).
INERT_HOSTS = {
    "www.w3.org", "json-schema.org", "spec.openapis.org", "datatracker.ietf.org", "www.rfc-editor.org",
    "raw.githubusercontent.com", "github.com", "git.io", "stackoverflow.com", "reactjs.org", "redux.js.org",
    "marked.js.org", "redocly.com", "fb.me", "example.com", "swagger.io", "spdx.org", "vladimirgorej.com",
    "twitter.com", "www.facebook.com", "instagram.com", "soundcloud.com", "www.tiktok.com", "실례.com",
}
# Hosts the bundles would fetch from on their own, each neutralised (and CSP-blocked anyway):
# ReDoc's sidebar logo (img-src 'self'), Swagger UI's validator badge (validatorUrl: null).
NEUTRALISED_HOSTS = {"cdn.redoc.ly", "validator.swagger.io"}

HTML_REF = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)["']?\s*\)""")
ABSOLUTE = re.compile(r"""https?://([^/"'`\s)\\<>$]+)""")


def same_origin(url: str) -> bool:
    parts = urlsplit(url)
    return not parts.netloc or f"{parts.scheme}://{parts.netloc}" == ORIGIN


def fetch(client, url: str):
    response = client.get(urlsplit(url).path or url)
    if not response.streaming:
        body = response.content
    elif getattr(response, "is_async", False):  # servestatic's async file responses

        async def collect():
            return b"".join([chunk async for chunk in response.streaming_content])

        body = asyncio.run(collect())
    else:
        body = b"".join(response.streaming_content)
    return response, body.decode("utf-8", "replace")


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_every_asset_of_the_docs_pages_is_same_origin_and_answers_200(client, page):
    response, html = fetch(client, page)
    assert response.status_code == 200
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    refs = [urljoin(ORIGIN + page, ref) for ref in HTML_REF.findall(html) + CSS_URL.findall(html)]
    assert refs, "the page references its bundles"
    for ref in refs:
        assert same_origin(ref), ref
    scripts = [r for r in refs if urlsplit(r).path.endswith((".js", ".css"))]
    assert scripts, refs
    hosts: set[str] = set(ABSOLUTE.findall(html))
    for asset in refs:
        if urlsplit(asset).path == urlsplit(page).path or urlsplit(asset).path.startswith("/api/schema"):
            continue
        asset_response, text = fetch(client, asset)
        assert asset_response.status_code == 200, asset
        if asset.endswith(".css"):
            for url in CSS_URL.findall(text):
                if url.startswith("data:"):
                    continue
                assert same_origin(urljoin(asset, url)) and fetch(client, urljoin(asset, url))[0].status_code == 200, url
        if asset.endswith((".js", ".css")):
            assert "fonts.googleapis" not in text and "fonts.gstatic" not in text
            hosts |= set(ABSOLUTE.findall(text))
    hosts = {h for h in hosts if not h.startswith(("api.", "base"))}  # templates like `https://api.${x}`
    assert hosts - INERT_HOSTS - NEUTRALISED_HOSTS == set()


@pytest.mark.django_db
@pytest.mark.parametrize("page", PAGES)
def test_the_docs_pages_forbid_every_other_host(client, page):
    policy = client.get(page)["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
    assert directives["default-src"] == "'self'"
    for name in ("img-src", "font-src", "connect-src", "script-src", "style-src"):
        sources = set(directives[name].split())
        assert sources <= {"'self'", "'unsafe-inline'", "data:", "blob:"}, (name, sources)


@pytest.mark.django_db
def test_redoc_uses_system_fonts_and_swagger_has_no_validator_badge(client):
    redoc = client.get("/api/redoc/").content.decode()
    assert '"fontFamily": "system-ui' in redoc
    swagger = client.get("/api/docs/").content.decode()
    assert '"validatorUrl": null' in swagger

"""The API's documentation pages, offline (they need no internet): Swagger UI and ReDoc are served from
drf-spectacular-sidecar's static files, ReDoc uses system fonts instead of a font CDN
(SPECTACULAR_SETTINGS and api_docs/redoc.html), and a Content-Security-Policy lets the browser load nothing from another host. The policy also
stops the two fetches the bundles would make on their own: ReDoc's sidebar logo (an image on
the vendor's CDN) and Swagger UI's validator badge (switched off too, `validatorUrl: null`)."""

from __future__ import annotations

from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

# 'unsafe-inline': both pages start their UI from an inline <script>, and both UIs inject
# <style> elements; blob: is ReDoc's search worker. No host source appears anywhere.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "child-src 'self' blob:; frame-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
)


class _JsonErrors:
    """The schema is YAML and the docs pages HTML, but their errors (a 405 for another method)
    are JSON in the one shape, like everything under /api/ (docs/api.md, "Conventions")."""

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, Response) and response.status_code >= 400:
            request.accepted_renderer, request.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


class SchemaView(_JsonErrors, SpectacularAPIView):
    pass


class _SameOrigin(_JsonErrors):
    # A page is only read: OPTIONS would render DRF's metadata through the page's template
    # (a 500 on Swagger UI's), so it is a 405 like every other method.
    http_method_names = ["get", "head"]

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        return response


class SwaggerView(_SameOrigin, SpectacularSwaggerView):
    pass


class RedocView(_SameOrigin, SpectacularRedocView):
    template_name = "api_docs/redoc.html"

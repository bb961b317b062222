from django.contrib import admin
from django.urls import include, path

from config import docs, health, metrics

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("config.api_urls")),
    path("play/", include("games.web.urls")),
    # /oauth/ and /.well-known/oauth-authorization-server (docs/apps.md)
    path("", include("accounts.oauth_urls")),
    path("api/schema/", docs.SchemaView.as_view(), name="schema"),
    path("api/docs/", docs.SwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", docs.RedocView.as_view(url_name="schema"), name="redoc"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
]

handler400 = "config.errors.json_400"
handler403 = "config.errors.json_403"
handler404 = "config.errors.json_404"
handler500 = "config.errors.json_500"

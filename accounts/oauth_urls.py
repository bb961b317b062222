"""The OAuth2 paths (accounts.oauth_views), in django-oauth-toolkit's URL namespace: its
discovery document and redirects find the endpoints by these names."""

from django.urls import path

from accounts import oauth_views

app_name = "oauth2_provider"

urlpatterns = [
    path("oauth/authorize", oauth_views.AuthorizationView.as_view(), name="authorize"),
    path("oauth/token", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/login", oauth_views.LoginView.as_view(), name="login"),
    path("oauth/logout", oauth_views.LogoutView.as_view(), name="logout"),
    path(".well-known/oauth-authorization-server", oauth_views.ServerMetadataView.as_view(),
         name="oauth-server-metadata"),
]

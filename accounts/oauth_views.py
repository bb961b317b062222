"""The OAuth2 authorization server (docs/apps.md): django-oauth-toolkit's endpoints, with the
project's pages and rules.

- `/oauth/login` and `/oauth/logout`: a session for the consent page (Django's auth views, CSRF
  protected, styled like /play/).
- `/oauth/authorize`: the consent page, naming the app and each scope in words. A request DOT
  cannot trust (unknown client, unregistered redirect URI) gets an error page and is never
  redirected; any other bad request is redirected with `error=` and `state`, before the login
  form when nobody is signed in. A scope the account may not hold (`bot` for a player) is
  `invalid_scope`.
- `/oauth/token` (exchange, refresh) and `/oauth/revoke` (RFC 7009): DOT's, in one transaction per
  request, so a code exchanged twice at once is issued once.
- `/.well-known/oauth-authorization-server` (RFC 8414): DOT's document; CORS as on every other
  path (CORS_ALLOWED_ORIGINS), not DOT's `*`.

Every POST parameter of these views is sensitive: an error report never shows a password, a
code, a verifier, a secret or a token."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.db import transaction
from django.urls import reverse_lazy
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters
from oauth2_provider import views as dot
from oauth2_provider.exceptions import FatalClientError, OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauthlib import oauth2

from config.throttling import AnonRateThrottle

from . import scopes, services

secret_parameters = method_decorator(sensitive_post_parameters(), name="dispatch")


@secret_parameters
class LoginView(auth_views.LoginView):
    """Password attempts count against the client address's `anon` rate, as `/auth/token`'s
    do: the form is not a way around that limit. Past it: 429 with Retry-After, the password
    not checked."""

    template_name = "oauth/login.html"
    redirect_authenticated_user = True
    next_page = "play:lobby"  # when no `next` (the authorize URL) was given

    def post(self, request, *args, **kwargs):
        throttle = AnonRateThrottle()
        if not throttle.allow_request(request, self):
            wait = int(throttle.wait())
            # An unbound form: a bound one would check the password as it shows its errors.
            form = self.get_form_class()(request)
            response = self.render_to_response(self.get_context_data(form=form, retry_after=wait), status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)


class LogoutView(auth_views.LogoutView):
    """POST only (Django's): "Not you?" on the consent page, back to the same request."""

    next_page = "oauth2_provider:login"


@secret_parameters
class AuthorizationView(dot.AuthorizationView):
    template_name = "oauth/authorize.html"
    login_url = reverse_lazy("oauth2_provider:login")

    def validate_authorization_request(self, request):
        """DOT's checks, then the signed-in user's: scopes the account may not hold are
        `invalid_scope` (oauthlib checks them without a user at this step)."""
        requested, credentials = super().validate_authorization_request(request)
        user = request.user
        if user.is_authenticated:
            refused = [s for s in requested if s not in services.held_scopes(user)]
            if refused:
                error = oauth2.InvalidScopeError(
                    description=f"this account cannot grant {' '.join(refused)}", state=credentials.get("state"))
                raise OAuthToolkitError(error, redirect_uri=credentials["redirect_uri"])
        return requested, credentials

    def handle_no_permission(self):
        """Nobody signed in: a bad request is answered now (an error page, or the redirect with
        `error=`), before anyone types a password for it; a good one goes to the login form."""
        if self.request.method == "GET":
            try:
                self.validate_authorization_request(self.request)
            except OAuthToolkitError as error:
                return self.error_response(error, application=None)
        return super().handle_no_permission()

    def form_valid(self, form):
        """Approve or Deny. The form's hidden fields come back from the browser: an unknown
        client or a redirect URI it did not register gets the error page, for a Deny too."""
        application = get_application_model().objects.filter(client_id=form.cleaned_data["client_id"]).first()
        if application is None:
            return self.error_response(FatalClientError(oauth2.InvalidClientIdError()), application=None)
        if not application.redirect_uri_allowed(form.cleaned_data["redirect_uri"]):
            return self.error_response(FatalClientError(oauth2.MismatchingRedirectURIError()), application=None)
        return super().form_valid(form)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["scope_words"] = [(name, scopes.SCOPES[name]) for name in kwargs.get("scopes", ())
                                  if name in scopes.SCOPES]
        return context


@secret_parameters
class TokenView(dot.TokenView):
    """The authorization code and refresh grants (accounts.oauth.Validator offers no other)."""

    def post(self, request, *args, **kwargs):
        # One transaction: the code's row is locked until its tokens are stored and the code is
        # deleted (accounts.oauth.Validator.validate_code), so a second exchange finds nothing.
        with transaction.atomic():
            return self.authorization_flow_token_response(request)


@secret_parameters
class RevokeTokenView(dot.RevokeTokenView):
    pass


# Read only: any other method is a 405 (not a CSRF page's 403), as the schema says.
@method_decorator(csrf_exempt, name="dispatch")
class ServerMetadataView(dot.OAuthServerMetadataView):
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        # CORS is django-cors-headers' (CORS_ALLOWED_ORIGINS), as on every other path.
        del response["Access-Control-Allow-Origin"]
        return response

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils.html import format_html
from oauth2_provider.admin import ApplicationAdmin
from oauth2_provider.models import get_application_model

from accounts import services
from accounts.models import ApiToken, User
from games.models import Seat


class SeatInline(admin.TabularInline):
    model = Seat
    fk_name = "user"
    fields = ("table_link", "index", "away", "left")
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "tables"

    @admin.display(description="table")
    def table_link(self, seat):
        url = reverse("admin:games_table_change", args=[seat.table_id])
        return format_html('<a href="{}">{} ({})</a>', url, seat.table, seat.table.status)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("username", "email", "is_active", "is_staff", "is_bot", "is_bot_account", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_bot", "is_bot_account")
    search_fields = ("username", "email")
    fieldsets = (*BaseUserAdmin.fieldsets, ("Bot", {"fields": ("is_bot", "bot_level", "is_bot_account")}))
    # Shown, not edited: an account becomes a bot account only by its own upgrade, which checks
    # that it has played no table and gives its tokens the `bot` scope (accounts.services).
    readonly_fields = ("is_bot_account",)
    inlines = [SeatInline]
    actions = ["deactivate", "regenerate_token"]

    @admin.action(description="Deactivate (every API call then gets 401)")
    def deactivate(self, request, queryset):
        count = services.users_deactivate(queryset)
        self.message_user(request, f"{count} user(s) deactivated.", messages.SUCCESS)

    @admin.action(description="Regenerate the API token (the old one stops working)")
    def regenerate_token(self, request, queryset):
        for user in queryset:
            services.token_regenerate(user=user)
        self.message_user(request, f"New token(s) issued for {queryset.count()} user(s).", messages.SUCCESS)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens by prefix: stored as digests, so neither the list nor a page can show one; an
    operator can revoke them (every process refuses a revoked token within a second)."""

    list_display = ("prefix_shown", "user", "kind", "name", "scopes", "created_at", "last_used_at", "expires_at",
                    "revoked_at")
    list_filter = ("kind", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("user__username", "prefix", "name")
    fields = ("user", "kind", "name", "prefix_shown", "scopes", "created_at", "last_used_at", "expires_at", "revoked_at")
    readonly_fields = fields
    actions = ["revoke"]

    @admin.display(description="token")
    def prefix_shown(self, token: ApiToken) -> str:
        return f"{token.prefix}…"

    @admin.action(description="Revoke (refused everywhere within a second)")
    def revoke(self, request, queryset):
        count = services.tokens_revoke(queryset)
        self.message_user(request, f"{count} token(s) revoked.", messages.SUCCESS)

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class OAuthApplicationAdmin(ApplicationAdmin):
    """django-oauth-toolkit's page for third-party apps (docs/apps.md; registered by DOT, through
    OAUTH2_PROVIDER's APPLICATION_ADMIN_CLASS): the secret is always stored hashed, so the add
    form shows it once, and the only grant offered is the authorization code (with PKCE)."""

    # CORS is CORS_ALLOWED_ORIGINS's for every app (docs/apps.md), not a per-app list.
    exclude = ("hash_client_secret", "algorithm", "post_logout_redirect_uris", "allowed_origins")

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        if db_field.name == "authorization_grant_type":
            application = get_application_model()
            kwargs["choices"] = [(application.GRANT_AUTHORIZATION_CODE, "Authorization code (with PKCE)")]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

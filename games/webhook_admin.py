"""Operators' pages for the push and ratings features: webhook endpoints with their recent
deliveries (re-enable, resend; secrets are never shown) and ratings (reset). Registered by
games/admin.py."""

from django.contrib import admin, messages

from games.models import Rating, WebhookDelivery, WebhookEndpoint
from games.services import ratings, webhooks


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = ("id", "event", "table_id", "version", "status", "attempts", "response_code", "error", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-created_at",)
    show_change_link = True

    def get_queryset(self, request):
        # The newest 20 only: an endpoint may have thousands.
        ids = WebhookDelivery.objects.order_by("-created_at").values_list("pk", flat=True)
        queryset = super().get_queryset(request)
        endpoint_id = request.resolver_match.kwargs.get("object_id") if request.resolver_match else None
        if endpoint_id:
            queryset = queryset.filter(pk__in=list(ids.filter(endpoint_id=endpoint_id)[:20]))
        return queryset

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ("id", "user", "url", "active", "disabled_reason", "failing_since", "created_at")
    list_filter = ("active",)
    search_fields = ("user__username", "url")
    fields = ("user", "url", "events", "active", "disabled_reason", "failing_since", "created_at")
    readonly_fields = ("user", "disabled_reason", "failing_since", "created_at")
    inlines = [DeliveryInline]
    actions = ["enable", "disable"]

    @admin.action(description="Re-enable the selected webhooks")
    def enable(self, request, queryset):
        for endpoint in queryset:
            webhooks.webhook_set_active(endpoint=endpoint, active=True)
        messages.success(request, f"{queryset.count()} webhook(s) enabled.")

    @admin.action(description="Disable the selected webhooks")
    def disable(self, request, queryset):
        for endpoint in queryset:
            webhooks.webhook_set_active(endpoint=endpoint, active=False)
        messages.success(request, f"{queryset.count()} webhook(s) disabled.")

    def has_add_permission(self, request):
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "endpoint", "event", "status", "attempts", "response_code", "error", "created_at")
    list_filter = ("status", "event")
    search_fields = ("id", "endpoint__url", "endpoint__user__username")
    fields = ("id", "endpoint", "event", "table_id", "version", "body", "status", "attempts", "response_code",
              "response_body", "error", "next_attempt_at", "created_at", "delivered_at")
    readonly_fields = fields
    actions = ["resend"]

    @admin.action(description="Resend the selected deliveries")
    def resend(self, request, queryset):
        for delivery in queryset:
            webhooks.delivery_resend(delivery=delivery)
        messages.success(request, f"{queryset.count()} delivery(ies) queued again.")

    def has_add_permission(self, request):
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    """Operators: ratings per user and game; reset one (recorded, so a recompute agrees)."""

    list_display = ("user", "game", "rating", "mu", "sigma", "games", "wins", "updated_at")
    list_filter = ("game",)
    search_fields = ("user__username",)
    readonly_fields = ("user", "game", "rating", "mu", "sigma", "games", "wins", "updated_at")
    actions = ["reset"]

    @admin.action(description="Reset the selected ratings")
    def reset(self, request, queryset):
        for rating in queryset.select_related("user"):
            ratings.rating_reset(user=rating.user, game=rating.game)
        messages.success(request, f"{queryset.count()} rating(s) reset.")

    def has_add_permission(self, request):
        return False

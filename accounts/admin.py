from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.urls import reverse
from django.utils.html import format_html

from accounts import services
from accounts.models import User
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
    list_display = ("username", "email", "is_active", "is_staff", "is_bot", "date_joined", "last_login")
    list_filter = ("is_active", "is_staff", "is_bot")
    search_fields = ("username", "email")
    fieldsets = (*BaseUserAdmin.fieldsets, ("Bot", {"fields": ("is_bot", "bot_level")}))
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

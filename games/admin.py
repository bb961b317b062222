"""Operators' view of tables. The stored state is shown as the spectator view: the admin is
a place where hidden cards must not leak either (ARCHITECTURE: hidden information)."""

import json

from django.contrib import admin, messages
from django.utils.html import format_html

from config.errors import ApiError
from games import selectors
from games.models import Move, Seat, Table
from games.services import tables as table_services


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("index", "user", "is_bot", "bot_level", "away", "left", "timeouts_in_row")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class MoveInline(admin.TabularInline):
    model = Move
    fields = ("seq", "seat", "by", "user", "public_move", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-seq",)

    @admin.display(description="move (public view)")
    def public_move(self, record):
        entry = selectors.engine_for_game(record.table.game).view_move(record.move, record.seat, record.events, None)
        return json.dumps(entry)

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "host", "seat_count", "version", "private", "aborted", "created_at")
    list_filter = ("game", "status", "private", "aborted")
    search_fields = ("id", "host__username", "seats__user__username")
    fields = ("id", "game", "status", "host", "seat_count", "options", "turn_timeout", "private", "version",
              "deadline", "aborted", "created_at", "started_at", "finished_at", "public_state")
    readonly_fields = fields
    inlines = [SeatInline, MoveInline]
    actions = ["abort"]

    @admin.display(description="state (spectator view)")
    def public_state(self, table):
        view = selectors.state_view(table, None)
        return format_html("<pre>{}</pre>", json.dumps(view, indent=2, default=str))

    @admin.action(description="Abort the selected tables")
    def abort(self, request, queryset):
        done = 0
        for table in queryset:
            try:
                table_services.table_abort(table_id=table.pk)
                done += 1
            except ApiError as exc:
                self.message_user(request, f"{table.pk}: {exc.message}", messages.WARNING)
        self.message_user(request, f"{done} table(s) aborted.", messages.SUCCESS)

    def has_add_permission(self, request):
        return False

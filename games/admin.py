"""Operators' view of tables. The stored state is shown as the spectator view: the admin is
a place where hidden cards must not leak either (docs/architecture.md: hidden information)."""

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from config.errors import ApiError
from games import selectors
from games.models import Invitation, Seat, Table
from games.services import lopti as lopti_services
from games.services import tables as table_services

RECENT_MOVES = 50


class SeatInline(admin.TabularInline):
    model = Seat
    fields = ("index", "user", "is_bot", "bot_level", "away", "left", "timeouts_in_row")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "status", "host", "seat_count", "version", "private", "invite_only", "aborted",
                    "created_at")
    list_filter = ("game", "status", "private", "invite_only", "aborted")
    search_fields = ("id", "host__username", "seats__user__username")
    fields = ("id", "game", "status", "host", "seat_count", "options", "turn_timeout", "private", "invite_only",
              "rematch", "version", "deadline", "aborted", "created_at", "started_at", "finished_at", "lopti_session", "recent_moves",
              "public_state")
    readonly_fields = fields
    inlines = [SeatInline]
    actions = ["abort"]

    @admin.display(description="Lopti session: house rules, votes and duels")
    def lopti_session(self, table):
        """Every rule of the table with a moderation button, and the votes and duels, from
        the spectator view (no hidden card or unmatched throw can appear here)."""
        if table.game != "lopti" or table.state is None:
            return "-"
        public = selectors.state_view(table, None)["public"]
        rows = []
        for rule in public.get("house_rules", []) + public.get("rule_history", []):
            url = reverse("admin:games_table_moderate", args=[table.pk, rule["id"], 0 if rule.get("hidden") else 1])
            label = "Show description" if rule.get("hidden") else "Hide description"
            # A POST button, not a GET link (a change by GET could be triggered from another
            # site): the page's change form already carries
            # the CSRF token, and `formaction` sends it to the moderation view (a form may not
            # nest inside the change form).
            rows.append(format_html(
                '<li>#{} by seat {} ({}, session {}): {} '
                '<button type="submit" class="button" formmethod="post" formaction="{}" formnovalidate>{}</button></li>',
                rule["id"], rule["author"], rule["status"], rule.get("session", "?"), rule["rule"]["description"], url, label,
            ))
        votes = json.dumps({"vote": public.get("vote"), "duel": public.get("duel")}, indent=2, default=str)
        return format_html("<ul>{}</ul><pre>{}</pre>", format_html_join("", "{}", ((r,) for r in rows)), votes)

    def get_urls(self):
        return [
            path(
                "<uuid:table_id>/moderate/<int:rule_id>/<int:hidden>/",
                self.admin_site.admin_view(self.moderate_view),
                name="games_table_moderate",
            ),
            *super().get_urls(),
        ]

    def moderate_view(self, request, table_id, rule_id, hidden):
        if request.method != "POST":  # a GET (a prefetch, a crawler, a forged link) changes nothing
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        try:
            lopti_services.house_rule_moderate(table_id=table_id, rule_id=rule_id, hidden=bool(hidden))
            self.message_user(request, f"Rule #{rule_id}: description {'hidden' if hidden else 'shown'}.", messages.SUCCESS)
        except ApiError as exc:
            self.message_user(request, f"Rule #{rule_id}: {exc.message}", messages.WARNING)
        return redirect(reverse("admin:games_table_change", args=[table_id]))

    @admin.display(description="moves (public view, newest first)")
    def recent_moves(self, table):
        """The last RECENT_MOVES moves in two queries, whatever the length of the log (an
        inline of every move cost 198 queries and 2.5 s at 184 moves). The whole log
        is the API's `GET /api/v1/tables/{id}/moves`."""
        total = table.moves.count()
        if not total:
            return "-"
        records = table.moves.select_related("user").order_by("-seq")[:RECENT_MOVES]
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            (
                (r.seq, "-" if r.seat is None else r.seat, r.by, r.user or "-",
                 json.dumps(selectors.spectator_move(table, r)), r.created_at)
                for r in records
            ),
        )
        shown = min(total, RECENT_MOVES)
        return format_html(
            "<p>{} of {} moves shown; the full log: <code>GET /api/v1/tables/{}/moves</code>.</p>"
            "<table><thead><tr><th>seq</th><th>seat</th><th>by</th><th>user</th><th>move</th><th>at</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            shown, total, table.pk, rows,
        )

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

@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Read-only: invitations change only through their invitee's answer (the API's services)."""

    list_display = ("id", "table", "by", "to", "status", "rematch", "created_at", "answered_at")
    list_filter = ("status", "rematch")
    search_fields = ("table__id", "by__username", "to__username")
    fields = list_display
    readonly_fields = fields
    list_select_related = ("table", "by", "to")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


from games import webhook_admin  # noqa: E402,F401 - registers the webhook admin pages

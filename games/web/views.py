"""Page shells of the web client. They hold no game logic and read no game state: the
browser fetches everything from /api/v1 with the user's token, so the pages prove that the
public API is enough for a client (docs/web-client.md)."""

from __future__ import annotations

from django.views.generic import TemplateView


class LobbyPage(TemplateView):
    """Log in or register, the open tables and yours, and the create-a-table form."""

    template_name = "play/lobby.html"


class TablePage(TemplateView):
    """One table: seats, the public table, your hand, the legal moves and the move log."""

    template_name = "play/table.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        # The id only (the URL converter has checked it is a UUID); whether the table exists
        # and what the caller may see is the API's answer, shown by the page.
        context["table_id"] = str(kwargs["table_id"])
        return context

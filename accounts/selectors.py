from __future__ import annotations

from games import selectors as game_selectors
from games.models import Table


def profile(user) -> dict:
    """`GET /me`: the caller's account, stats and ratings."""
    return {
        "id": user.pk,
        "username": user.username,
        "email": user.email,
        "is_staff": user.is_staff,
        "is_bot_account": user.is_bot_account,
        "date_joined": user.date_joined,
        "stats": user_stats(user),
        "ratings": user_ratings(user),
    }


def user_stats(user) -> dict:
    """Tables played and won, overall and per game. A win is a finished, not aborted table
    whose winners include the user's seat."""
    by_game: dict[str, dict] = {}
    totals = {"tables_played": 0, "tables_active": 0, "tables_finished": 0, "wins": 0}
    for table in game_selectors.user_tables(user).exclude(status=Table.Status.OPEN):
        game = by_game.setdefault(table.game, {"played": 0, "finished": 0, "wins": 0})
        game["played"] += 1
        totals["tables_played"] += 1
        if table.status == Table.Status.ACTIVE:
            totals["tables_active"] += 1
            continue
        if table.aborted or not table.state:
            continue
        game["finished"] += 1
        totals["tables_finished"] += 1
        seat = game_selectors.viewer_seat(table, user)
        if seat is not None and seat in game_selectors.table_winners(table):
            game["wins"] += 1
            totals["wins"] += 1
    return {**totals, "by_game": by_game}


def user_tables_with_turns(user) -> list[dict]:
    out = []
    for table in game_selectors.user_tables(user):
        summary = game_selectors.table_summary(table)
        summary["your_turn"] = game_selectors.your_turn(table, user)
        summary["deadline"] = table.deadline
        out.append(summary)
    return out


def user_ratings(user) -> dict:
    from games.services import ratings

    return ratings.ratings_of(user)


def live_tokens(user):
    """The user's tokens that still work (not revoked, not expired), newest first."""
    from django.db.models import Q
    from django.utils import timezone

    from accounts.models import ApiToken

    return ApiToken.objects.filter(user=user, revoked_at=None).filter(
        Q(expires_at=None) | Q(expires_at__gt=timezone.now())).order_by("-created_at", "-id")

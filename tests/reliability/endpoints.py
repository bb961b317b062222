"""Every table-scoped operation of `config/api_urls.py`, as the matrix calls it: (name,
method, path under /api/v1/tables/{id}, body, game). `MOVE` is replaced by the first legal
move of the seat on turn (the same body for every role, so only the caller differs)."""

from __future__ import annotations

MOVE = object()
MISSING = 999999  # a vote, duel or rule id that no table has

TABLE_ENDPOINTS = [
    ("summary", "GET", "", None, "president"),
    ("join", "POST", "/join", {}, "president"),
    ("leave", "POST", "/leave", None, "president"),
    ("bots", "POST", "/bots", {"level": "random"}, "president"),
    ("back", "POST", "/back", None, "president"),
    ("start", "POST", "/start", None, "president"),
    ("invite", "POST", "/invitations", {"username": "nobody"}, "president"),
    ("rematch", "POST", "/rematch", None, "president"),
    ("state", "GET", "/state", None, "president"),
    ("moves_list", "GET", "/moves", None, "president"),
    ("move", "POST", "/moves", MOVE, "president"),
    ("events", "GET", "/events", None, "president"),
    ("export", "GET", "/export", None, "president"),
    ("house_rules", "GET", "/house-rules", None, "lopti"),
    ("house_rule_submit", "POST", "/house-rules", {"decline": True}, "lopti"),
    ("house_rule_edit", "PATCH", f"/house-rules/{MISSING}", {"rule": {
        "description": "sevens skip", "when": {"event": "play", "ranks": ["7"]},
        "then": [{"effect": "skip_next_turn", "target": "next_player"}]}}, "lopti"),
    ("house_rule_delete", "DELETE", f"/house-rules/{MISSING}", None, "lopti"),
    ("vote_propose", "POST", "/rule-votes", {"kind": "base_rule", "key": "ten_clears", "value": False,
                                              "applies": "now"}, "lopti"),
    ("vote_detail", "GET", f"/rule-votes/{MISSING}", None, "lopti"),
    ("ballot", "POST", f"/rule-votes/{MISSING}/ballots", {"yes": True}, "lopti"),
    ("champion", "POST", f"/rule-votes/{MISSING}/champions", None, "lopti"),
    ("duel_detail", "GET", f"/duels/{MISSING}", None, "lopti"),
    ("throw", "POST", f"/duels/{MISSING}/throws", {"throw": "rock"}, "lopti"),
    ("session_new", "POST", "/sessions", None, "lopti"),
    ("lopti_move", "POST", "/moves", MOVE, "lopti"),
]


def call(client, method: str, url: str, body):
    kwargs = {"format": "json"} if body is not None else {}
    if method == "GET":
        return client.get(url)
    return getattr(client, method.lower())(url, body, **kwargs)

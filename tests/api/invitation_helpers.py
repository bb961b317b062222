"""Helpers of the invitation and rematch tests."""

from __future__ import annotations


def open_table(host, *, game: str = "president", seats: int = 4, **fields) -> str:
    """A new open table hosted by `host` (seat 0): its id."""
    made = host.api.post("/api/v1/tables", {"game": game, "seats": seats, **fields}, format="json")
    assert made.status_code == 201, made.content
    return made.json()["id"]


def assert_error(response, status: int, code: str) -> dict:
    """The response is the API's one error shape with this status and code: its body."""
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert set(body) == {"code", "message", "detail"} and body["code"] == code, body
    return body


def account_events(user, type: str | None = None) -> list[dict]:
    """The events on `user`'s account stream (of one `type`), oldest first: their bodies
    `{id, type, created, table, version, data}`."""
    from games.services import account_events as stream

    return [event for event in stream.after(user.pk, 0) if type is None or event["type"] == type]

"""Webhooks (api.md, Push) against a real HTTP receiver on localhost: signed deliveries, the
events a table's changes cause, retries with the same Webhook-Id, auto-disable after a day of
failures (time faked), private targets refused, and no hidden card in any body."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone

from config.errors import Invalid
from games.models import Table, WebhookDelivery, WebhookEndpoint
from games.services import automation, moves, tables, webhooks
from tests.api.helpers import president_hands_deck
from tests.scrape import value

pytestmark = pytest.mark.django_db(transaction=True)


class Receiver:
    """A local HTTP server recording every POST; `statuses` are answered in order (then 200)."""

    def __init__(self):
        self.requests: list[dict] = []
        self.statuses: list[int] = []
        self.location: str | None = None  # a Location header on every answer
        # A slow receiver: "silent" answers nothing for `stall_seconds`; "trickle" answers 200 at
        # once, then a byte of body every 0.1 s for `stall_seconds`.
        self.stall: str | None = None
        self.stall_seconds = 1.5
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                receiver.requests.append({"headers": dict(self.headers), "body": body})
                if receiver.stall:
                    try:
                        self._stall(receiver.stall, receiver.stall_seconds)
                    except OSError:
                        pass  # the sender gave up and closed the connection
                    return
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.write(b"ok" if status < 300 else b"receiver says no " * 200)

            def _stall(self, how, seconds):
                if how == "silent":
                    time.sleep(seconds)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.end_headers()
                self.wfile.flush()
                if how == "trickle":
                    for _ in range(int(seconds / 0.1)):
                        self.wfile.write(b".")
                        self.wfile.flush()
                        time.sleep(0.1)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def bodies(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    r = Receiver()
    yield r
    r.close()


def hook(user, receiver, events=webhooks.EVENTS, secret="a shared secret of some length"):
    return webhooks.webhook_create(user=user, url=receiver.url, events=list(events), secret=secret)


def president_table(make_user, *, turn_timeout=60):
    hands, deck = president_hands_deck()
    users = [make_user(staff=True)] + [make_user() for _ in range(3)]
    table = tables.table_create(user=users[0], game="president", seats=4, options={"hands": 1}, deck=deck,
                                first_dealer=3, turn_timeout=turn_timeout)
    for user in users[1:]:
        tables.table_join(table_id=table.pk, user=user)
    return table, users, hands


def verify(secret: str, request: dict) -> bool:
    h = request["headers"]
    message = f"{h['Webhook-Id']}.{h['Webhook-Timestamp']}.{request['body']}".encode()
    expected = "v1=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, h["Webhook-Signature"])


def test_deliveries_are_signed_with_the_secret_and_carry_the_contract_body(make_user, receiver):
    table, users, _ = president_table(make_user)
    hook(users[0], receiver, events=["table_started", "your_turn"])
    tables.table_start(table_id=table.pk, user=users[0])
    assert len(receiver.requests) == 2
    started, turn = receiver.bodies()
    assert [started["type"], turn["type"]] == ["table_started", "your_turn"]
    assert set(started) == {"id", "type", "created", "table", "version", "data"}
    assert started["table"] == str(table.pk) and started["data"]["seat"] == 0
    # Seat 0 leads (the dealer is seat 3): its first decision is due, with its deadline.
    assert turn["data"]["seat"] == 0 and turn["data"]["deadline"]
    for request in receiver.requests:
        assert request["headers"]["Webhook-Id"] == json.loads(request["body"])["id"]
        assert verify("a shared secret of some length", request)
        assert not verify("another secret entirely, no match", request)
    assert WebhookDelivery.objects.filter(status="delivered").count() == 2


def test_your_turn_goes_to_each_player_when_their_decision_comes_and_the_end_to_all(make_user, receiver):
    table, users, hands = president_table(make_user)
    for user in users:
        hook(user, receiver, events=["your_turn", "table_finished"])
    tables.table_start(table_id=table.pk, user=users[0])
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    moves.move_submit(table_id=table.pk, user=users[1], move={"type": "pass"})
    turns = [(b["data"]["seat"], b["version"]) for b in receiver.bodies() if b["type"] == "your_turn"]
    assert [seat for seat, _ in turns] == [0, 1, 2]
    assert [v for _, v in turns] == sorted(v for _, v in turns)
    tables.table_abort(table_id=table.pk)
    finished = [b for b in receiver.bodies() if b["type"] == "table_finished"]
    assert sorted(b["data"]["seat"] for b in finished) == [0, 1, 2, 3]
    assert all(b["data"]["aborted"] is True for b in finished)


TRIES = "cardgames_webhook_tries_total"
GIVEN_UP = "cardgames_webhook_deliveries_failed_total"
DISABLED = "cardgames_webhooks_disabled_total"


def counts() -> dict[str, float]:
    """The webhook figures of config/metrics.py, by outcome."""
    return {
        "delivered": value(TRIES, outcome="delivered"),
        "failed": value(TRIES, outcome="failed"),
        "tries_exhausted": value(GIVEN_UP, reason="tries_exhausted"),
        "webhook_disabled": value(GIVEN_UP, reason="webhook_disabled"),
        "disabled_failing": value(DISABLED, reason="failing"),
        "disabled_request": value(DISABLED, reason="request"),
    }


def grown(before: dict[str, float]) -> dict[str, float]:
    return {key: count - before[key] for key, count in counts().items() if count != before[key]}


def test_a_failed_delivery_is_retried_with_the_same_webhook_id_until_it_succeeds(make_user, receiver, monkeypatch):
    table, users, _ = president_table(make_user)
    hook(users[0], receiver, events=["table_started"])
    receiver.statuses = [500, 503]
    before = counts()
    tables.table_start(table_id=table.pk, user=users[0])
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1 and delivery.response_code == 500
    assert delivery.response_body.startswith("receiver says no") and len(delivery.response_body) == webhooks.KEEP_RESPONSE_CHARS
    # Backoff: the next try is due 30 s (±20 %) later, and not before.
    wait = delivery.next_attempt_at - timezone.now()
    assert timedelta(seconds=20) < wait < timedelta(seconds=40)
    assert webhooks.delivery_attempt(delivery_id=delivery.pk) is None
    later = timezone.now() + timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert webhooks.delivery_attempt(delivery_id=delivery.pk) == "pending"
    even_later = later + timedelta(minutes=10)
    monkeypatch.setattr(timezone, "now", lambda: even_later)
    assert webhooks.deliveries_due(even_later) == [str(delivery.pk)]
    assert webhooks.delivery_attempt(delivery_id=delivery.pk) == "delivered"
    ids = {r["headers"]["Webhook-Id"] for r in receiver.requests}
    assert ids == {str(delivery.pk)} and len(receiver.requests) == 3
    assert all(verify("a shared secret of some length", r) for r in receiver.requests)
    assert WebhookEndpoint.objects.get().failing_since is None
    assert grown(before) == {"failed": 2, "delivered": 1}


def test_a_delivery_whose_tries_are_all_spent_is_given_up_and_counted(make_user, receiver, monkeypatch, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    table, users, _ = president_table(make_user)
    hook(users[0], receiver, events=["table_started"])
    receiver.statuses = [500, 500]
    before = counts()
    tables.table_start(table_id=table.pk, user=users[0])
    later = timezone.now() + timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert webhooks.delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk) == "failed"
    assert grown(before) == {"failed": 2, "tries_exhausted": 1}


@pytest.mark.parametrize("draw", ["low", "high"])
def test_retries_back_off_exponentially_over_at_least_an_hour(monkeypatch, draw):
    # The jitter's extremes: the schedule must hold for the unluckiest draws too.
    monkeypatch.setattr(webhooks.random, "uniform", lambda a, b: a if draw == "low" else b)
    delays = [webhooks.retry_delay(n) for n in range(1, 10)]
    assert all(b > a for a, b in zip(delays[:4], delays[1:5], strict=True))
    assert sum(delays[:4]) > 3600 * 0.4  # five tries span well over a quarter hour ...
    assert sum(delays) > 24 * 3600  # ... and ten tries a whole day


def test_a_webhook_failing_for_a_day_is_disabled_and_re_enabled_by_its_user(make_user, receiver, monkeypatch):
    table, users, _ = president_table(make_user)
    endpoint = hook(users[0], receiver, events=["your_turn", "table_started"])
    receiver.statuses = [500] * 50
    start = timezone.now()
    before = counts()
    tables.table_start(table_id=table.pk, user=users[0])
    for hours in (1, 12, 25):
        now = start + timedelta(hours=hours)
        monkeypatch.setattr(timezone, "now", lambda now=now: now)
        for delivery_id in webhooks.deliveries_due(now):
            webhooks.delivery_attempt(delivery_id=delivery_id)
    endpoint.refresh_from_db()
    assert endpoint.active is False and "failed since" in endpoint.disabled_reason
    tries = len(receiver.requests)
    # A delivery due after the webhook was disabled in the same sweep is given up untried.
    refused = WebhookDelivery.objects.filter(error="the webhook is disabled").count()
    assert grown(before) == {"failed": tries, "disabled_failing": 1, **({"webhook_disabled": refused} if refused else {})}
    # Nothing is sent to a disabled webhook.
    WebhookDelivery.objects.update(status="pending", next_attempt_at=start)
    pending = webhooks.deliveries_due(now)
    for delivery_id in pending:
        assert webhooks.delivery_attempt(delivery_id=delivery_id) == "failed"
    assert len(receiver.requests) == tries
    assert grown(before) == {"failed": tries, "disabled_failing": 1, "webhook_disabled": refused + len(pending)}
    listed = users[0].api.get("/api/v1/me/webhooks").json()
    assert listed[0]["active"] is False and listed[0]["disabled_reason"]
    patched = users[0].api.patch(f"/api/v1/me/webhooks/{endpoint.pk}", {"active": True}, format="json")
    assert patched.status_code == 200 and patched.json()["active"] is True
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None
    # Its owner turns it off: counted apart from the webhooks the service disabled.
    assert users[0].api.patch(f"/api/v1/me/webhooks/{endpoint.pk}", {"active": False}, format="json").status_code == 200
    assert grown(before)["disabled_request"] == 1


def test_private_and_loopback_targets_are_refused_unless_allowed(make_user, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    user = make_user()
    for url in ("http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/", "http://169.254.169.254/latest",
                "http://[::1]/", "http://192.168.0.1/", "ftp://example.com/", "http://user:pw@example.com/"):
        response = user.api.post("/api/v1/me/webhooks", {"url": url, "events": ["your_turn"]}, format="json")
        assert response.status_code == 400, url
        assert response.json()["code"] == "invalid" and "url" in response.json()["detail"]["fields"]
    with pytest.raises(Invalid):
        webhooks.webhook_create(user=user, url="http://127.0.0.1/x", events=["your_turn"])


def test_a_host_that_turns_private_after_registration_is_refused_at_delivery(make_user, receiver, settings):
    table, users, _ = president_table(make_user)
    hook(users[0], receiver, events=["table_started"])
    settings.WEBHOOKS_ALLOW_PRIVATE = False  # as if the name now resolved to a private address
    tables.table_start(table_id=table.pk, user=users[0])
    delivery = WebhookDelivery.objects.get()
    assert receiver.requests == []
    assert delivery.error.startswith("refused") and delivery.status == "pending"


def test_seat_away_and_timeout_warning_events(make_user, receiver):
    table, users, _ = president_table(make_user, turn_timeout=40)
    hook(users[0], receiver, events=["seat_away", "timeout_warning"])
    tables.table_start(table_id=table.pk, user=users[0])
    version = Table.objects.get(pk=table.pk).version
    assert webhooks.record_timeout_warning(table_id=table.pk, version=version) == 1
    # Once per decision: the same warning again records nothing.
    assert webhooks.record_timeout_warning(table_id=table.pk, version=version) == 1
    assert [b["type"] for b in receiver.bodies()] == ["timeout_warning"]
    warning = receiver.bodies()[0]["data"]
    assert warning["seat"] == 0 and 0 <= warning["seconds_left"] <= 40
    # A stale warning (the table moved on) is dropped.
    assert webhooks.record_timeout_warning(table_id=table.pk, version=version - 1) == 0
    for _ in range(2):
        Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        automation.table_enforce_deadline(table_id=table.pk)
        while Table.objects.get(pk=table.pk).deadline and 0 not in _to_act(table.pk):
            Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            automation.table_enforce_deadline(table_id=table.pk)
    away = [b for b in receiver.bodies() if b["type"] == "seat_away"]
    assert len(away) == 1 and away[0]["data"] == {"seat": 0, "game": "president", "reason": "timeouts"}


def _to_act(table_id) -> list[int]:
    from games.engine import registry

    table = Table.objects.get(pk=table_id)
    return registry.get(table.game).to_act(table.state)


def test_no_webhook_body_holds_a_card(make_user, receiver):
    table, users, hands = president_table(make_user)
    for user in users:
        hook(user, receiver)
    tables.table_start(table_id=table.pk, user=users[0])
    moves.move_submit(table_id=table.pk, user=users[0], move={"type": "play", "cards": [hands[0][0]]})
    tables.table_abort(table_id=table.pk)
    assert len(receiver.requests) >= 6
    cards = {c for hand in hands for c in hand}
    for request in receiver.requests:
        values = json.dumps(json.loads(request["body"])["data"])
        assert not any(f'"{card}"' in values for card in cards)


def test_webhook_endpoints_over_http(make_user, receiver):
    user, other = make_user(), make_user()
    created = user.api.post("/api/v1/me/webhooks", {"url": receiver.url, "events": ["your_turn", "table_finished"]}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert set(body) >= {"id", "url", "events", "secret"} and len(body["secret"]) >= 32
    listed = user.api.get("/api/v1/me/webhooks").json()
    assert [w["id"] for w in listed] == [body["id"]] and "secret" not in listed[0]
    assert other.api.get(f"/api/v1/me/webhooks/{body['id']}").status_code == 404
    assert other.api.delete(f"/api/v1/me/webhooks/{body['id']}").status_code == 404
    bad = user.api.post("/api/v1/me/webhooks", {"url": receiver.url, "events": ["nonsense"]}, format="json")
    assert bad.status_code == 400 and "events" in bad.json()["detail"]["fields"]
    deliveries = user.api.get(f"/api/v1/me/webhooks/{body['id']}/deliveries")
    assert deliveries.status_code == 200 and deliveries.json() == []
    assert user.api.delete(f"/api/v1/me/webhooks/{body['id']}").status_code == 204
    assert user.api.get("/api/v1/me/webhooks").json() == []


def test_the_timeout_warning_is_queued_for_a_quarter_of_the_timeout_before_the_deadline(make_user, settings, monkeypatch):
    from celery import current_app

    queued = []
    for name in ("timeout_warning", "enforce_deadline"):
        task = current_app.tasks[f"games.tasks.{name}"]
        monkeypatch.setattr(task, "apply_async", lambda args, eta, name=name: queued.append((name, args, eta)))
    table, users, _ = president_table(make_user, turn_timeout=40)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tables.table_start(table_id=table.pk, user=users[0])
    table.refresh_from_db()
    warning = next(q for q in queued if q[0] == "timeout_warning")
    assert warning[1] == (str(table.pk), table.version)
    assert warning[2] == table.deadline - timedelta(seconds=10)


def test_a_redirect_is_not_followed_and_counts_as_a_failed_try(make_user, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    first, elsewhere = Receiver(), Receiver()
    try:
        first.statuses, first.location = [307], elsewhere.url
        table, users, _ = president_table(make_user)
        hook(users[0], first, events=["table_started"])
        tables.table_start(table_id=table.pk, user=users[0])
        delivery = WebhookDelivery.objects.get()
        assert len(first.requests) == 1 and elsewhere.requests == []
        assert delivery.status == "pending" and delivery.response_code == 307 and delivery.error == "HTTP 307"
    finally:
        first.close()
        elsewhere.close()


def test_the_admin_lists_endpoints_and_deliveries_and_resends_one(make_user, receiver, client):
    from accounts.models import User

    table, users, _ = president_table(make_user)
    endpoint = hook(users[0], receiver, events=["table_started"])
    tables.table_start(table_id=table.pk, user=users[0])
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "delivered" and len(receiver.requests) == 1
    client.force_login(User.objects.create_superuser("hooks-operator", "op@example.com", "operator password"))
    endpoints = client.get("/admin/games/webhookendpoint/")
    assert endpoints.status_code == 200 and receiver.url.encode() in endpoints.content
    deliveries = client.get("/admin/games/webhookdelivery/")
    assert deliveries.status_code == 200 and str(delivery.pk).encode() in deliveries.content
    page = client.get(f"/admin/games/webhookdelivery/{delivery.pk}/change/")
    assert page.status_code == 200 and b"table_started" in page.content
    client.post("/admin/games/webhookdelivery/", {"action": "resend", "_selected_action": [str(delivery.pk)]})
    delivery.refresh_from_db()
    # Sent again at once (Celery is eager in tests), with the same Webhook-Id.
    assert len(receiver.requests) == 2 and delivery.status == "delivered" and delivery.attempts == 1
    assert {r["headers"]["Webhook-Id"] for r in receiver.requests} == {str(delivery.pk)}
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).active


@pytest.mark.parametrize("stall", ["silent", "trickle"])
def test_a_receiver_slower_than_the_timeouts_is_a_failed_try_with_a_retry(make_user, receiver, monkeypatch, stall):
    """A delivery gives up after TOTAL_TIMEOUT (10 s; shortened here): a receiver that says
    nothing (the read timeout) and one that answers 200 but trickles its body past the total
    (no single read is slow, so only the total's own check catches it) both count as a failed
    try, to be retried, never as delivered."""
    monkeypatch.setattr(webhooks, "TOTAL_TIMEOUT", 0.4)
    receiver.stall = stall
    table, users, _ = president_table(make_user)
    hook(users[0], receiver, events=["table_started"])
    tables.table_start(table_id=table.pk, user=users[0])
    delivery = WebhookDelivery.objects.get()
    assert len(receiver.requests) == 1
    assert delivery.status == "pending" and delivery.attempts == 1 and delivery.error == "timeout"
    assert delivery.next_attempt_at > timezone.now()

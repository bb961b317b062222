"""Webhooks (api.md, "Push: event streams and webhooks"): users register URLs for events of
their tables; every change that causes an event writes a delivery row in the change's own
transaction (so a committed change never loses its events), and tasks queued on commit POST
them, signed, with retries and exponential backoff.

Bodies carry only public facts (seats, versions, deadlines, scores, winners): never a card.

Targets that resolve to loopback, private, link-local or other non-public addresses are
refused when a webhook is registered and again at every connection (a host may re-resolve
elsewhere later: DNS rebinding), unless WEBHOOKS_ALLOW_PRIVATE is on (tests, local dev)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import random
import secrets
import socket
import time
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

import httpcore
import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config import metrics
from config.errors import Conflict, Invalid, NotFound
from games.models import Table, WebhookDelivery, WebhookEndpoint

log = logging.getLogger(__name__)

EVENTS = ("your_turn", "table_started", "table_finished", "timeout_warning", "seat_away")
MAX_WEBHOOKS_PER_USER = 10
KEEP_RESPONSE_CHARS = 1000
READ_AT_MOST = 64 * 1024
CONNECT_TIMEOUT = 3.0
TOTAL_TIMEOUT = 10.0
# A claimed delivery is left alone this long by other tasks (longer than one try can take).
LEASE = timedelta(seconds=60)


# --- targets ---------------------------------------------------------------------------------
def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


class RefusedAddress(httpcore.ConnectError):
    """The target resolved to an address webhooks may not reach."""


def resolve(host: str, port: int) -> list[str]:
    """The addresses of `host`, refusing non-public ones unless WEBHOOKS_ALLOW_PRIVATE."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise RefusedAddress(f"{host} does not resolve") from exc
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not settings.WEBHOOKS_ALLOW_PRIVATE and not all(is_public(a) for a in addresses):
        raise RefusedAddress(f"{host} resolves to a private, loopback or link-local address")
    return addresses


class _GuardedBackend(httpcore.SyncBackend):
    """Resolves the host itself and connects only to checked addresses; TLS still verifies
    the certificate against the host name (httpcore passes the URL's host as SNI)."""

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        last: Exception | None = None
        for address in resolve(host, port):
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                last = exc
        raise last or RefusedAddress(f"{host} has no address")


class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self):
        super().__init__(trust_env=False, retries=0)
        # httpx builds its connection pool with the default network backend and offers no
        # parameter for another; the pool is rebuilt with the same TLS context and the guard.
        self._pool = httpcore.ConnectionPool(
            ssl_context=self._pool._ssl_context, max_connections=1, network_backend=_GuardedBackend()
        )


def check_url(url: str) -> str:
    parts = urlsplit(url.strip())
    problem = None
    if parts.scheme not in ("http", "https"):
        problem = "must be an http or https URL"
    elif not parts.hostname:
        problem = "must name a host"
    elif parts.username or parts.password:
        problem = "must not carry credentials"
    if problem is None:
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            resolve(parts.hostname, port)
        except ValueError:
            problem = "has a bad port"
        except RefusedAddress as exc:
            problem = str(exc)
    if problem:
        raise Invalid(f"url {problem}", {"fields": {"url": [problem]}})
    return parts.geturl()


# --- endpoints -------------------------------------------------------------------------------
def endpoints_of(user):
    return WebhookEndpoint.objects.filter(user=user).order_by("id")


def endpoint_of(user, webhook_id) -> WebhookEndpoint:
    endpoint = WebhookEndpoint.objects.filter(user=user, pk=webhook_id).first()
    if endpoint is None:
        raise NotFound("no such webhook")
    return endpoint


def endpoint_json(endpoint: WebhookEndpoint) -> dict:
    return {
        "id": endpoint.pk,
        "url": endpoint.url,
        "events": endpoint.events,
        "active": endpoint.active,
        "disabled_reason": endpoint.disabled_reason,
        "created_at": endpoint.created_at,
    }


def webhook_create(*, user, url: str, events: list[str], secret: str | None = None) -> WebhookEndpoint:
    url = check_url(url)
    with transaction.atomic():
        if WebhookEndpoint.objects.select_for_update().filter(user=user).count() >= MAX_WEBHOOKS_PER_USER:
            raise Conflict(f"at most {MAX_WEBHOOKS_PER_USER} webhooks per user")
        return WebhookEndpoint.objects.create(
            user=user, url=url, events=sorted(set(events), key=EVENTS.index), secret=secret or secrets.token_urlsafe(32)
        )


def webhook_update(*, user, webhook_id, url: str | None = None, events: list[str] | None = None, active: bool | None = None):
    endpoint = endpoint_of(user, webhook_id)
    if url is not None:
        endpoint.url = check_url(url)
    if events is not None:
        endpoint.events = sorted(set(events), key=EVENTS.index)
    if active is not None:
        webhook_set_active(endpoint=endpoint, active=active, save=False)
    endpoint.save()
    return endpoint


def webhook_set_active(*, endpoint: WebhookEndpoint, active: bool, save: bool = True) -> None:
    """Re-enable (the user's PATCH, an operator) or disable a webhook."""
    if endpoint.active and not active:
        metrics.webhook_disabled(reason="request")
    endpoint.active = active
    endpoint.disabled_reason = "" if active else "disabled by request"
    endpoint.failing_since = None
    if save:
        endpoint.save(update_fields=["active", "disabled_reason", "failing_since"])


def webhook_delete(*, user, webhook_id) -> None:
    endpoint_of(user, webhook_id).delete()


def deliveries_of(endpoint: WebhookEndpoint, limit: int = 100):
    return endpoint.deliveries.order_by("-created_at")[:limit]


def delivery_json(delivery: WebhookDelivery) -> dict:
    return {
        "id": str(delivery.pk),
        "event": delivery.event,
        "table": str(delivery.table_id) if delivery.table_id else None,
        "version": delivery.version,
        "status": delivery.status,
        "attempts": delivery.attempts,
        "response_code": delivery.response_code,
        "response_body": delivery.response_body,
        "error": delivery.error,
        "next_attempt_at": delivery.next_attempt_at if delivery.status == WebhookDelivery.Status.PENDING else None,
        "created_at": delivery.created_at,
        "delivered_at": delivery.delivered_at,
    }


# --- events ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Snapshot:
    """What the events compare before and after a change: the table's status and who must
    act, by player (the seat row's index, which stays with the player when seats move)."""

    status: str
    to_act: frozenset[int]

    @classmethod
    def of(cls, status: str, to_act, players) -> Snapshot:
        """From the facts a change already knows: current seats to act and the seat mapping."""
        if status != Table.Status.ACTIVE or players is None:
            return cls(status, frozenset())
        return cls(status, frozenset(players[s] for s in to_act))

    @classmethod
    def of_locked(cls, game: str, status: str, state: dict | None, players) -> Snapshot:
        """From what the command path recorded when it locked the table (common.lock_table)."""
        if status != Table.Status.ACTIVE or state is None:
            return cls(status, frozenset())
        from games.engine import registry

        return cls.of(status, registry.get(game).to_act(state), players)


def snapshot(table: Table) -> Snapshot:
    from games.engine import registry

    if table.status != Table.Status.ACTIVE or table.state is None:
        return Snapshot(table.status, frozenset())
    engine = registry.get(table.game)
    return Snapshot.of(table.status, engine.to_act(table.state), engine.seat_players(table.state))


@dataclass
class Occurrence:
    user_id: int
    event: str
    key: str
    data: dict


def record_change(
    table: Table, rows: dict, *, before: Snapshot | None, after: Snapshot | None = None, mover: int | None = None
) -> None:
    """Under the table lock, after a change was saved: the events it causes (a new decision for
    a player, the start, the end). `rows` maps current seats to seat rows; `mover` is the seat
    row index of the player who just moved (their next decision, if any, is a new one)."""
    if before is None:
        return
    after = after if after is not None else snapshot(table)
    seat_of = {row.index: seat for seat, row in rows.items()}
    humans = {row.index: row for row in rows.values() if row.user_id and not row.is_bot}
    if not humans:
        return
    version, table_id = table.version, str(table.pk)
    found: list[Occurrence] = []
    if before.status == Table.Status.OPEN and after.status == Table.Status.ACTIVE:
        found += [
            Occurrence(row.user_id, "table_started", f"table_started:{table_id}", {"seat": seat_of[i], "game": table.game})
            for i, row in humans.items()
        ]
    if before.status != Table.Status.FINISHED and after.status == Table.Status.FINISHED:
        data = _final(table)
        found += [
            Occurrence(row.user_id, "table_finished", f"table_finished:{table_id}", {**data, "seat": seat_of[i]})
            for i, row in humans.items()
        ]
    due = after.to_act - before.to_act
    if mover is not None and mover in after.to_act:
        due |= {mover}
    deadline = table.deadline.isoformat() if table.deadline else None
    for index in sorted(due):
        row = humans.get(index)
        if row is not None and not row.bot_controlled:
            data = {"seat": seat_of[index], "game": table.game, "deadline": deadline}
            found.append(Occurrence(row.user_id, "your_turn", f"your_turn:{table_id}:{version}:{index}", data))
    _record(table, found)


def record_seat_away(table: Table, row, *, seat: int, reason: str) -> None:
    """A seat was marked away (two timeouts in a row) or left: a bot plays it now."""
    if row.user_id and not row.is_bot:
        data = {"seat": seat, "game": table.game, "reason": reason}
        _record(table, [Occurrence(row.user_id, "seat_away", f"seat_away:{table.pk}:{table.version}:{row.index}", data)])


def record_timeout_warning(*, table_id, version: int) -> int:
    """A quarter of the turn timeout is left on the decision the table waited for at
    `version`: warn the humans who must act. Once per decision (the dedupe key)."""
    from games.engine import registry

    with transaction.atomic():
        table = Table.objects.filter(pk=table_id).first()
        if table is None or table.version != version or table.status != Table.Status.ACTIVE or table.deadline is None:
            return 0
        engine = registry.get(table.game)
        by_index = {row.index: row for row in table.seats.all()}
        rows = dict(enumerate(by_index[player] for player in engine.seat_players(table.state)))
        left = max(0, int((table.deadline - timezone.now()).total_seconds()))
        found = [
            Occurrence(
                row.user_id,
                "timeout_warning",
                f"timeout_warning:{table.pk}:{version}:{row.index}",
                {"seat": seat, "game": table.game, "deadline": table.deadline.isoformat(), "seconds_left": left},
            )
            for seat in engine.to_act(table.state)
            if (row := rows[seat]).user_id and not row.bot_controlled
        ]
        return _record(table, found)


def _final(table: Table) -> dict:
    from games import selectors
    from games.engine import registry

    scores = None
    if table.state is not None:
        scores = registry.get(table.game).scores(table.state)
    return {"game": table.game, "aborted": table.aborted, "scores": scores, "winners": selectors.table_winners(table)}


def _record(table: Table, found: list[Occurrence]) -> int:
    """The occurrences' account events (every player's, in this transaction: the account stream's
    outbox), then the webhook deliveries of those with a webhook for them; how many deliveries."""
    from games.services import account_events

    account_events.record_many([
        account_events.Pending(o.user_id, o.event, table.pk, table.version, o.data) for o in found
    ])
    users = {o.user_id for o in found}
    # Read with the seats under the lock when the command path did (common.lock_table).
    known = getattr(table, "_webhook_users", None)
    if known is not None:
        users &= known
    if not users:
        return 0
    endpoints = list(WebhookEndpoint.objects.filter(user_id__in=users, active=True))
    now = timezone.now()
    deliveries = []
    for occurrence in found:
        for endpoint in endpoints:
            if endpoint.user_id != occurrence.user_id or occurrence.event not in endpoint.events:
                continue
            delivery = WebhookDelivery(
                endpoint=endpoint,
                event=occurrence.event,
                table_id=table.pk,
                version=table.version,
                dedupe_key=occurrence.key,
                next_attempt_at=now,
            )
            delivery.body = json.dumps(
                {
                    "id": str(delivery.pk),
                    "type": occurrence.event,
                    "created": now.isoformat(),
                    "table": str(table.pk),
                    "version": table.version,
                    "data": occurrence.data,
                },
                separators=(",", ":"),
            )
            deliveries.append(delivery)
    if not deliveries:
        return 0
    WebhookDelivery.objects.bulk_create(deliveries, ignore_conflicts=True)
    ids = [str(d.pk) for d in deliveries]

    def queue():
        from games import scheduling

        for delivery_id in ids:
            scheduling.queue_webhook(delivery_id)

    transaction.on_commit(queue)
    return len(deliveries)


# --- delivery --------------------------------------------------------------------------------
def signature(secret: str, webhook_id: str, timestamp: int, body: str) -> str:
    message = f"{webhook_id}.{timestamp}.{body}".encode()
    return "v1=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def retry_delay(attempts: int) -> float:
    """Seconds before the next try after `attempts` failed ones: exponential (30 s, 2 min,
    8 min, ... capped at 6 h) with up to 25 % jitter, added only (with ±20 %, unlucky draws
    made ten tries span 21.5 h, short of the day the schedule promises)."""
    base = min(30 * 4 ** (attempts - 1), 6 * 3600)
    return base * random.uniform(1.0, 1.25)


def _send(url: str, headers: dict, body: str) -> tuple[int, str]:
    started = time.monotonic()
    timeout = httpx.Timeout(TOTAL_TIMEOUT, connect=CONNECT_TIMEOUT)
    with httpx.Client(transport=_GuardedTransport(), timeout=timeout, follow_redirects=False, trust_env=False) as client:
        with client.stream("POST", url, content=body.encode(), headers=headers) as response:
            kept = b""
            read = 0
            for chunk in response.iter_bytes():
                read += len(chunk)
                kept += chunk[: max(0, KEEP_RESPONSE_CHARS - len(kept))]
                if read >= READ_AT_MOST:
                    break
                if time.monotonic() - started > TOTAL_TIMEOUT:
                    raise httpx.ReadTimeout("the response took longer than the total timeout")
            return response.status_code, kept.decode("utf-8", "replace")


def delivery_attempt(*, delivery_id) -> str | None:
    """One try of a due delivery. Returns its status afterwards, or None when there was
    nothing to do (delivered, failed, not due, or claimed by another task)."""
    now = timezone.now()
    claimed = WebhookDelivery.objects.filter(
        pk=delivery_id, status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now
    ).update(next_attempt_at=now + LEASE)
    if not claimed:
        return None
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    if not endpoint.active:
        delivery.status = WebhookDelivery.Status.FAILED
        delivery.error = "the webhook is disabled"
        delivery.save(update_fields=["status", "error"])
        metrics.webhook_delivery_failed(reason="webhook_disabled")
        return delivery.status
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "cardgames-webhooks/1",
        "Webhook-Id": str(delivery.pk),
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": signature(endpoint.secret, str(delivery.pk), timestamp, delivery.body),
    }
    code, text, error = None, "", ""
    try:
        code, text = _send(endpoint.url, headers, delivery.body)
    except (RefusedAddress, httpx.ConnectError) as exc:
        # httpx re-raises the guard's refusal as its own ConnectError, the refusal as the cause.
        refused = exc if isinstance(exc, RefusedAddress) else exc.__cause__
        error = f"refused: {refused}" if isinstance(refused, RefusedAddress) else "connection failed (ConnectError)"
    except httpx.TimeoutException:
        error = "timeout"
    except (httpx.HTTPError, httpcore.ConnectError, OSError) as exc:
        error = f"connection failed ({type(exc).__name__})"
    delivery.attempts += 1
    delivery.response_code = code
    delivery.response_body = text
    now = timezone.now()
    if code is not None and 200 <= code < 300:
        delivery.status = WebhookDelivery.Status.DELIVERED
        delivery.delivered_at = now
        delivery.error = ""
        WebhookEndpoint.objects.filter(pk=endpoint.pk).exclude(failing_since=None).update(failing_since=None)
    else:
        delivery.error = error or f"HTTP {code}"
        _endpoint_failed(endpoint, now)
        if delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status = WebhookDelivery.Status.FAILED
        else:
            delay = retry_delay(delivery.attempts)
            delivery.next_attempt_at = now + timedelta(seconds=delay)
    delivery.save(update_fields=["attempts", "response_code", "response_body", "status", "delivered_at", "error", "next_attempt_at"])
    metrics.webhook_tried(delivered=delivery.status == WebhookDelivery.Status.DELIVERED)
    if delivery.status == WebhookDelivery.Status.FAILED:
        metrics.webhook_delivery_failed(reason="tries_exhausted")
    if delivery.status == WebhookDelivery.Status.PENDING:
        from games import scheduling

        scheduling.queue_webhook(str(delivery.pk), delay=delay)
    return delivery.status


def _endpoint_failed(endpoint: WebhookEndpoint, now) -> None:
    """A failed try: a webhook that has been failing for WEBHOOK_DISABLE_AFTER_HOURS is disabled."""
    WebhookEndpoint.objects.filter(pk=endpoint.pk, failing_since=None).update(failing_since=now)
    since = WebhookEndpoint.objects.filter(pk=endpoint.pk).values_list("failing_since", flat=True).first()
    if since is not None and now - since >= timedelta(hours=settings.WEBHOOK_DISABLE_AFTER_HOURS):
        disabled = WebhookEndpoint.objects.filter(pk=endpoint.pk, active=True).update(
            active=False, disabled_reason=f"every delivery failed since {since.isoformat()}"
        )
        if disabled:
            metrics.webhook_disabled(reason="failing")
            log.info("webhook %s disabled after a day of failed deliveries", endpoint.pk)


def delivery_resend(*, delivery: WebhookDelivery) -> None:
    """Operators: try a delivery again now (its tries start over)."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=WebhookDelivery.Status.PENDING, attempts=0, error="", next_attempt_at=timezone.now()
    )
    from games import scheduling

    transaction.on_commit(lambda: scheduling.queue_webhook(str(delivery.pk)))


def deliveries_due(now=None) -> list[str]:
    """Pending deliveries whose try is overdue (their task was lost), for the sweep."""
    now = now or timezone.now()
    due = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now - timedelta(seconds=5))
    return [str(pk) for pk in due.values_list("pk", flat=True)[:500]]

"""Signed webhooks: a tournament tells its own endpoint what happened.

Events: ``round.started``, ``result.confirmed`` (not for a silent round) and
``standings.published``.  Each is a JSON POST to the tournament's
``webhook_url``; the body is signed with HMAC-SHA256 under the tournament's
``webhook_secret``:

    X-Zary-Event: round.started
    X-Zary-Signature: sha256=<hex digest of the raw body>
    X-Zary-Delivery: <id of the first attempt: the same on every retry>

A receiver recomputes the digest over the raw body and compares it in
constant time.  Delivery is a Celery task queued when the transaction
commits; every attempt is a ``WebhookDelivery`` row (``attempts`` = its
number, the status code or the error, ``delivered_at`` on a 2xx answer).  A
timeout, a refused connection, a 5xx or a 429 is retried, at most
``MAX_ATTEMPTS`` attempts in all; other answers are final.  Redirects are
not followed.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from base.tasks import owe
from tournaments.models import Tournament, WebhookDelivery

ROUND_STARTED = "round.started"
RESULT_CONFIRMED = "result.confirmed"
STANDINGS_PUBLISHED = "standings.published"
EVENTS = (ROUND_STARTED, RESULT_CONFIRMED, STANDINGS_PUBLISHED)

# The task that makes one attempt (tournaments.tasks), owed by its registered name:
# the task calls this module, which need not import it back.
DELIVER_TASK = "tournaments.deliver_webhook"
MAX_ATTEMPTS = 3
TIMEOUT_SECONDS = 5
RETRY_DELAYS = (30, 300)  # seconds before the 2nd and 3rd attempts
SIGNATURE_HEADER = "X-Zary-Signature"
EVENT_HEADER = "X-Zary-Event"
DELIVERY_HEADER = "X-Zary-Delivery"


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does (and the tests): recompute and compare in constant time."""
    return hmac.compare_digest(signature(secret, body), header or "")


def notify(tournament: Tournament, event: str, data: dict[str, Any]) -> WebhookDelivery | None:
    """Record the event's first attempt and queue its delivery on commit (no URL: nothing)."""
    if event not in EVENTS:
        raise ValueError(f"unknown webhook event {event!r}")
    if not tournament.webhook_url:
        return None
    delivery = WebhookDelivery.objects.create(
        tournament=tournament, event=event, payload={}, attempts=1
    )
    delivery.payload = {
        "id": delivery.pk,
        "event": event,
        "tournament": {"id": tournament.pk, "slug": tournament.slug, "name": tournament.name},
        "sent_at": timezone.now().isoformat(),
        "data": data,
    }
    delivery.save(update_fields=["payload"])
    owe(DELIVER_TASK, delivery.pk)
    return delivery


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    return ip.is_global and not ip.is_multicast


def literal_address_problem(url: str) -> str | None:
    """Why ``url`` may not be a webhook target, judged without DNS (for forms)."""
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return None
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if not host:
        return _("The webhook address has no host.")
    if host == "localhost" or host.endswith(".localhost"):
        return _("A webhook cannot be sent to this server itself.")
    try:
        public = _is_public(host)
    except ValueError:
        return None  # a name: resolved and checked at delivery
    return None if public else _("A webhook cannot be sent to a private or local address.")


def resolved_address_problem(url: str) -> str | None:
    """Why ``url`` may not be called now: every address its host resolves to must be public."""
    problem = literal_address_problem(url)
    if problem or settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return problem
    parts = urllib.parse.urlsplit(url)
    try:
        infos = socket.getaddrinfo(parts.hostname, parts.port or 443, proto=socket.IPPROTO_TCP)
    except OSError as exc:
        return f"cannot resolve {parts.hostname}: {exc}"
    if not infos or not all(_is_public(str(info[4][0])) for info in infos):
        return _("A webhook cannot be sent to a private or local address.")
    return None


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirects())


def deliver(delivery: WebhookDelivery) -> bool:
    """One attempt: POST the signed body.  True when it should be tried again."""
    tournament = delivery.tournament
    body = body_of(delivery.payload)
    request = urllib.request.Request(
        tournament.webhook_url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json; charset=utf-8",
            "User-Agent": "Zary-Webhooks/1",
            EVENT_HEADER: delivery.event,
            SIGNATURE_HEADER: signature(tournament.webhook_secret, body),
            DELIVERY_HEADER: str(delivery.payload.get("id", delivery.pk)),
        },
    )
    status: int | None = None
    refused = resolved_address_problem(tournament.webhook_url)
    if refused:
        # Not retried: the address itself is not allowed.
        delivery.error = str(refused)
        delivery.save(update_fields=["error"])
        return False
    error = ""
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
        error = f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        error = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
    delivery.status_code = status
    delivery.error = error[:2000]
    ok = status is not None and 200 <= status < 300
    if ok:
        delivery.delivered_at = timezone.now()
    delivery.save(update_fields=["status_code", "error", "delivered_at"])
    return not ok and (status is None or status >= 500 or status == 429)


def next_attempt(delivery: WebhookDelivery) -> WebhookDelivery | None:
    """The row of the next attempt, or None when the attempts are used up."""
    if delivery.attempts >= MAX_ATTEMPTS:
        return None
    return WebhookDelivery.objects.create(
        tournament_id=delivery.tournament_id,
        event=delivery.event,
        payload=delivery.payload,
        attempts=delivery.attempts + 1,
    )


def retry_delay(attempt: int) -> int:
    """Seconds to wait before attempt number ``attempt`` (2, 3, ...)."""
    return RETRY_DELAYS[min(attempt - 2, len(RETRY_DELAYS) - 1)]

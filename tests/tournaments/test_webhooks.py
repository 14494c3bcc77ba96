"""Signed webhooks, received by a local HTTP server on 127.0.0.1 that checks the signature."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError

from config.celery import app
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed
from tournaments import services, webhooks
from tournaments.models import Tournament, WebhookDelivery

pytestmark = pytest.mark.django_db


class Receiver:
    """A threaded HTTP server on 127.0.0.1 recording what it is sent; answers ``statuses``
    in turn (then 200)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []
        self.statuses: list[int] = []
        self.secret = ""
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.requests.append(
                    {
                        "path": self.path,
                        "event": self.headers.get(webhooks.EVENT_HEADER),
                        "delivery": self.headers.get(webhooks.DELIVERY_HEADER),
                        "signed": webhooks.verify(
                            receiver.secret, body, self.headers.get(webhooks.SIGNATURE_HEADER, "")
                        ),
                        "json": json.loads(body),
                    }
                )
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def events(self) -> list[str]:
        return [str(r["event"]) for r in self.requests]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    r.thread.start()
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture
def eager():  # type: ignore[no-untyped-def]
    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def event(receiver):  # type: ignore[no-untyped-def]
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=2)
    services.update_tournament(t, by=admin, webhook_url=receiver.url)
    t.refresh_from_db()
    receiver.secret = t.webhook_secret
    return t, admin


def test_a_round_a_result_and_the_standings_are_announced_signed(
    receiver, event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    rnd = services.pair_next_round(t, by=admin)
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(rnd, by=admin)
    assert receiver.events() == ["round.started"]
    started = receiver.requests[0]
    assert started["signed"] and started["path"] == "/hook"
    payload = started["json"]
    assert payload["event"] == "round.started" and payload["tournament"]["id"] == t.pk
    assert [p["table"] for p in payload["data"]["pairings"]] == [1, 2]
    pairing = rnd.pairings.get(table=1)
    with django_capture_on_commit_callbacks(execute=True):
        builders.confirm_result(pairing, higher_seed(pairing))
    # Round 1 does not count before its last result: no standings yet.
    assert receiver.events() == ["round.started", "result.confirmed"]
    result = receiver.requests[1]["json"]["data"]
    assert (result["round"], result["table"], result["forfeit"]) == (1, 1, False)
    assert result["score1"] == 3 or result["score2"] == 3
    last = rnd.pairings.get(table=2)
    with django_capture_on_commit_callbacks(execute=True):
        builders.confirm_result(last, higher_seed(last))
    # Round 1 is complete but still open: its standings go out when it closes (issue 15).
    assert receiver.events()[2:] == ["result.confirmed"]
    with django_capture_on_commit_callbacks(execute=True):
        services.close_round(rnd, by=admin)
    assert receiver.events()[2:] == ["result.confirmed", "standings.published"]
    standings = receiver.requests[3]["json"]["data"]
    assert standings["after_round"] == 1 and len(standings["rows"]) == 4
    assert all(r["signed"] for r in receiver.requests)
    rows = WebhookDelivery.objects.filter(tournament=t)
    assert rows.count() == 4 and all(r.status_code == 200 and r.delivered_at for r in rows)


def test_a_wrong_secret_does_not_verify(
    receiver, event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    receiver.secret = "not the secret"
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(services.pair_next_round(t, by=admin), by=admin)
    assert len(receiver.requests) == 1 and receiver.requests[0]["signed"] is False
    body = webhooks.body_of(WebhookDelivery.objects.get(tournament=t).payload)
    assert webhooks.verify(t.webhook_secret, body, webhooks.signature(t.webhook_secret, body))
    assert not webhooks.verify(
        t.webhook_secret, body + b" ", webhooks.signature(t.webhook_secret, body)
    )


def test_failures_are_retried_a_bounded_number_of_times(
    receiver, event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    receiver.statuses = [500, 503, 500, 500]
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(services.pair_next_round(t, by=admin), by=admin)
    attempts = list(WebhookDelivery.objects.filter(tournament=t).order_by("attempts"))
    assert [a.attempts for a in attempts] == [1, 2, 3]
    assert [a.status_code for a in attempts] == [500, 503, 500]
    assert all(a.delivered_at is None for a in attempts)
    assert len(receiver.requests) == webhooks.MAX_ATTEMPTS
    # Every attempt carries the same delivery id, so the receiver can tell a retry.
    assert len({r["delivery"] for r in receiver.requests}) == 1


def test_a_retry_that_succeeds_and_a_client_error_that_is_final(
    receiver, event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    receiver.statuses = [502, 200]
    rnd = services.pair_next_round(t, by=admin)
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(rnd, by=admin)
    attempts = list(WebhookDelivery.objects.filter(tournament=t).order_by("attempts"))
    assert [(a.attempts, a.status_code, a.delivered_at is not None) for a in attempts] == [
        (1, 502, False),
        (2, 200, True),
    ]
    receiver.statuses = [410]
    pairing = rnd.pairings.get(table=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.forfeit(pairing, by=admin, winner=pairing.entry1_id, reason="absent")
    gone = WebhookDelivery.objects.filter(tournament=t, event="result.confirmed")
    assert [(d.attempts, d.status_code) for d in gone] == [(1, 410)]


def test_an_unreachable_endpoint_is_recorded(
    event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    # A port on 127.0.0.1 nobody listens on (taken, then released).
    probe = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    port = probe.server_address[1]
    probe.server_close()
    Tournament.objects.filter(pk=t.pk).update(webhook_url=f"http://127.0.0.1:{port}/hook")
    t.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(services.pair_next_round(t, by=admin), by=admin)
    attempts = list(WebhookDelivery.objects.filter(tournament=t).order_by("attempts"))
    assert len(attempts) == webhooks.MAX_ATTEMPTS
    assert all(a.status_code is None and "Connection" in a.error for a in attempts)


def test_silent_rounds_do_not_announce_results(
    receiver, event, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, admin = event
    rnd = services.pair_next_round(t, by=admin, silent=True)
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(rnd, by=admin)
        for p in rnd.pairings.all():
            builders.confirm_result(p, higher_seed(p))
    assert receiver.events() == ["round.started"]
    snapshot = services.compute_standings(t)
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_standings(snapshot, by=admin)
    assert receiver.events() == ["round.started", "standings.published"]


def test_no_url_no_delivery() -> None:
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(2, "swiss", federation=federation, by=admin, rounds_planned=1)
    services.start_round(services.pair_next_round(t, by=admin), by=admin)
    assert not WebhookDelivery.objects.exists()
    with pytest.raises(ValueError):
        webhooks.notify(t, "round.finished", {})


def test_production_refuses_private_targets_when_saved_and_when_sent(
    receiver, event, eager, settings, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    """With private targets not allowed (production's default), an organizer cannot make
    the server call inside its own network: refused on save, and never connected on send."""
    t, admin = event  # saved while development allowed the local receiver
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    for url in (
        "http://10.1.2.3/hook",
        "http://localhost:9000/x",
        "http://[::1]/x",
        "http://169.254.169.254/",
    ):
        with pytest.raises(ValidationError) as refused:
            services.update_tournament(t, by=admin, webhook_url=url)
        assert "webhook_url" in refused.value.message_dict
    rnd = services.pair_next_round(t, by=admin)
    with django_capture_on_commit_callbacks(execute=True):
        services.start_round(rnd, by=admin)
    assert receiver.requests == []  # nothing reached the local server
    delivery = WebhookDelivery.objects.get(tournament=t)
    assert delivery.status_code is None and "private or local" in delivery.error
    assert delivery.attempts == 1  # an address that is not allowed is not retried


def test_public_addresses_pass_the_literal_check(settings) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    assert webhooks.literal_address_problem("https://203.0.113.9/hook") is not None  # TEST-NET
    assert webhooks.literal_address_problem("https://8.8.8.8/hook") is None
    assert (
        webhooks.literal_address_problem("https://hooks.example.org/zary") is None
    )  # checked on send

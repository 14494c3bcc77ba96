"""The transactional outbox: work owed by a write is stored with it and sent on commit;
a broker that is down fails no request and loses no work (issue 12, point 9)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator
from typing import Any

import pytest
from celery import shared_task
from celery.contrib.testing.worker import start_worker
from django.core.management import call_command
from django.db import connection, transaction
from kombu.exceptions import OperationalError as BrokerOperationalError

from clubs.models import FederationDiscipline
from config.celery import app as celery_app
from config.celery import ping
from outbox import services
from outbox.models import PendingTask
from outbox.services import queue_on_commit
from ratings import services as ratings_services
from ratings.models import RatingChange
from tests.ratings.test_services import history_values, rating_values
from tests.tournaments import builders
from tournaments import adapters
from tournaments import services as tournaments_services
from tournaments.models import StandingsSnapshot, Tournament

UNREACHABLE_BROKER = "redis://127.0.0.1:1/0"  # nothing listens on port 1

RECEIVED: list[Any] = []


@shared_task(name="tests.outbox.record")
def record(value: Any) -> None:
    """A registered task, so that the drain finds it by name."""
    RECEIVED.append(value)


class FakeTask:
    """Stands for a Celery task; ``broken`` is raised by every send while set."""

    def __init__(self, name: str = "tests.outbox.fake") -> None:
        self.name = name
        self.sent: list[tuple[Any, ...]] = []
        self.scheduled: list[tuple[list[Any], datetime.datetime]] = []
        self.broken: Exception | None = None

    def delay(self, *args: Any) -> None:
        if self.broken is not None:
            raise self.broken
        self.sent.append(args)

    def apply_async(self, args: list[Any], kwargs: dict[str, Any], eta: datetime.datetime) -> None:
        if self.broken is not None:
            raise self.broken
        self.scheduled.append((args, eta))


def reset_broker_connections() -> None:
    """Forget the pooled broker connections so the next send connects to ``broker_url``."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def eager() -> Iterator[None]:
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager = conf.task_eager_propagates = True
    RECEIVED.clear()
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture
def broker() -> Iterator[Any]:
    """``broker.stop()`` makes the app send to a broker nobody answers; ``broker.start()``
    puts the configured one back and (unless told otherwise) runs the tasks in this process.

    The write URL is the one to change: Celery prefers CELERY_BROKER_URL from the
    environment (set in CI) to ``broker_url``.
    """
    conf = celery_app.conf
    saved = (
        conf.get("broker_write_url"),
        conf.broker_transport_options,
        conf.task_always_eager,
        conf.task_eager_propagates,
    )

    class Broker:
        def stop(self) -> None:
            conf.broker_write_url, conf.broker_transport_options = UNREACHABLE_BROKER, {}
            conf.task_always_eager = False
            reset_broker_connections()
            assert celery_app.connection_for_write().port == 1

        def start(self, *, eager: bool = True) -> None:
            conf.broker_write_url, conf.broker_transport_options = saved[0], saved[1]
            conf.task_always_eager = conf.task_eager_propagates = eager
            reset_broker_connections()

    yield Broker()
    (
        conf.broker_write_url,
        conf.broker_transport_options,
        conf.task_always_eager,
        conf.task_eager_propagates,
    ) = saved
    reset_broker_connections()


# --- the outbox itself -------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_work_is_stored_with_the_write_and_sent_once_on_commit() -> None:
    task = FakeTask()
    with transaction.atomic():
        queue_on_commit(task, 1)
        queue_on_commit(task, 1)  # the same work owed twice ...
        queue_on_commit(task, 2)
        assert PendingTask.objects.count() == 2  # ... is one row
        assert task.sent == []  # nothing leaves before the commit
    assert task.sent == [(1,), (2,)]
    assert not PendingTask.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_write_owes_nothing() -> None:
    task = FakeTask()
    with pytest.raises(RuntimeError), transaction.atomic():
        queue_on_commit(task, 1)
        raise RuntimeError("roll back")
    assert task.sent == []
    assert not PendingTask.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_broker_error_is_logged_the_work_kept_and_sent_by_the_drain(caplog, eager) -> None:  # type: ignore[no-untyped-def]
    with transaction.atomic():
        queue_on_commit(record, "kept")
        assert services.send(services.dedupe_key(record.name, ["kept"], {})) is services.Sent.SENT
    assert RECEIVED == ["kept"]  # (eager: the send ran it)

    task = FakeTask(record.name)
    task.broken = BrokerOperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")
    with transaction.atomic():  # no exception leaves the commit
        queue_on_commit(task, "owed")
    row = PendingTask.objects.get()
    assert (row.task, row.args, row.attempts, row.failed_at) == (record.name, ["owed"], 1, None)
    assert "Connection refused" in row.last_error
    assert "broker unreachable" in caplog.text
    # The broker is back: the drain sends it (by name: the registered task).
    assert services.drain() == {"sent": 1, "left": 0}
    assert RECEIVED == ["kept", "owed"]


@pytest.mark.django_db(transaction=True)
def test_only_broker_errors_are_retried(caplog) -> None:  # type: ignore[no-untyped-def]
    task = FakeTask()
    task.broken = TypeError("Object of type Match is not JSON serializable")
    with transaction.atomic():
        queue_on_commit(task, 1)
    row = PendingTask.objects.get()
    assert row.failed_at is not None and "not JSON serializable" in row.last_error
    assert "could not be sent" in caplog.text
    # Not retried: it will not heal by itself.
    assert services.drain() == {"left": 1}
    assert PendingTask.objects.get().attempts == 1
    # Owed again (or retried by hand after a fix): tried again.
    task.broken = None
    with transaction.atomic():
        queue_on_commit(task, 1)
    assert task.sent == [(1,)]
    assert not PendingTask.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_command_retries_failed_rows_only_when_asked(capsys, eager) -> None:  # type: ignore[no-untyped-def]
    PendingTask.objects.create(
        task=record.name,
        args=["late"],
        key=services.dedupe_key(record.name, ["late"], {}),
        token="t",
        failed_at=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC),
    )
    call_command("drain_outbox")
    assert "sent 0, broker unreachable 0, failed 0, left 1" in capsys.readouterr().out
    call_command("drain_outbox", "--failed")
    assert "sent 1, broker unreachable 0, failed 0, left 0" in capsys.readouterr().out
    assert RECEIVED == ["late"]


@pytest.mark.django_db(transaction=True)
def test_the_drain_stops_at_the_first_broker_error(broker) -> None:  # type: ignore[no-untyped-def]
    broker.stop()
    with transaction.atomic():
        for value in range(3):
            queue_on_commit(record, value)  # a real send to a broker that is not there
    assert sorted(PendingTask.objects.values_list("attempts", flat=True)) == [1, 1, 1]
    assert services.drain() == {"kept": 1, "left": 3}  # one try, not three
    assert sorted(PendingTask.objects.values_list("attempts", flat=True)) == [1, 1, 2]
    broker.start()
    RECEIVED.clear()
    assert services.drain() == {"sent": 3, "left": 0}
    assert sorted(RECEIVED) == [0, 1, 2]


@pytest.mark.django_db(transaction=True)
def test_work_owed_again_while_it_is_sent_is_sent_again() -> None:
    """A write that owes the same work commits while an earlier row is being sent: its
    token replaces the one the sender read, so the sender leaves the row in place."""
    task = FakeTask()
    key = services.dedupe_key(task.name, [1], {})

    class OwedAgainMeanwhile(FakeTask):
        def delay(self, *args: Any) -> None:
            super().delay(*args)
            PendingTask.objects.filter(key=key).update(token="a later transaction")

    racing = OwedAgainMeanwhile(task.name)
    with transaction.atomic():
        queue_on_commit(racing, 1)
    assert racing.sent == [(1,)]
    assert PendingTask.objects.filter(key=key, token="a later transaction").exists()
    assert services.send(key, task) is services.Sent.SENT
    assert task.sent == [(1,)] and not PendingTask.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_countdown_becomes_an_eta() -> None:
    task = FakeTask()
    queue_on_commit(task, 5, countdown=300)  # outside a transaction: sent at once
    [(args, eta)] = task.scheduled
    assert args == [5]
    seconds = (eta - datetime.datetime.now(datetime.UTC)).total_seconds()
    assert 200 < seconds <= 300


def test_the_drain_runs_on_beat_and_when_a_worker_starts() -> None:
    from celery.signals import worker_ready

    from config.celery import drain_outbox_on_start
    from outbox.tasks import drain_outbox

    entry = celery_app.conf.beat_schedule["drain-outbox"]
    assert entry["task"] == drain_outbox.name and drain_outbox.name in celery_app.tasks
    assert entry["schedule"] <= 60
    assert drain_outbox_on_start in [ref() for _key, ref in worker_ready.receivers]


# --- the issue: results confirmed while the broker is down -------------------------


@pytest.mark.django_db(transaction=True)
def test_results_confirmed_while_the_broker_is_down_are_rated_when_it_returns(
    client, broker
) -> None:  # type: ignore[no-untyped-def]
    federation, organizer, _ = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=organizer, rounds_planned=2)
    FederationDiscipline.objects.create(
        federation=federation, discipline=t.discipline, rating_system="fibs"
    )
    rnd = tournaments_services.pair_next_round(t, by=organizer)
    tournaments_services.start_round(rnd, by=organizer)
    first, second = rnd.pairings.select_related("match__player1__user", "match__player2__user")
    PendingTask.objects.all().delete()  # what starting the round owed (sent or not)

    broker.stop()
    # A player reports, the opponent confirms: through the API, as each of them.
    client.force_login(first.match.player1.user)
    reported = client.post(
        "/api/reports/",
        {"match": first.match.pk, "score1": 3, "score2": 1},
        content_type="application/json",
    )
    assert reported.status_code == 201, reported.content
    client.force_login(first.match.player2.user)
    confirmed = client.post(f"/api/reports/{reported.json()['id']}/confirm/")
    assert confirmed.status_code == 200, confirmed.content
    # The organizer overrides the other result.
    client.force_login(organizer)
    overridden = client.post(
        f"/api/matches/{second.match.pk}/override/",
        {"score1": 0, "score2": 3, "reason": "Scoresheet signed by both"},
        content_type="application/json",
    )
    assert overridden.status_code == 200, overridden.content

    # Committed, and the work they owe is waiting (the tournament's share of each result
    # asks for the standings once it runs).
    owed = sorted(PendingTask.objects.values_list("task", "args"))
    assert owed == sorted(
        [
            ("ratings.update_for_match", [first.match.pk]),
            ("ratings.update_for_match", [second.match.pk]),
            ("tournaments.result_confirmed", [first.match.pk]),
            ("tournaments.result_confirmed", [second.match.pk]),
        ]
    )
    assert all(row.attempts >= 1 for row in PendingTask.objects.all())
    assert not RatingChange.objects.exists()
    assert not StandingsSnapshot.objects.filter(tournament=t).exists()

    broker.start()
    call_command("drain_outbox")
    assert not PendingTask.objects.exists()

    # Ratings: both matches rated, equal to a recomputation from scratch.
    pool = FederationDiscipline.objects.get(federation=federation).pool
    assert RatingChange.objects.filter(pool=pool).count() == 4
    drained = rating_values(pool), history_values(pool)
    ratings_services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == drained
    # Standings: computed, equal to a computation from scratch.
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    assert sum(row["wins"] for row in snapshot.rows) == 2
    rows, _tie_breaks, digest = tournaments_services.standings_rows(
        t, entries=adapters.entry_rows(t), pairings=list(adapters.pairing_rows(t)), after=1
    )
    assert (snapshot.rows, snapshot.results_digest) == (rows, digest)
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
    or connection.vendor != "postgresql",
    reason="a real Redis broker and worker on PostgreSQL (CI sets CELERY_BROKER_URL, DATABASE_URL)",
)
def test_a_real_worker_does_the_owed_work_when_redis_returns(broker) -> None:  # type: ignore[no-untyped-def]
    federation, organizer, _ = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=organizer, rounds_planned=2)
    FederationDiscipline.objects.create(
        federation=federation, discipline=t.discipline, rating_system="fibs"
    )
    rnd = tournaments_services.pair_next_round(t, by=organizer)
    tournaments_services.start_round(rnd, by=organizer)
    broker.stop()
    for pairing in rnd.pairings.select_related("match__player1__user", "match__player2__user"):
        builders.confirm_result(pairing, builders.higher_seed(pairing))
    assert PendingTask.objects.filter(task="ratings.update_for_match").count() == 2
    broker.start(eager=False)  # the configured Redis, and a worker to run what is sent
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        assert services.drain()["left"] == 0
        # Wait for the worker, a bounded number of round trips through the broker.
        for _ in range(30):
            if RatingChange.objects.count() == 4 and StandingsSnapshot.objects.exists():
                break
            ping.delay().get(timeout=60)
    pool = FederationDiscipline.objects.get(federation=federation).pool
    drained = rating_values(pool), history_values(pool)
    assert RatingChange.objects.filter(pool=pool).count() == 4
    ratings_services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == drained
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    assert sum(row["wins"] for row in snapshot.rows) == 2

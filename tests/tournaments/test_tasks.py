"""The standings task: asked for by confirmed results, coalesced, idempotent."""

from __future__ import annotations

import datetime

import pytest
from django.db import OperationalError, transaction
from django.utils import timezone

from base import locking
from base.tasks import TRANSIENT, OwedTask
from config.celery import app
from games import services as games_services
from tests.factories import MatchFactory
from tests.tournaments import builders
from tests.tournaments.builders import higher_seed
from tournaments import services, tasks
from tournaments.models import StandingsSnapshot, Tournament, WebhookDelivery

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager():  # type: ignore[no-untyped-def]
    """Celery runs tasks at once, in this process (the broker is not needed)."""
    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


def queued(callbacks) -> list[str]:  # type: ignore[no-untyped-def]
    """Names of the Celery tasks queued by on-commit callbacks (base.tasks.owe)."""
    names = []
    for callback in callbacks:
        for cell in callback.__closure__ or ():
            task = cell.cell_contents
            if hasattr(task, "delay") and hasattr(task, "name"):
                names.append(task.name)
    return names


STANDINGS = "tournaments.compute_standings"


def confirm(pairing) -> None:  # type: ignore[no-untyped-def]
    """Confirm the better seed's win, then do the tournament's share of it: the task the
    confirmation queued for its commit (these tests never commit)."""
    builders.confirm_result(pairing, higher_seed(pairing))
    tasks.result_confirmed_task(pairing.match_id)


@pytest.fixture
def started_round():  # type: ignore[no-untyped-def]
    federation, admin, _ = builders.federation_with_admin()
    t = builders.tournament(6, "swiss", federation=federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    return t, rnd, admin


@pytest.fixture
def computations(monkeypatch):  # type: ignore[no-untyped-def]
    """Count the standings computations (the real function still runs)."""
    calls: list[int] = []
    real = services.compute_standings

    def counting(tournament):  # type: ignore[no-untyped-def]
        calls.append(tournament.pk)
        return real(tournament)

    monkeypatch.setattr(services, "compute_standings", counting)
    return calls


def test_three_results_in_one_transaction_compute_once(
    started_round, computations, eager, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        for p in rnd.pairings.select_related("match__player1__user", "match__player2__user"):
            builders.confirm_result(p, higher_seed(p))
    assert queued(callbacks).count(STANDINGS) == 1  # one task queued for three results
    assert computations == [t.pk]
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is None
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    assert sum(row["wins"] for row in snapshot.rows) == 3
    # Run again: nothing was asked for, nothing is computed, nothing changes.
    before = (snapshot.computed_at, snapshot.rows)
    assert tasks.compute_standings_task.delay(t.pk).get() is None
    assert computations == [t.pk]
    snapshot.refresh_from_db()
    assert (snapshot.computed_at, snapshot.rows) == before


def test_a_rerun_with_the_mark_set_changes_nothing(started_round) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    for p in rnd.pairings.all():
        confirm(p)
    first_id = tasks.compute_standings_task(t.pk)
    first = StandingsSnapshot.objects.get(pk=first_id)
    services.request_standings(t.pk)  # asked again with no new result
    assert tasks.compute_standings_task(t.pk) == first_id
    again = StandingsSnapshot.objects.get(pk=first_id)
    assert (again.computed_at, again.rows, again.results_digest) == (
        first.computed_at,
        first.rows,
        first.results_digest,
    )


def test_a_result_arriving_during_the_computation_is_not_lost(started_round, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    pairings = list(rnd.pairings.all())
    for p in pairings[:-1]:
        confirm(p)
    real = services.compute_standings
    seen: list[int | None] = []

    def racing(tournament):  # type: ignore[no-untyped-def]
        snapshot = real(tournament)
        seen.append(None if snapshot is None else sum(row["wins"] for row in snapshot.rows))
        if len(seen) == 1:  # the round's last result is confirmed meanwhile
            confirm(pairings[-1])
        return snapshot

    monkeypatch.setattr(services, "compute_standings", racing)
    tasks.compute_standings_task(t.pk)
    # Computed again (the mark had changed), and the round counts once complete.
    assert seen == [None, len(pairings)]
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is None


def test_only_transient_database_errors_are_retried() -> None:
    # The one policy of base.tasks (tests/config/test_owed_tasks.py): no task has its own.
    for task in (
        tasks.compute_standings_task,
        tasks.result_confirmed_task,
        tasks.result_withdrawn_task,
        tasks.deliver_webhook,
    ):
        assert isinstance(task, OwedTask), task.name
        assert set(task.autoretry_for) == set(TRANSIENT), task.name


def test_a_lock_not_granted_keeps_the_request_for_the_retry(started_round, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    confirm(rnd.pairings.first())

    def busy(tournament):  # type: ignore[no-untyped-def]
        raise locking.Busy()

    monkeypatch.setattr(services, "compute_standings", busy)
    with pytest.raises(locking.Busy):
        tasks.compute_standings_task.run(t.pk)
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is not None


def test_a_database_error_leaves_the_request_for_the_retry(started_round, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    p = rnd.pairings.first()
    confirm(p)

    def broken(tournament):  # type: ignore[no-untyped-def]
        raise OperationalError("database is locked")

    monkeypatch.setattr(services, "compute_standings", broken)
    with pytest.raises(OperationalError):
        tasks.compute_standings_task.run(t.pk)
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is not None


def test_requests_queue_once_until_done_or_stale(
    started_round, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, _rnd, _admin = started_round
    Tournament.objects.filter(pk=t.pk).update(standings_requested_at=None)
    with django_capture_on_commit_callbacks() as callbacks:
        services.request_standings(t.pk)
        services.request_standings(t.pk)
    assert queued(callbacks) == [STANDINGS]
    # A mark nobody cleared for long (a lost message) is queued again.
    Tournament.objects.filter(pk=t.pk).update(
        standings_requested_at=timezone.now() - datetime.timedelta(hours=1)
    )
    with django_capture_on_commit_callbacks() as callbacks:
        services.request_standings(t.pk)
    assert queued(callbacks) == [STANDINGS]


def test_results_of_matches_outside_tournaments_are_ignored(
    django_capture_on_commit_callbacks,
) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(recorded=False)
    with django_capture_on_commit_callbacks() as callbacks:
        report = games_services.submit_report(match, by=match.player1.user, score1=3, score2=0)
        games_services.confirm_report(report, by=match.player2.user)
    assert callbacks  # the result was announced (other apps listen) ...
    assert STANDINGS not in queued(callbacks)  # ... but it is no tournament's
    assert not Tournament.objects.exists()


def test_a_missing_tournament_is_a_no_op() -> None:
    assert tasks.compute_standings_task(987654) is None


def test_a_confirmation_only_queues_the_tournaments_share(
    started_round, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    t, rnd, _admin = started_round
    Tournament.objects.filter(pk=t.pk).update(standings_requested_at=None)
    p = rnd.pairings.first()
    with django_capture_on_commit_callbacks() as callbacks:
        builders.confirm_result(p, higher_seed(p))
    # The games transaction writes no tournament row (it would lock it after the match) ...
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is None
    assert "tournaments.result_confirmed" in queued(callbacks)
    # ... the task does, in its own transaction after the commit.
    tasks.result_confirmed_task(p.match_id)
    assert Tournament.objects.get(pk=t.pk).standings_requested_at is not None


def test_the_result_task_run_twice_announces_the_result_once(started_round) -> None:  # type: ignore[no-untyped-def]
    t, rnd, admin = started_round
    services.update_tournament(t, by=admin, webhook_url="https://example.org/hook")
    p = rnd.pairings.first()
    builders.confirm_result(p, higher_seed(p))
    announced = WebhookDelivery.objects.filter(tournament=t, event="result.confirmed")
    tasks.result_confirmed_task(p.match_id)
    tasks.result_confirmed_task(p.match_id)  # the same message delivered twice
    assert announced.count() == 1
    # An override is news, even with the same score: announced again.
    builders.override_result(p, higher_seed(p), by=admin, loser_points=1)
    tasks.result_confirmed_task(p.match_id)
    assert announced.count() == 2
    assert {d.payload["data"]["match"] for d in announced} == {p.match_id}

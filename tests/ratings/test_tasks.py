"""The ratings tasks: queued on commit by the event subscribers, idempotent, retried
only on transient database errors, the monthly lists on Celery beat."""

from __future__ import annotations

import datetime as dt
import threading
from typing import Any

import pytest
from celery.schedules import crontab
from django.db import IntegrityError, OperationalError, connection, connections

from clubs import merging
from clubs.events import player_merged
from config.celery import app as celery_app
from games import services as games_services
from games.events import result_confirmed, result_withdrawn
from ratings import services, tasks
from ratings.models import PlayerRating, RatingChange, RatingList
from ratings.receivers import on_player_merged, on_result_changed
from tests.factories import UserFactory
from tests.ratings.test_services import (
    BASE,
    confirmed,
    eager,  # noqa: F401 (a fixture)
    history_values,
    players_of,
    pool_of,
    rated_discipline,
    rating_values,
)

pytestmark = pytest.mark.django_db


def test_the_app_subscribes_to_results_and_merges() -> None:
    assert on_result_changed in result_confirmed.receivers
    assert on_result_changed in result_withdrawn.receivers
    assert on_player_merged in player_merged.receivers
    assert services.fold_merged_player in merging.folds()


@pytest.mark.usefixtures("eager")
def test_a_confirmed_result_queues_the_update_on_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    match = confirmed(one, two, at=BASE, rated=rated)
    with django_capture_on_commit_callbacks() as callbacks:
        result_confirmed.send(match_id=match.pk)
    assert len(callbacks) == 1
    assert not RatingChange.objects.exists()  # nothing before the commit
    callbacks[0]()
    assert RatingChange.objects.filter(pool=pool, match=match).count() == 2


@pytest.mark.usefixtures("eager")
def test_cancelling_a_rated_match_takes_it_out_of_the_ratings(
    django_capture_on_commit_callbacks: Any,
) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    first = confirmed(one, two, at=BASE, rated=rated)
    second = confirmed(one, three, at=BASE + dt.timedelta(days=1), rated=rated)
    services.recompute_pool(pool)
    assert RatingChange.objects.filter(pool=pool).count() == 4
    organizer = UserFactory(is_superuser=True)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        games_services.cancel_match(first, by=organizer, reason="Both absent; entered in error.")
    assert len(callbacks) == 1
    assert set(RatingChange.objects.filter(pool=pool).values_list("match_id", flat=True)) == {
        second.pk
    }
    # The same ratings as a pool that never saw the cancelled match.
    after = rating_values(pool)
    services.recompute_pool(pool)
    assert rating_values(pool) == after


def test_update_task_reports_what_it_did_and_is_idempotent() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    match = confirmed(one, two, at=BASE, rated=rated)
    [first] = tasks.update_for_match(match.pk)
    assert first.startswith(f"pool {pool.pk}: applied")
    before = rating_values(pool), history_values(pool)
    [again] = tasks.update_for_match(match.pk)
    assert again == f"pool {pool.pk}: unchanged, 0 matches, 0 history rows, 0 ratings"
    assert (rating_values(pool), history_values(pool)) == before


def test_recompute_tasks() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two, three = players_of(rated, 3)
    confirmed(one, two, at=BASE, rated=rated)
    later = confirmed(two, three, at=BASE + dt.timedelta(days=1), rated=rated)
    assert tasks.recompute_pool(pool.pk).startswith(f"pool {pool.pk}: recomputed, 2 matches")
    done = tasks.recompute_pool_from(pool.pk, later.finished_at.isoformat(), later.pk)
    assert done.startswith(f"pool {pool.pk}: recomputed from {later.finished_at.isoformat()}")
    assert "1 matches, 2 history rows, 2 ratings" in done
    assert RatingChange.objects.filter(pool=pool).count() == 4
    assert tasks.recompute_pool(10**9) == f"pool {10**9}: gone"
    assert tasks.recompute_pool_from(10**9, BASE.isoformat(), 1) == f"pool {10**9}: gone"


def test_transient_database_errors_are_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def flaky(match_id: int) -> list[services.Outcome]:
        calls.append(match_id)
        if len(calls) < 3:
            raise OperationalError("deadlock detected")
        return [services.Outcome(1, "applied")]

    monkeypatch.setattr(services, "update_after_match", flaky)
    monkeypatch.setattr(tasks.update_for_match, "retry_backoff", False)
    result = tasks.update_for_match.apply(args=[7], throw=False)
    assert result.successful() and result.get() == [
        "pool 1: applied, 0 matches, 0 history rows, 0 ratings"
    ]
    assert calls == [7, 7, 7]


@pytest.mark.parametrize("error", [IntegrityError("duplicate key"), ValueError("bad data")])
def test_other_errors_are_not_retried(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    calls: list[int] = []

    def broken(match_id: int) -> list[services.Outcome]:
        calls.append(match_id)
        raise error

    monkeypatch.setattr(services, "update_after_match", broken)
    result = tasks.update_for_match.apply(args=[7], throw=False)
    assert result.failed() and isinstance(result.result, type(error))
    assert calls == [7]


def test_a_merge_queues_the_recomputation_from_the_duplicates_first_match(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    survivor, duplicate, other = players_of(rated, 3)
    confirmed(survivor, other, at=BASE, rated=rated)
    first = confirmed(other, duplicate, at=BASE + dt.timedelta(days=1), rated=rated)
    confirmed(duplicate, other, at=BASE + dt.timedelta(days=2), rated=rated)
    services.recompute_pool(pool)
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.recompute_pool_from, "delay", lambda *args: queued.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        player_merged.send(survivor_id=survivor.pk, duplicate_id=duplicate.pk)
        # The subscriber only queues: both ratings are still there ...
        assert PlayerRating.objects.filter(player=duplicate).exists()
        # ... the merge's fold (clubs.merging) deletes the duplicate's, which would clash.
        merging.fold(survivor.pk, duplicate.pk)
        assert not PlayerRating.objects.filter(player=duplicate).exists()
        assert PlayerRating.objects.filter(player=survivor).exists()
        assert queued == []  # nothing leaves before the commit
    assert queued == [(pool.pk, first.finished_at.isoformat(), first.pk)]


def test_monthly_lists_run_on_the_first_from_beat() -> None:
    entry = celery_app.conf.beat_schedule["publish-monthly-rating-lists"]
    assert entry["task"] == tasks.publish_monthly_lists.name
    assert tasks.publish_monthly_lists.name in celery_app.tasks
    schedule = entry["schedule"]
    assert isinstance(schedule, crontab) and schedule.day_of_month == {1}


def test_monthly_lists_task_publishes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    one, two = players_of(rated, 2)
    confirmed(one, two, at=BASE, rated=rated)
    services.recompute_pool(pool)
    assert tasks.publish_monthly_lists() == 1
    assert tasks.publish_monthly_lists() == 0
    [published] = RatingList.objects.filter(pool=pool)
    assert published.is_published and published.entries.count() == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL (set DATABASE_URL): SQLite serialises writers itself",
)
def test_concurrent_updates_of_one_pool_wait_for_each_other() -> None:
    rated = rated_discipline()
    pool = pool_of(rated)
    people = players_of(rated, 8)
    matches = [
        confirmed(people[n], people[(n + 1) % 8], at=BASE + dt.timedelta(hours=n), rated=rated)
        for n in range(8)
    ]
    barrier = threading.Barrier(len(matches))
    failures: list[BaseException] = []

    def worker(match_id: int) -> None:
        try:
            barrier.wait()
            services.update_after_match(match_id)
        except BaseException as error:  # reported by the assertion below
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(m.pk,)) for m in reversed(matches)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    concurrent = rating_values(pool), history_values(pool)
    services.recompute_pool(pool)
    assert (rating_values(pool), history_values(pool)) == concurrent
    assert RatingChange.objects.filter(pool=pool).count() == 16

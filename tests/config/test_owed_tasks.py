"""The one task base (base.tasks): every product task uses it, it is owed on commit
(by the task or its name), retried on transient errors only, and loads rows by id."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from celery import shared_task
from celery.exceptions import NotRegistered
from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, transaction

from base.locking import Busy
from base.tasks import OwedTask, load, owe
from clubs.models import Federation
from config.celery import app as celery_app
from outbox.models import PendingTask

DONE: list[Any] = []
FAILURES: list[BaseException] = []


@shared_task(base=OwedTask, name="tests.owed.record")
def record(value: Any) -> None:
    DONE.append(value)


@shared_task(base=OwedTask, name="tests.owed.flaky")
def flaky(value: Any) -> str:
    """Fails with the errors queued in FAILURES, one a run, then succeeds."""
    DONE.append(value)
    if FAILURES:
        raise FAILURES.pop(0)
    return "done"


@pytest.fixture
def eager() -> Iterator[None]:
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, False
    DONE.clear()
    FAILURES.clear()
    yield
    conf.task_always_eager, conf.task_eager_propagates = saved


def test_every_product_task_uses_the_base_but_the_outbox_drain() -> None:
    celery_app.loader.import_default_modules()  # what a worker does when it starts
    product = {
        name: task
        for name, task in celery_app.tasks.items()
        if name.split(".")[0]
        in {"games", "ratings", "analysis", "tournaments", "idempotency", "outbox"}
    }
    assert {
        "games.confirm_overdue_reports",
        "games.scan_archive",
        "games.import_archive",
        "idempotency.expire_keys",
        "ratings.update_for_match",
        "ratings.recompute_pool",
        "ratings.recompute_pool_from",
        "ratings.publish_monthly_lists",
        "ratings.names_changed",
        "analysis.analyse_match",
        "tournaments.analysis_changed",
        "tournaments.compute_standings",
        "tournaments.result_confirmed",
        "tournaments.result_withdrawn",
        "tournaments.deliver_webhook",
        "tournaments.names_changed",
        "outbox.drain",
    } == set(product)
    assert [name for name, task in product.items() if not isinstance(task, OwedTask)] == [
        "outbox.drain"
    ]
    for task in product.values():
        if isinstance(task, OwedTask):
            assert set(task.autoretry_for) == {OperationalError, InterfaceError, Busy}, task.name
            assert (task.max_retries, task.retry_backoff, task.retry_backoff_max) == (6, 2, 120)
    # The beat schedule names registered tasks (names never change: rows refer to them).
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in celery_app.tasks


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("eager")
def test_owed_work_waits_for_the_commit_and_a_rollback_owes_nothing() -> None:
    with transaction.atomic():
        owe(record, 1)
        owe("tests.owed.record", 1)  # by name: the same work, owed once
        assert PendingTask.objects.count() == 1
        assert DONE == []
    assert DONE == [1]
    with pytest.raises(RuntimeError), transaction.atomic():
        owe(record, 2)
        raise RuntimeError("roll back")
    assert DONE == [1]
    assert not PendingTask.objects.exists()


@pytest.mark.django_db
def test_only_an_owed_task_can_be_owed() -> None:
    with pytest.raises(TypeError, match=r"outbox\.drain is not an OwedTask"):
        owe("outbox.drain")  # the drain sends owed work: it is never owed itself
    with pytest.raises(NotRegistered):
        owe("tests.owed.nobody", 1)  # a misspelt name fails the write, not a later send
    assert not PendingTask.objects.exists()


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize(
    "error",
    [OperationalError("deadlock detected"), InterfaceError("connection already closed"), Busy()],
)
def test_transient_errors_are_retried(error: Exception) -> None:
    FAILURES.extend([error, error])
    result = flaky.apply(args=["x"])
    assert result.successful() and result.get() == "done"
    assert DONE == ["x", "x", "x"]


@pytest.mark.usefixtures("eager")
@pytest.mark.parametrize("error", [IntegrityError("duplicate key"), ValueError("bad data")])
def test_other_errors_fail_at_once(error: Exception) -> None:
    FAILURES.append(error)
    result = flaky.apply(args=["x"])
    assert result.failed() and result.result is error
    assert DONE == ["x"]


@pytest.mark.django_db
def test_a_row_gone_loads_as_none() -> None:
    federation = Federation.objects.create(name="Federation", slug="federation")
    assert load(Federation, federation.pk) == federation
    federation.delete()
    assert load(Federation, federation.pk) is None
